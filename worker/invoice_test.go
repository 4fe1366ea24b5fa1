package worker

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runInvoice runs the three stages of InvoiceExtractor like the handler does.
func runInvoice(t *testing.T, content string) (*Invoice, error) {
	t.Helper()
	ctx := context.Background()
	x := InvoiceExtractor{}
	cls, err := x.Classify(ctx, content)
	require.NoError(t, err)
	require.True(t, json.Valid(cls))
	ext, err := x.Extract(ctx, content, cls)
	require.NoError(t, err)
	require.True(t, json.Valid(ext))
	res, err := x.Validate(ctx, ext)
	if err != nil {
		return nil, err
	}
	var inv Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	return &inv, nil
}

func readSample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "invoices", name))
	require.NoError(t, err)
	return string(b)
}

func TestInvoiceExtractor_ValidSamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file                                string
		number, vendor, date, currency, tax string
		total                               string
		items                               int
	}{
		{"valid-basic-eur.txt", "INV-2024-0001", "Northwind Traders GmbH", "2024-03-15", "EUR", "0.00", "124.80", 2},
		{"valid-tax-usd.txt", "2024/0815", "Acme Industrial Supply Inc.", "2024-11-02", "USD", "109.37", "1435.02", 3},
		{"valid-jpy-no-decimals.txt", "TK-7781", "Sakura Office Co., Ltd.", "2025-01-20", "JPY", "0", "20420", 2},
		{"valid-bhd-three-decimals.txt", "BH-000123", "Gulf Marine Services W.L.L.", "2024-02-29", "BHD", "33.750", "396.250", 2},
		{"corrected-total-mismatch.txt", "INV-2024-0077", "Fabrikam Catering Ltd", "2024-06-12", "GBP", "0.00", "407.50", 2},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			inv, err := runInvoice(t, readSample(t, tt.file))
			require.NoError(t, err)
			require.Equal(t, "invoice", inv.DocumentType)
			require.Equal(t, tt.number, inv.InvoiceNumber)
			require.Equal(t, tt.vendor, inv.Vendor)
			require.Equal(t, tt.date, inv.IssueDate)
			require.Equal(t, tt.currency, inv.Currency)
			require.Equal(t, tt.tax, inv.Tax)
			require.Equal(t, tt.total, inv.Total)
			require.Len(t, inv.LineItems, tt.items)
		})
	}
}

func TestInvoiceExtractor_LineItemAmounts(t *testing.T) {
	t.Parallel()
	inv, err := runInvoice(t, readSample(t, "valid-tax-usd.txt"))
	require.NoError(t, err)
	require.Equal(t, LineItem{Description: "Cordless drill", Quantity: 1, UnitPrice: "1249.00", Amount: "1249.00"}, inv.LineItems[2])
	require.Equal(t, LineItem{Description: "Safety gloves, pair", Quantity: 12, UnitPrice: "3.20", Amount: "38.40"}, inv.LineItems[1])
	require.Equal(t, "1325.65", inv.Subtotal)
}

func TestInvoiceExtractor_InvalidSamplesArePermanent(t *testing.T) {
	t.Parallel()
	tests := []struct{ file, reason string }{
		{"invalid-not-an-invoice.txt", "not_an_invoice"},
		{"invalid-missing-currency.txt", "missing_field:currency"},
		{"invalid-total-mismatch.txt", "total_mismatch:total"},
		{"invalid-bad-date.txt", "invalid_field:issueDate"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			_, err := runInvoice(t, readSample(t, tt.file))
			require.Error(t, err)
			require.Equal(t, KindPermanent, Classify(err))
			require.Equal(t, tt.reason, Reason(err))
		})
	}
}

