package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

func TestFormLayout_HoldsEveryCorrectableFieldOnce(t *testing.T) {
	t.Parallel()
	var names []string
	for _, g := range formLayout {
		names = append(names, g.fields...)
	}
	require.ElementsMatch(t, extract.CorrectionFields, names)
	for _, f := range names {
		require.NotEqual(t, f, fieldLabel(f), "%s has a label in words", f)
	}
}

func sentOf(t *testing.T, form url.Values) *sentForm {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	require.NoError(t, r.ParseForm())
	return parseSentForm(r)
}

var readDiscount = read{x: extract.Extraction{DocumentType: extract.DocInvoice, InvoiceNumber: "A-1", Total: "720.00",
	Charges:      []extract.Charge{{Kind: extract.ChargeDiscount, Amount: "-12.00"}},
	LineItems:    []extract.ExtractedLine{{Description: "Cards", Quantity: "1", Amount: "600.00"}},
	TaxBreakdown: []extract.TaxSubtotal{{Rate: "20", TaxAmount: "120.00"}}}}

func init() { readDiscount.values = valuesOf(readDiscount.x) }

// A form that does not hold a part (a list's count, an input) never
// changes it; one that holds it unchanged sends nothing either.
func TestSentForm_OnlyWhatChangedIsSent_AndAbsentPartsAreNoChange(t *testing.T) {
	t.Parallel()
	c := sentOf(t, url.Values{"f-invoiceNumber": {" A-1 "}}).corrections(readDiscount)
	require.True(t, c.Empty(), "%+v", c.Fields())

	c = sentOf(t, url.Values{"charges": {"3"}, "ch-0-kind": {"discount"}, "ch-0-amount": {"-12.00"},
		"ch-1-kind": {"fee"}}).corrections(readDiscount)
	require.True(t, c.Empty(), "a kind chosen on an empty row is no row: %+v", c.Fields())

	c = sentOf(t, url.Values{"charges": {"1"}, "ch-0-kind": {"discount"}, "ch-0-amount": {"-12.00"}, "ch-0-remove": {"1"}}).corrections(readDiscount)
	require.Equal(t, []string{"charges"}, c.Fields())
	require.NotNil(t, c.Charges)
	require.Empty(t, *c.Charges, "the row removed: an empty list removes what was read")

	c = sentOf(t, url.Values{"lines": {"2"}, "li-0-description": {"Cards"}, "li-0-quantity": {"1"}, "li-0-amount": {"600.00"},
		"li-1-description": {"Envelopes"}, "li-1-amount": {"20.00"}, "f-taxIncluded": {"false"},
		"f-accountingTax-currency": {"EUR"}, "f-accountingTax-amount": {"140.10"}}).corrections(readDiscount)
	require.Equal(t, []string{"lineItems", "accountingTax"}, c.Fields())
	require.Len(t, *c.LineItems, 2)
	require.Equal(t, extract.AccountingTax{Currency: "EUR", Amount: "140.10"}, *c.AccountingTax)

	withTax := readDiscount
	withTax.x.AccountingTax = &extract.AccountingTax{Currency: "EUR", Amount: "140.10"}
	withTax.values = valuesOf(withTax.x)
	c = sentOf(t, url.Values{"f-accountingTax-currency": {""}, "f-accountingTax-amount": {""}}).corrections(withTax)
	require.Equal(t, extract.AccountingTax{}, *c.AccountingTax, "emptied: {} removes it")
}

// After a refusal the form shows the rows as sent, a removed one still
// ticked, and names a problem's row as the form shows it.
func TestCorrectionForm_Refused_ShowsRowsAsSentAndNamesTheirRows(t *testing.T) {
	t.Parallel()
	sent := sentOf(t, url.Values{"charges": {"4"}, "ch-0-amount": {"-12.00"}, "ch-0-remove": {"1"},
		"ch-2-amount": {"5.00"}, "ch-2-kind": {"fee"}})
	f := newCorrectionForm(readDiscount, extract.ReasonTotalMismatch, sent,
		[]jobs.FieldError{{Field: "corrections.charges[0].amount", Problem: "is wrong"}})
	charges := f.Field("charges")
	require.Len(t, charges.List.Rows, 2+formExtraRows, "the empty row sent is gone, two new ones offered")
	require.True(t, charges.List.Rows[0].Remove)
	require.Equal(t, "5.00", charges.List.Rows[1].Cells[1].Value)
	require.Equal(t, []string{"charge 2, amount: is wrong"}, charges.Errors)
	require.True(t, slices.ContainsFunc(charges.List.Rows, func(r listRow) bool { return r.New }))
}

func TestAuditChanges_ListsReadAsRows(t *testing.T) {
	t.Parallel()
	got := auditChanges([]byte(`[{"field":"charges","old":"[{\"kind\":\"discount\",\"amount\":\"-12.00\",\"reason\":\"Skonto\"}]","new":""},
		{"field":"total","old":"708.00","new":"720.00"},{"field":"accountingTax","new":"{\"currency\":\"EUR\",\"amount\":\"140.10\"}"}]`))
	require.Equal(t, []extract.FieldChange{{Field: "charges", Old: "discount -12.00 Skonto"},
		{Field: "total", Old: "708.00", New: "720.00"}, {Field: "accountingTax", New: "140.10 EUR"}}, got)
}
