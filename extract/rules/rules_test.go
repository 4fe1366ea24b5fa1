package rules

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// run runs the three stages of Rules like the worker does and returns the
// invoice or the rejection.
func run(t *testing.T, content string) (*extract.Invoice, error) {
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
		return nil, err
	}
	var inv extract.Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	return &inv, nil
}

func readSample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "invoices", name))
	require.NoError(t, err)
	return string(b)
}

// reasonOf returns the reason code of a rejection.
func reasonOf(t *testing.T, err error) string {
	t.Helper()
	var rej *extract.Rejection
	require.True(t, errors.As(err, &rej), "want a *Rejection, got %v", err)
	require.ErrorIs(t, err, extract.ErrPermanent)
	require.True(t, extract.ValidReason(rej.Reason), "reason %q is not one of Reasons()", rej.Reason)
	return rej.Reason
}

// want is the expected outcome of a sample invoice.
type want struct {
	number, vendor, date, currency string
	subtotal, tax, total           string
	items                          int
}

func checkInvoice(t *testing.T, w want, inv *extract.Invoice) {
	t.Helper()
	require.Equal(t, extract.DocInvoice, inv.DocumentType)
	require.Equal(t, w.number, inv.InvoiceNumber, "invoice number")
	require.Equal(t, w.vendor, inv.Vendor, "vendor")
	require.Equal(t, w.date, inv.IssueDate, "issue date")
	require.Equal(t, w.currency, inv.Currency, "currency")
	require.Equal(t, w.subtotal, inv.Subtotal, "subtotal")
	require.Equal(t, w.tax, inv.Tax, "tax")
	require.Equal(t, w.total, inv.Total, "total")
	require.Len(t, inv.LineItems, w.items, "line items")
	require.Equal(t, ExtractorRules, inv.Source.Extractor)
}