func TestInvoiceExtractor_RejectsIllFormedFields(t *testing.T) {
	t.Parallel()
	base := map[string]string{
		"Invoice Number": "INV-1", "Vendor": "Acme", "Issue Date": "2024-01-31", "Currency": "EUR", "Total": "20.00",
	}
	doc := func(override map[string]string, items ...string) string {
		var b strings.Builder
		b.WriteString("INVOICE\n")
		for _, k := range []string{"Invoice Number", "Vendor", "Issue Date", "Currency", "Total"} {
			v, ok := override[k]
			if !ok {
				v = base[k]
			}
			if v != "-" {
				b.WriteString(k + ": " + v + "\n")
			}
		}
		if items == nil {
			items = []string{"Widget  2 x 10.00"}
		}
		b.WriteString("Items:\n" + strings.Join(items, "\n") + "\n")
		return b.String()
	}
	_, err := runInvoice(t, doc(nil))
	require.NoError(t, err, "the base document is valid")

	tests := []struct {
		name     string
		override map[string]string
		items    []string
		reason   string
	}{
		{"lowercase currency", map[string]string{"Currency": "eur"}, nil, "invalid_field:currency"},
		{"unknown currency", map[string]string{"Currency": "EUX"}, nil, "invalid_field:currency"},
		{"four-letter currency", map[string]string{"Currency": "EURO"}, nil, "invalid_field:currency"},
		{"slashed date", map[string]string{"Issue Date": "31/01/2024"}, nil, "invalid_field:issueDate"},
		{"unpadded date", map[string]string{"Issue Date": "2024-1-31"}, nil, "invalid_field:issueDate"},
		{"invoice number with spaces", map[string]string{"Invoice Number": "INV 1"}, nil, "invalid_field:invoiceNumber"},
		{"missing vendor", map[string]string{"Vendor": "-"}, nil, "missing_field:vendor"},
		{"negative total", map[string]string{"Total": "-20.00"}, nil, "invalid_field:total"},
		{"too many decimals", map[string]string{"Total": "20.001"}, nil, "invalid_field:total"},
		{"no items", nil, []string{""}, "missing_field:lineItems"},
		{"malformed item", nil, []string{"Widget two times ten"}, "invalid_field:lineItems[0]"},
		{"zero quantity", map[string]string{"Total": "0.00"}, []string{"Widget  0 x 10.00"}, "invalid_field:lineItems[0]"},
		{"bad unit price", nil, []string{"Widget  2 x 10,0"}, "invalid_field:lineItems[0]"},
		{"items do not add up", nil, []string{"Widget  2 x 10.01"}, "total_mismatch:total"},
		{"huge amount", map[string]string{"Total": "99999999999999999999.00"}, nil, "invalid_field:total"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runInvoice(t, doc(tt.override, tt.items...))
			require.Error(t, err)
			var rej *RejectError
			require.True(t, errors.As(err, &rej))
			require.Equal(t, tt.reason, Reason(err))
			require.Equal(t, KindPermanent, Classify(err))
		})
	}
}

func TestInvoiceExtractor_RejectionReasonNeverQuotesContent(t *testing.T) {
	t.Parallel()
	const secret = "SECRET-4711"
	_, err := runInvoice(t, "INVOICE\nInvoice Number: INV-1\nVendor: V\nIssue Date: "+secret+"\nCurrency: EUR\nItems:\nA  1 x 1.00\nTotal: 1.00\n")
	require.ErrorContains(t, err, secret, "the detail may quote the document…")
	require.NotContains(t, Reason(err), secret, "…the reason never does")
}

func TestInvoiceExtractor_StagesHonourCancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := InvoiceExtractor{}
	_, err := x.Classify(ctx, "INVOICE")
	require.ErrorIs(t, err, context.Canceled)
	_, err = x.Extract(ctx, "INVOICE", []byte(`{}`))
	require.ErrorIs(t, err, context.Canceled)
	_, err = x.Validate(ctx, []byte(`{}`))
	require.ErrorIs(t, err, context.Canceled)
}

func TestFormatAndParseAmount(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in    string
		minor int
		want  int64
		out   string
	}{
		{"1,234.5", 2, 123450, "1234.50"},
		{"0.05", 2, 5, "0.05"},
		{"7", 0, 7, "7"},
		{"1.2", 3, 1200, "1.200"},
		{"0", 2, 0, "0.00"},
	} {
		n, err := parseAmount(tt.in, tt.minor)
		require.NoError(t, err, tt.in)
		require.Equal(t, tt.want, n, tt.in)
		require.Equal(t, tt.out, formatAmount(n, tt.minor), tt.in)
	}
	for _, bad := range []string{"", "1,23.00", "1.", ".5", "1e3", "12,34", "+1"} {
		_, err := parseAmount(bad, 2)
		require.Error(t, err, bad)
	}
}

// splitLabel replaced this regular expression (for speed); it must agree.
var labelRe = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z .#\t]{0,40}?)\s*:\s*(.*?)\s*$`)

func TestSplitLabel_AgreesWithTheRegexp(t *testing.T) {
	t.Parallel()
	lines := []string{
		"Invoice Number: INV-1", "  Vendor :  Acme  ", "Invoice #: 7", "Invoice No.: 2024/1", "Total:",
		"Items:", "Widget  2 x 10.00", "12:30 meeting", ": nothing", "Payment terms: 30 days: net",
		"Über: x", "A" + strings.Repeat("b", 40) + ": long", "A" + strings.Repeat("b", 41) + ": too long", "", "no colon",
		"Due-Date: 2024-01-01", "\tTab Label\t:\tv",
	}
	for _, f := range []string{"valid-tax-usd.txt", "invalid-not-an-invoice.txt"} {
		lines = append(lines, strings.Split(readSample(t, f), "\n")...)
	}
	for _, l := range lines {
		label, value, ok := splitLabel(l)
		m := labelRe.FindStringSubmatch(l)
		require.Equal(t, m != nil, ok, "%q", l)
		if ok {
			require.Equal(t, m[1], label, "%q", l)
			require.Equal(t, m[2], value, "%q", l)
		}
	}
}
