package extract

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// validExtraction is a small extraction that validates; tests change one
// thing at a time.
func validExtraction() Extraction {
	return Extraction{
		DocumentType: DocInvoice, InvoiceNumber: "INV-1", Vendor: "Acme Ltd", IssueDate: "2026-03-03",
		Currency: "EUR",
		LineItems: []ExtractedLine{
			{Description: "Widget", Quantity: "3", UnitPrice: "4.00", Amount: "12.00"},
			{Description: "Consulting", Quantity: "9.5", UnitPrice: "120", Amount: "1140"},
		},
		Subtotal: "1152.00", Tax: "230.40", Total: "1382.40",
		Source: Source{Extractor: "rules"},
	}
}

func TestValidateExtraction_AcceptsAValidInvoiceInMinorUnits(t *testing.T) {
	t.Parallel()
	inv, err := ValidateExtraction(validExtraction())
	require.NoError(t, err)
	require.Equal(t, &Invoice{
		DocumentType: DocInvoice, InvoiceNumber: "INV-1", Vendor: "Acme Ltd", IssueDate: "2026-03-03",
		Currency: "EUR",
		LineItems: []LineItem{
			{Description: "Widget", Quantity: "3", UnitPrice: "4.00", Amount: "12.00"},
			{Description: "Consulting", Quantity: "9.5", UnitPrice: "120.00", Amount: "1140.00"},
		},
		Subtotal: "1152.00", Tax: "230.40", Total: "1382.40", Source: Source{Extractor: "rules"},
		Direction: DirectionDebit, SignedTotal: "1382.40",
		Status: map[string]string{
			"invoiceNumber": StatusUnchecked, "vendor": StatusUnchecked, "issueDate": StatusUnchecked,
			"currency": StatusUnchecked, "lineItems": StatusChecked, "subtotal": StatusChecked,
			"tax": StatusChecked, "total": StatusChecked,
		},
	}, inv)
}

func TestValidateExtraction_CurrencyPrecision(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		currency, price, total, wantTotal string
	}{
		{"JPY", "3980", "3980", "3980"},
		{"BHD", "18.750", "18.75", "18.750"},
		{"KWD", "1.5", "1.500", "1.500"},
		{"OMR", "2", "2", "2.000"},
		{"GBP", "912.4", "912.40", "912.40"},
	} {
		x := validExtraction()
		x.Currency, x.Subtotal, x.Tax, x.Total = tt.currency, "", "", tt.total
		x.LineItems = []ExtractedLine{{Description: "Item", Quantity: "1", UnitPrice: tt.price}}
		inv, err := ValidateExtraction(x)
		require.NoError(t, err, tt.currency)
		require.Equal(t, tt.wantTotal, inv.Total, tt.currency)
	}
}

func TestValidateExtraction_LineWithinHalfAMinorUnitOrTheRoundedPrice(t *testing.T) {
	t.Parallel()
	// 0.333 × 10.00 = 3.33; 2.5 × 0.125 = 0.3125: 0.31 is a quarter cent
	// away, 0.32 three quarters
	for _, tt := range []struct {
		qty, price, amount string
		ok                 bool
	}{
		{"0.333", "10.00", "3.33", true},
		{"2.5", "0.125", "0.31", true},
		{"2.5", "0.125", "0.32", false},
		{"2.5", "0.125", "0.33", false},
		{"3", "4.00", "12.02", false},
		// a unit price shown rounded to cents: 10.00 / 3 = 3.333…, 12.01 / 3 = 4.0033…
		{"3", "3.33", "10.00", true},
		{"3", "4.00", "12.01", true},
		{"3", "3.3", "10.00", false}, // shown with fewer decimals than the currency's: exact
		{"100", "0.79", "79.60", false},
		{"1", "-10.00", "-10.00", true},
	} {
		x := validExtraction()
		x.LineItems = []ExtractedLine{{Description: "Item", Quantity: tt.qty, UnitPrice: tt.price, Amount: tt.amount}}
		x.Subtotal, x.Tax, x.Total = "", "", tt.amount
		if strings.HasPrefix(tt.amount, "-") {
			x.LineItems = append(x.LineItems, ExtractedLine{Description: "Base", Amount: "20.00"})
			x.Total = "10.00"
		}
		_, err := ValidateExtraction(x)
		if tt.ok {
			require.NoError(t, err, "%+v", tt)
		} else {
			require.Equal(t, ReasonLineMismatch, reasonOf(t, err), "%+v", tt)
		}
	}
}