func TestRules_ValidSamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want want
	}{
		{"valid-basic-eur.txt", want{"INV-2024-0001", "Northwind Traders GmbH", "2024-03-15", "EUR", "124.80", "0.00", "124.80", 2}},
		{"valid-tax-usd.txt", want{"2024/0815", "Acme Industrial Supply Inc.", "2024-11-02", "USD", "1325.65", "109.37", "1435.02", 3}},
		{"valid-jpy-no-decimals.txt", want{"TK-7781", "Sakura Office Co., Ltd.", "2025-01-20", "JPY", "20420", "0", "20420", 2}},
		{"valid-bhd-three-decimals.txt", want{"BH-000123", "Gulf Marine Services W.L.L.", "2024-02-29", "BHD", "362.500", "33.750", "396.250", 2}},
		{"corrected-total-mismatch.txt", want{"INV-2024-0077", "Fabrikam Catering Ltd", "2024-06-12", "GBP", "407.50", "0.00", "407.50", 2}},
		{"real-uk-aligned-columns.txt", want{"50-1187", "Harbour & Finch Office Supplies Ltd", "2026-03-03", "GBP", "760.33", "152.07", "912.40", 3}},
		{"real-eu-continental.txt", want{"RE-2026-00311", "Brandt & Söhne Maschinenbau GmbH", "2026-02-09", "EUR", "3227.00", "613.13", "3840.13", 3}},
		{"real-fr-space-thousands.txt", want{"FA-2026-0042", "ATELIER LUMIÈRE SARL", "2026-02-09", "EUR", "5586.00", "1117.20", "6703.20", 3}},
		{"real-us-sales-tax.txt", want{"10482", "PINE RIDGE HARDWARE CO.", "2026-03-04", "USD", "862.00", "71.12", "933.12", 3}},
		{"real-markdown.txt", want{"INV-2026-014", "Northwind Cloud Services B.V.", "2026-02-28", "EUR", "1827.00", "383.67", "2210.67", 3}},
		{"real-email-prose.txt", want{"BL-2026-031", "Brightline Studio", "2026-02-27", "USD", "1830.00", "0.00", "1830.00", 3}},
		{"real-email-total-only.txt", want{"2026/017", "Weber Translations", "2026-03-02", "EUR", "2208.00", "0.00", "2208.00", 0}},
		{"real-header-row.txt", want{"KL-77120", "KESTREL LOGISTICS LTD", "2026-02-14", "GBP", "240.00", "48.00", "288.00", 3}},
		{"real-two-column-aligned.txt", want{"BMS-30917", "Bluefin Marine Supplies Pty Ltd", "2026-01-21", "AUD", "1270.00", "127.00", "1397.00", 3}},
		{"real-numbered-multiline.txt", want{"MSC-2026-09", "Meridian Software Consulting", "2026-03-02", "GBP", "7542.50", "1508.50", "9051.00", 3}},
		{"real-jpy-consumption-tax.txt", want{"KD-2026-118", "株式会社 Kumo Design", "2026-02-20", "JPY", "162000", "16200", "178200", 3}},
		{"real-kwd-three-decimals.txt", want{"ANE-5521", "Al Noor Engineering W.L.L.", "2026-02-18", "KWD", "273.125", "0.000", "273.125", 3}},
		{"real-title-inline-items.txt", want{"4471", "Oakhurst Bakery Supplies Ltd", "2026-02-09", "GBP", "207.20", "0.00", "207.20", 3}},
		{"real-pipe-shipping-discount.txt", want{"GG-10234", "Greenleaf Garden Co. Pty Ltd", "2026-02-05", "AUD", "691.90", "66.77", "734.48", 3}},
		{"real-swiss-apostrophe.txt", want{"AT-2026-0208", "Alpenblick Treuhand AG", "2026-03-03", "CHF", "4995.00", "404.60", "5399.60", 3}},
		{"real-vat-included.txt", want{"2026-0177", "Café Rösterei Hansen e.K.", "2026-02-27", "EUR", "340.40", "29.43", "340.40", 3}},
		{"real-balance-after-deposit.txt", want{"SEP-0419", "Summit Event Productions LLC", "2026-02-16", "USD", "10250.00", "0.00", "10250.00", 3}},
		{"real-tab-separated.txt", want{"CPS-8812", "Contoso Print Services Ltd", "2026-01-30", "GBP", "235.00", "47.00", "282.00", 3}},
		{"real-freelancer-day-rate.txt", want{"2026-11", "Tom Becker", "2026-11-02", "GBP", "3662.50", "0.00", "3662.50", 2}},
		{"real-au-gst-inclusive.txt", want{"CC-2026-1184", "Coastal Cleaning Co Pty Ltd", "2026-10-14", "AUD", "1330.00", "120.91", "1330.00", 3}},
		{"real-ca-gst-pst.txt", want{"NSI-40871", "NORTHSHORE IT SOLUTIONS INC.", "2026-11-12", "CAD", "1200.00", "144.00", "1344.00", 3}},
		{"real-se-moms.txt", want{"24117", "Fjällbacka Trävaror AB", "2026-11-18", "SEK", "13520.00", "3380.00", "16900.00", 3}},
		{"real-wrapped-description.txt", want{"HP/7731", "HOLLOWAY & PARTNERS LLP", "2026-11-23", "GBP", "1360.00", "272.00", "1632.00", 3}},
		{"real-discount-in-table.txt", want{"GOF-55102", "Greenway Office Furniture Ltd", "2026-11-06", "GBP", "3484.20", "696.84", "4181.04", 5}},
		{"real-paid-deposit-balance.txt", want{"BRK-2026-318", "BLUE RIDGE KITCHENS LLC", "2026-11-20", "USD", "12122.00", "848.54", "12970.54", 3}},
		{"real-utility-bill.txt", want{"BSE-7704412", "BRIGHTSPARK ENERGY LIMITED", "2026-12-05", "GBP", "112.04", "5.60", "117.64", 2}},
		{"real-saas-subscription-period.txt", want{"LL-8F3C21-0007", "Loopline Software, Inc.", "2026-12-01", "USD", "308.00", "0.00", "308.00", 2}},
		{"real-webshop-order-number.txt", want{"RE-2026-118842", "PIXELWERK Shop GmbH", "2026-11-27", "EUR", "264.73", "42.27", "264.73", 4}},
		{"real-slashed-number.txt", want{"INV/2026/0042", "SOFTHAUS SP. Z O.O.", "2026-11-30", "EUR", "5280.00", "0.00", "5280.00", 2}},
		{"real-code-after-amount.txt", want{"2026110037", "Kvetná Print s.r.o.", "2026-11-19", "EUR", "2645.60", "529.12", "3174.72", 3}},
		{"real-email-leading-counts.txt", want{"MR-2026-087", "Ruiz Surveying S.L.", "2026-11-27", "EUR", "1680.00", "352.80", "2032.80", 3}},
		{"real-contractor-sections.txt", want{"7781", "MILLER ROOFING & GUTTERS, INC.", "2026-11-24", "USD", "1747.00", "51.26", "1798.26", 4}},
		{"real-saas-usd-from-canada.txt", want{"A1B2C3D4-0019", "Fathom Analytics Inc.", "2026-11-28", "USD", "49.00", "0.00", "49.00", 1}},
		{"real-nz-gst-content.txt", want{"KWS-0098", "Kauri Web Studio Limited", "2026-11-30", "NZD", "465.00", "60.65", "465.00", 3}},
		{"real-hotel-folio.txt", want{"HH-558120", "THE HARBOUR HOTEL", "2026-11-28", "EUR", "553.50", "65.83", "553.50", 4}},
		{"real-omr-three-decimals.txt", want{"ABT/INV/26/0731", "Al Batinah Trading LLC", "2026-11-30", "OMR", "211.550", "10.578", "222.128", 3}},
		{"real-florist-deposit.txt", want{"0412", "Bloom & Wild Events", "2026-12-01", "GBP", "836.00", "0.00", "836.00", 4}},
		{"real-commercial-invoice.txt", want{"CI-26-0456", "Sakura Office Co., Ltd.", "2026-11-28", "USD", "1320.00", "0.00", "1320.00", 2}},
		{"real-carried-forward.txt", want{"4471", "Oakhurst Bakery Supplies Ltd", "2026-02-09", "GBP", "262.00", "0.00", "262.00", 3}},
		{"real-fr-whole-euros-spaced.txt", want{"SC-2026-0311", "STUDIO CALADE SARL", "2026-11-24", "EUR", "5250.00", "1050.00", "6300.00", 3}},
		{"real-freelancer-amount-label.txt", want{"PN-2026-044", "Priya Nair Illustration", "2026-11-18", "GBP", "1450.00", "0.00", "1450.00", 0}},
		{"real-za-rand-glued.txt", want{"KSI-26-0917", "KAROO SOLAR INSTALLATIONS (PTY) LTD", "2026-11-25", "ZAR", "12826.09", "1923.91", "14750.00", 3}},
		{"real-za-rand-comma.txt", want{"UB-2611-07", "Umhlanga Bookkeeping CC", "2026-11-27", "ZAR", "1523.53", "228.53", "1752.06", 2}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			inv, err := run(t, readSample(t, tt.file))
			require.NoError(t, err)
			checkInvoice(t, tt.want, inv)
		})
	}
}

