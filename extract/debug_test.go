package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestDebugDump(t *testing.T) {
	files, _ := filepath.Glob(os.Getenv("DUMP"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		r := Rules{}
		c, _ := r.Classify(context.Background(), string(b))
		x, _ := r.Extract(context.Background(), string(b), c)
		var xx Extraction
		json.Unmarshal(x, &xx)
		_, err := r.Validate(context.Background(), x)
		if os.Getenv("FULL") != "" {
			pretty, _ := json.MarshalIndent(xx, "", " ")
			fmt.Printf("%s\n%s\n", c, pretty)
		}
		fmt.Printf("%-36s %-8s no=%q v=%q d=%q c=%s sub=%s tax=%s(%v) tot=%s lines=%d ch=%v pr=%v ERR=%v\n", filepath.Base(f), xx.DocumentType, xx.InvoiceNumber, xx.Vendor, xx.IssueDate, xx.Currency, xx.Subtotal, xx.Tax, xx.TaxIncluded, xx.Total, len(xx.LineItems), xx.Charges, xx.Problems, err)
	}
}