func TestValidateExtraction_FillsWhatALineImplies(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.LineItems = []ExtractedLine{
		{Description: "Amount only", Amount: "100.00"},
		{Description: "Qty and price", Quantity: "2", UnitPrice: "2.505"},
		{Description: "Qty and amount", Quantity: "4", Amount: "10.00"},
		{Description: "Hours and amount", Quantity: "1.5", Amount: "10.00"},
		{Description: "Fractional hours that divide", Quantity: "2.5", Amount: "120.00"},
	}
	x.Subtotal, x.Tax, x.Total = "", "", "245.01"
	inv, err := ValidateExtraction(x)
	require.NoError(t, err)
	require.Equal(t, []LineItem{
		{Description: "Amount only", Quantity: "1", UnitPrice: "100.00", Amount: "100.00"},
		{Description: "Qty and price", Quantity: "2", UnitPrice: "2.505", Amount: "5.01"},
		{Description: "Qty and amount", Quantity: "4", UnitPrice: "2.50", Amount: "10.00"},
		{Description: "Hours and amount", Quantity: "1.5", UnitPrice: "", Amount: "10.00"},
		{Description: "Fractional hours that divide", Quantity: "2.5", UnitPrice: "48.00", Amount: "120.00"},
	}, inv.LineItems)
	require.Equal(t, "245.01", inv.Subtotal)
}

func TestValidateExtraction_Sums(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*Extraction)
		reason string
	}{
		{"lines differ from the subtotal", func(x *Extraction) { x.Subtotal = "1152.01" }, ReasonSubtotalMismatch},
		{"subtotal + tax is not the total", func(x *Extraction) { x.Total = "1382.41" }, ReasonTotalMismatch},
		{"tax left out of the total", func(x *Extraction) { x.Total = "1152.00" }, ReasonTotalMismatch},
		{"no subtotal: the lines count", func(x *Extraction) { x.Subtotal = ""; x.Total = "1382.39" }, ReasonTotalMismatch},
		{"charges count", func(x *Extraction) {
			x.Charges = []Charge{{Kind: ChargeShipping, Amount: "10.00"}}
		}, ReasonTotalMismatch},
		{"no lines and a total below the tax", func(x *Extraction) {
			x.LineItems, x.Subtotal, x.Total = nil, "", "100.00"
		}, ReasonTotalMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := validExtraction()
			tt.change(&x)
			_, err := ValidateExtraction(x)
			require.Equal(t, tt.reason, reasonOf(t, err))
		})
	}
}

func TestValidateExtraction_ChargesAndIncludedTax(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.Charges = []Charge{{Kind: ChargeShipping, Amount: "10.00"}, {Kind: ChargeDiscount, Amount: "2.40"}}
	x.Total = "1390.00"
	inv, err := ValidateExtraction(x)
	require.NoError(t, err)
	require.Equal(t, []Charge{{Kind: ChargeShipping, Amount: "10.00"}, {Kind: ChargeDiscount, Amount: "-2.40"}}, inv.Charges)

	x = validExtraction()
	x.TaxIncluded, x.Tax, x.Total = true, "192.00", "1152.00"
	inv, err = ValidateExtraction(x)
	require.NoError(t, err)
	require.Equal(t, "192.00", inv.Tax)
	require.True(t, inv.TaxIncluded)
}

func TestValidateExtraction_TotalWithoutLinesIsAccepted(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.LineItems, x.Subtotal = nil, ""
	inv, err := ValidateExtraction(x)
	require.NoError(t, err)
	require.Equal(t, "1152.00", inv.Subtotal, "what the total leaves after tax")
	require.Empty(t, inv.LineItems)
	require.NotNil(t, inv.LineItems, "an empty list, not null")
}