func TestRules_LineItemsOfTheIssueExample(t *testing.T) {
	t.Parallel()
	inv, err := run(t, readSample(t, "real-uk-aligned-columns.txt"))
	require.NoError(t, err)
	require.Equal(t, []extract.LineItem{
		{Description: "Ergonomic office chair", Quantity: "3", UnitPrice: "149.99", Amount: "449.97"},
		{Description: "Monitor arm, dual", Quantity: "2", UnitPrice: "89.50", Amount: "179.00"},
		{Description: "Laptop stand, aluminium", Quantity: "8", UnitPrice: "16.42", Amount: "131.36"},
	}, inv.LineItems)
}

func TestRules_InvalidSamplesAreRejectedWithTheirReason(t *testing.T) {
	t.Parallel()
	tests := []struct{ file, reason string }{
		{"invalid-not-an-invoice.txt", extract.ReasonNotAnInvoice},
		{"invalid-missing-currency.txt", "missing_field:currency"},
		{"invalid-total-mismatch.txt", extract.ReasonTotalMismatch},
		{"invalid-bad-date.txt", "invalid_field:issueDate"},
		{"reject-ambiguous-date.txt", extract.ReasonAmbiguousDate},
		{"reject-line-mismatch.txt", extract.ReasonLineMismatch},
		{"reject-subtotal-mismatch.txt", extract.ReasonSubtotalMismatch},
		{"reject-total-mismatch.txt", extract.ReasonTotalMismatch},
		{"reject-unparseable-total.txt", "unparseable_amount:total"},
		{"reject-missing-number.txt", "missing_field:invoiceNumber"},
		{"reject-due-term-no-total.txt", "missing_field:total"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			_, err := run(t, readSample(t, tt.file))
			require.Error(t, err)
			require.Equal(t, tt.reason, reasonOf(t, err))
		})
	}
}

