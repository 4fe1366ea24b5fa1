//go:build rulesdebug

package rules

import (
	"fmt"
	"os"
)

// traceRows and traceGuard print the amount rows and the row the total
// guard rejects on, for `go run -tags rulesdebug` while tuning the rules
// on public documents; the default build has no such output.
func traceRows(rows []amountRow, final int) {
	for i, r := range rows {
		fmt.Fprintf(os.Stderr, "ROW %d line=%d kind=%d %q %q %s final=%v\n", i, r.line, r.kind, r.phrase, r.raw, r.amount, i == final)
	}
}

func traceGuard(r amountRow, t *totals) {
	fmt.Fprintf(os.Stderr, "GUARD %q amount=%s total=%s subtotal=%s tax=%s\n", r.raw, r.amount, t.total, t.subtotal, t.tax)
}