func TestValidateExtraction_RejectsWithTheFirstReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*Extraction)
		reason string
	}{
		{"not an invoice", func(x *Extraction) { x.DocumentType = DocReceipt }, ReasonNotAnInvoice},
		{"deferred is not an invoice", func(x *Extraction) { x.DocumentType = DocDeferred }, ReasonNotAnInvoice},
		{"a problem comes first", func(x *Extraction) {
			x.Problems = []string{ReasonAmbiguousDate}
			x.IssueDate = ""
		}, ReasonAmbiguousDate},
		{"an unknown problem", func(x *Extraction) { x.Problems = []string{"total is 0.00, trust me"} }, ReasonModelOutputInvalid},
		{"missing number", func(x *Extraction) { x.InvoiceNumber = " " }, "missing_field:invoiceNumber"},
		{"missing vendor", func(x *Extraction) { x.Vendor = "" }, "missing_field:vendor"},
		{"missing date", func(x *Extraction) { x.IssueDate = "" }, "missing_field:issueDate"},
		{"missing currency", func(x *Extraction) { x.Currency = "" }, "missing_field:currency"},
		{"missing total", func(x *Extraction) { x.Total = "" }, "missing_field:total"},
		{"number with a bidi override", func(x *Extraction) { x.InvoiceNumber = "INV\u202e1" }, "invalid_field:invoiceNumber"},
		{"number of punctuation only", func(x *Extraction) { x.InvoiceNumber = "#-/" }, "invalid_field:invoiceNumber"},
		{"number with a space at its end", func(x *Extraction) { x.InvoiceNumber = "INV 1 " }, "invalid_field:invoiceNumber"},
		{"vendor with a control character", func(x *Extraction) { x.Vendor = "Acme\x00" }, "invalid_field:vendor"},
		{"vendor too long", func(x *Extraction) { x.Vendor = strings.Repeat("a", 201) }, "invalid_field:vendor"},
		{"impossible date", func(x *Extraction) { x.IssueDate = "2023-02-30" }, "invalid_field:issueDate"},
		{"unpadded date", func(x *Extraction) { x.IssueDate = "2026-3-3" }, "invalid_field:issueDate"},
		{"lower-case currency", func(x *Extraction) { x.Currency = "eur" }, "invalid_field:currency"},
		{"unknown currency", func(x *Extraction) { x.Currency = "EUX" }, "invalid_field:currency"},
		{"fund code", func(x *Extraction) { x.Currency = "XAU" }, "invalid_field:currency"},
		{"total not canonical", func(x *Extraction) { x.Total = "1,382.40" }, "unparseable_amount:total"},
		{"tax not canonical", func(x *Extraction) { x.Tax = "20%" }, "unparseable_amount:tax"},
		{"subtotal not canonical", func(x *Extraction) { x.Subtotal = "1.152,00" }, "unparseable_amount:subtotal"},
		{"negative subtotal of an invoice", func(x *Extraction) { x.Subtotal = "-1152.00" }, "invalid_field:subtotal"},
		{"negative total of an invoice: a credit, whose sum must still hold", func(x *Extraction) { x.Total = "-1382.40" }, ReasonTotalMismatch},
		{"too precise total", func(x *Extraction) { x.Total = "1382.401" }, "invalid_field:total"},
		{"huge total", func(x *Extraction) { x.Total = "99999999999999999999.00" }, "invalid_field:total"},
		{"line without numbers", func(x *Extraction) {
			x.LineItems[0] = ExtractedLine{Description: "Widget"}
		}, "invalid_field:lineItems"},
		{"zero quantity", func(x *Extraction) { x.LineItems[0].Quantity = "0" }, "invalid_field:lineItems"},
		{"quantity not a number", func(x *Extraction) { x.LineItems[0].Quantity = "three" }, "unparseable_amount:lineItems"},
		{"line amount not canonical", func(x *Extraction) { x.LineItems[0].Amount = "12,00" }, "unparseable_amount:lineItems"},
		{"unknown charge kind", func(x *Extraction) {
			x.Charges = []Charge{{Kind: "tip", Amount: "1.00"}}
		}, "invalid_field:charges"},
		{"unparseable charge", func(x *Extraction) {
			x.Charges = []Charge{{Kind: ChargeFee, Amount: "one"}}
		}, "unparseable_amount:charges"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			x := validExtraction()
			tt.change(&x)
			_, err := ValidateExtraction(x)
			require.Error(t, err)
			require.Equal(t, tt.reason, reasonOf(t, err))
			require.NotContains(t, err.Error(), "trust me", "never the document's text")
		})
	}
}

func TestValidateExtraction_NeverOverflows(t *testing.T) {
	t.Parallel()
	big := "9999999999999.99" // just under the bound of 10^15 minor units
	x := validExtraction()
	x.Subtotal, x.Tax = "", ""
	x.LineItems = nil
	for range 200 {
		x.LineItems = append(x.LineItems, ExtractedLine{Description: "Big", Amount: big})
	}
	x.Total = big
	_, err := ValidateExtraction(x)
	require.Equal(t, "invalid_field:lineItems", reasonOf(t, err), "the sum of the lines passes the bound")

	x.LineItems = []ExtractedLine{{Description: "Big", Quantity: "1000000", UnitPrice: big}}
	_, err = ValidateExtraction(x)
	require.Equal(t, "invalid_field:lineItems", reasonOf(t, err), "quantity × price passes the bound")

	x.LineItems = []ExtractedLine{{Description: "Big", Quantity: "999999999.999999", UnitPrice: "9999999999999.99", Amount: big}}
	_, err = ValidateExtraction(x)
	require.Error(t, err)
	reasonOf(t, err)
}

func TestReasons_AreASmallFixedSetOfFieldsAndBareCodes(t *testing.T) {
	t.Parallel()
	rs := Reasons()
	require.Len(t, rs, len(bareReasons)+len(fieldReasons)*len(Fields)+len(EInvoiceRules))
	for _, r := range rs {
		require.Regexp(t, `^[a-z_]+(:([a-zA-Z]+|(BR|ZF1)-[A-Z0-9-]+))?$`, r)
	}
	require.Contains(t, rs, "missing_field:charges")
}

// reasonOf requires err to be a permanent *Rejection with a known reason
// and returns the reason.
func reasonOf(t *testing.T, err error) string {
	t.Helper()
	var rej *Rejection
	require.True(t, errors.As(err, &rej), "want a *Rejection, got %v", err)
	require.ErrorIs(t, err, ErrPermanent)
	require.True(t, ValidReason(rej.Reason), "reason %q is not one of Reasons()", rej.Reason)
	return rej.Reason
}