func TestRules_NonInvoicesAreRejectedNotGuessed(t *testing.T) {
	t.Parallel()
	tests := []struct{ file, docType string }{
		{"other-till-receipt.txt", extract.DocReceipt},
		{"other-card-slip.txt", extract.DocReceipt},
		{"other-purchase-order.txt", extract.DocPurchaseOrder},
		{"other-quote.txt", extract.DocQuote},
		{"other-statement.txt", extract.DocStatement},
		{"other-memo.txt", extract.DocOther},
		{"other-email-question.txt", extract.DocOther},
		{"other-empty.txt", extract.DocOther},
		{"invalid-not-an-invoice.txt", extract.DocOther},
		{"other-subscription-receipt.txt", extract.DocReceipt},
		// A proforma invoice asks for payment before a tax invoice is
		// issued: it is an offer, not an invoice.
		{"other-proforma-invoice.txt", extract.DocQuote},
		{"other-order-confirmation.txt", extract.DocOther},
		{"other-approval-request.txt", extract.DocOther},
		{"other-payment-confirmation.txt", extract.DocOther},
		{"other-booking-confirmation.txt", extract.DocOther},
		{"other-shipping-confirmation.txt", extract.DocOther},
		{"other-open-invoices-list.txt", extract.DocOther},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			content := readSample(t, tt.file)
			cls, err := Rules{}.Classify(context.Background(), content)
			require.NoError(t, err)
			var c extract.Classification
			require.NoError(t, json.Unmarshal(cls, &c))
			require.Equal(t, tt.docType, c.DocumentType)
			_, err = run(t, content)
			require.Equal(t, extract.ReasonNotAnInvoice, reasonOf(t, err))
		})
	}
}

func TestRules_CheckpointsNoStage(t *testing.T) {
	t.Parallel()
	for _, s := range extract.Stages {
		require.False(t, Rules{}.Checkpointed(s), s)
	}
}

func TestRules_StagesHonourCancelledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := Rules{}
	_, err := r.Classify(ctx, "INVOICE")
	require.ErrorIs(t, err, context.Canceled)
	_, err = r.Extract(ctx, "INVOICE", []byte(`{}`))
	require.ErrorIs(t, err, context.Canceled)
	_, err = r.Validate(ctx, []byte(`{}`))
	require.ErrorIs(t, err, context.Canceled)
}

func TestRules_UndecodableStageInputIsPermanent(t *testing.T) {
	t.Parallel()
	r := Rules{}
	_, err := r.Extract(context.Background(), "INVOICE", []byte(`not json`))
	require.ErrorIs(t, err, extract.ErrPermanent)
	_, err = r.Validate(context.Background(), []byte(`{"documentType":`))
	require.ErrorIs(t, err, extract.ErrPermanent)
}
