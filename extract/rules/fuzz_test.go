package rules

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// checkStages runs the three stages on content and checks what must hold
// for any input: no error but a *Rejection with a known reason, JSON
// outputs, and an accepted invoice that adds up in minor units.
func checkStages(t *testing.T, content string) {
	t.Helper()
	ctx := context.Background()
	r := Rules{}
	cls, err := r.Classify(ctx, content)
	require.NoError(t, err)
	require.True(t, json.Valid(cls))
	ext, err := r.Extract(ctx, content, cls)
	require.NoError(t, err)
	require.True(t, json.Valid(ext))
	res, err := r.Validate(ctx, ext)
	if err != nil {
		var rej *extract.Rejection
		require.True(t, errors.As(err, &rej), "only rejections: %v", err)
		require.True(t, extract.ValidReason(rej.Reason), rej.Reason)
		return
	}
	var inv extract.Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	checkAddsUp(t, inv)
}

// checkAddsUp recomputes an accepted invoice's sums from its own strings.
func checkAddsUp(t *testing.T, inv extract.Invoice) {
	t.Helper()
	minor, ok := extract.MinorUnits(inv.Currency)
	require.True(t, ok, inv.Currency)
	money := func(s string) int64 {
		whole, frac, _ := strings.Cut(s, ".")
		require.LessOrEqual(t, len(frac), minor, s)
		n, err := strconv.ParseInt(whole+frac+strings.Repeat("0", minor-len(frac)), 10, 64)
		require.NoError(t, err, s)
		return n
	}
	sum := money(inv.Subtotal)
	if len(inv.LineItems) > 0 {
		var lines int64
		for _, l := range inv.LineItems {
			lines += money(l.Amount)
		}
		require.Equal(t, lines, sum, "lines = subtotal")
	}
	for _, c := range inv.Charges {
		sum += money(c.Amount)
	}
	if !inv.TaxIncluded {
		sum += money(inv.Tax)
	}
	require.Equal(t, money(inv.Total), sum, "subtotal + charges + tax = total")
}

func FuzzRules(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "invoices", "*.txt"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{"", "INVOICE", "Invoice #: 1\nTotal: 1.00 EUR", "| a | b |\n|---|---|\n| 1 | 2 |",
		"Total: 1.2.3,4", "03/04/2026 $ 12", "a;b;c\n1;2;3", "I N V O I C E\nAmount due: ¥1,000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		checkStages(t, content)
	})
}

// pathological builds a document of about size bytes by repeating unit.
func pathological(unit string, size int) string {
	return strings.Repeat(unit, size/len(unit)+1)[:size]
}

func TestRules_PathologicalInputsUpToOneMiBFinish(t *testing.T) {
	t.Parallel()
	const size = MaxDocumentBytes
	header := "INVOICE\nInvoice No: 1\nDate: 2026-03-03\nCurrency: EUR\nQty  Description  Unit Price  Amount\n"
	docs := map[string]string{
		"one long line of digits":     pathological("1234567890", size),
		"separators between digits":   pathological("1.2,3'4 5/6-7", size),
		"only newlines":               header + pathological("\n", size-len(header)),
		"blank lines inside a table":  header + pathological("1  Widget  2.00  2.00\n\n\n", size-len(header)),
		"totals on every line":        pathological("Total: 1.00\nVAT 20%: 0.20\nSubtotal 0.80\n", size),
		"brackets":                    header + pathological("Tax (a)(1)(b)(2) 1.00 ", size-len(header)),
		"prose items":                 "INVOICE 1\nThis covers " + pathological("the thing at €1.00 each (€1.00), ", size-20),
		"month words":                 pathological("March 3, 2026 May May 3rd of June ", size),
		"pipes":                       pathological("| 1 | 2 | Total | 3 |\n", size),
		"label words":                 pathological("Invoice No Total Due Amount Subtotal VAT ", size),
		"tabs":                        pathological("\t1\t2.00\t", size),
		"invalid UTF-8":               pathological("Invoice \xff\xfe Total: 1.00\n", size),
		"numbered items":              pathological("1. Widget\n   2 x 3.00 = 6.00\n", size),
		"longer than the bound":       pathological("INVOICE\nTotal: 1.00 EUR\n", size+100),
		"header rows of labels":       pathological("Invoice No  Date  Total\nX1  2026-01-01  1.00\n", size),
		"leader dots and currencies":  pathological("Labour ........ £1.00 kr 2 KD 3 $4\n", size),
		"semicolon exports":           pathological("InvoiceNo;Total\n1;2,00\n", size),
		"letter-spaced and foreign":   pathological("I N V O I C E 請求書 小計 Subtotal ¥1\n", size),
		"quantities under references": header + pathological("SKU-1 12 pcs 4.00 48.00 (x) 5 @ 6 = 7\n", size-len(header)),
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkStages(t, doc)
		})
	}
}

func TestRules_DocumentsOverTheBoundAreNotInvoices(t *testing.T) {
	t.Parallel()
	doc := readSample(t, "real-uk-aligned-columns.txt")
	doc += strings.Repeat(" ", MaxDocumentBytes)
	_, err := run(t, doc)
	require.Equal(t, extract.ReasonNotAnInvoice, reasonOf(t, err))
}
