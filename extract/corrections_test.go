package extract

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func ptr[T any](v T) *T { return &v }

func TestValidateExtraction_RejectionKeepsTheExtractionAndNamesItsFields(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		mutate func(*Extraction)
		reason string
		fields []string
	}{
		{"missing number", func(x *Extraction) { x.InvoiceNumber = "" }, "missing_field:invoiceNumber", []string{"invoiceNumber"}},
		{"bad total", func(x *Extraction) { x.Total = "1382.41" }, ReasonTotalMismatch, []string{"total", "subtotal", "tax"}},
		{"lines", func(x *Extraction) { x.Subtotal = "1.00" }, ReasonSubtotalMismatch, []string{"subtotal", "lineItems"}},
		{"problem", func(x *Extraction) { x.Problems = []string{ReasonAmbiguousDate} }, ReasonAmbiguousDate, []string{"issueDate"}},
		{"due date before issue", func(x *Extraction) { x.DueDate = "2026-01-01" }, "invalid_field:dueDate", []string{"dueDate"}},
	} {
		x := validExtraction()
		tt.mutate(&x)
		_, err := ValidateExtraction(x)
		var rej *Rejection
		require.ErrorAs(t, err, &rej, tt.name)
		require.Equal(t, tt.reason, rej.Reason, tt.name)
		require.Equal(t, tt.fields, rej.Fields, tt.name)
		require.Equal(t, &x, rej.Extraction, tt.name)
		require.NotContains(t, rej.Error(), "Acme", "the error never quotes the document")
	}
}

func TestCorrections_Apply_OverridesFieldsDropsTheirProblemsAndMarksEvidence(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.InvoiceNumber, x.Total = "", "1.00"
	x.Problems = []string{ReasonAmbiguousDate, "unparseable_amount:tax"}
	x.Evidence = map[string]Evidence{"vendor": {Source: EvidenceText, Line: 1}}
	c := Corrections{InvoiceNumber: ptr(" INV-9 "), Total: ptr("1382.40"), IssueDate: ptr("2026-03-04")}

	got := c.Apply(x)

	require.Equal(t, "INV-9", got.InvoiceNumber)
	require.Equal(t, "1382.40", got.Total)
	require.Equal(t, []string{"unparseable_amount:tax"}, got.Problems)
	require.Equal(t, EvidenceCorrection, got.Evidence["total"].Source)
	require.Equal(t, EvidenceText, got.Evidence["vendor"].Source)
	require.Empty(t, x.Evidence["total"], "the base is not changed")
	require.Equal(t, []string{"invoiceNumber", "issueDate", "total"}, c.Fields())
	require.Equal(t, []FieldChange{
		{Field: "invoiceNumber", Old: "", New: "INV-9"},
		{Field: "issueDate", Old: "2026-03-03", New: "2026-03-04"},
		{Field: "total", Old: "1.00", New: "1382.40"},
	}, c.Changes(x))
}

func judge(t *testing.T, base *Extraction, c Corrections) (*Invoice, error) {
	t.Helper()
	v, err := JudgeCorrections(base, c, Policy{})
	return v.Invoice, err
}

func TestJudgeCorrections_JudgesTheCorrectedExtractionWithTheSameValidator(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.InvoiceNumber, x.Total = "", "9.99"

	_, err := judge(t, &x, Corrections{InvoiceNumber: ptr("INV-2")})
	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	require.Equal(t, ReasonTotalMismatch, rej.Reason, "a correction that does not add up is refused")

	inv, err := judge(t, &x, Corrections{InvoiceNumber: ptr("INV-2"), Total: ptr("1382.40"), DueDate: ptr("2026-04-01")})
	require.NoError(t, err)
	require.Equal(t, "INV-2", inv.InvoiceNumber)
	require.Equal(t, "2026-04-01", inv.DueDate)
	require.Equal(t, EvidenceCorrection, inv.Evidence["total"].Source)
	require.Equal(t, StatusCorrected, inv.Status["total"])
}

func TestJudgeCorrections_OverrulesNotAnInvoiceWithTheFields(t *testing.T) {
	t.Parallel()
	_, err := judge(t, &Extraction{DocumentType: DocReceipt}, Corrections{Total: ptr("10.00")})
	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	require.Equal(t, "missing_field:invoiceNumber", rej.Reason, "an invoice now, missing its fields")

	inv, err := judge(t, nil, Corrections{
		InvoiceNumber: ptr("R-1"), Vendor: ptr("Corner Shop"), IssueDate: ptr("2026-03-03"),
		Currency: ptr("GBP"), Total: ptr("10.00"),
	})
	require.NoError(t, err)
	require.Equal(t, DocInvoice, inv.DocumentType)
	require.Equal(t, "10.00", inv.Subtotal)
}

// A clerk types the true values of an invoice whose misread discount stays
// in what the rules kept: the clerk's values win, the discount they
// contradict is removed (and audited), and the judge names the removal.
func TestJudgeCorrections_PersonsValuesWin_MisreadChargeIsRemoved(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.Charges = []Charge{{Kind: ChargeDiscount, Amount: "12.00"}}
	x.Total, x.Subtotal, x.Tax = "1370.40", "", "182.40"
	x.LineItems = nil
	c := Corrections{Subtotal: ptr("1200.00"), Tax: ptr("182.40"), Total: ptr("1382.40")}

	v, err := JudgeCorrections(&x, c, Policy{})

	require.NoError(t, err)
	require.Equal(t, []string{"charges"}, v.Dropped)
	require.Empty(t, v.Invoice.Charges)
	require.Equal(t, []FieldChange{
		{Field: "subtotal", Old: "", New: "1200.00"},
		{Field: "charges", Old: `[{"kind":"discount","amount":"12.00"}]`, New: ""},
		{Field: "tax", Old: "182.40", New: "182.40"},
		{Field: "total", Old: "1370.40", New: "1382.40"},
	}, v.Effective.Changes(x), "the removal is a change the audit records")
	again, err := JudgeCorrections(&x, v.Effective, Policy{})
	require.NoError(t, err)
	require.Equal(t, v.Invoice, again.Invoice, "the effective corrections judge alone to the same invoice")
}

// What nobody looked at is never dropped to make a sum pass: a correction
// of the number alone leaves the failing total a person's to fix.
func TestJudgeCorrections_UncorrectedSumsAreNeverDropped(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.LineItems, x.Subtotal = nil, "1200.00"
	x.Charges = []Charge{{Kind: ChargeShipping, Amount: "5.00"}}
	_, err := judge(t, &x, Corrections{InvoiceNumber: ptr("INV-3")})
	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	require.Equal(t, ReasonTotalMismatch, rej.Reason)
	require.Contains(t, rej.Fields, "charges")
}

func TestJudgeCorrections_EveryJudgedValueCanBeCorrected(t *testing.T) {
	t.Parallel()
	c := Corrections{
		InvoiceNumber: ptr("#RE_2024 17"), Vendor: ptr("Müller & Söhne GmbH"), IssueDate: ptr("2024-05-02"),
		Currency: ptr("GBP"), Subtotal: ptr("100.00"),
		Charges:      &[]Charge{{Kind: ChargeShipping, Amount: "10.00", Reason: "Fracht"}, {Kind: ChargeDiscount, Amount: "5.00", Reason: "Rabatt 5 %"}},
		Tax:          ptr("21.00"),
		TaxBreakdown: &[]TaxSubtotal{{Rate: "20", TaxableAmount: "105.00", TaxAmount: "21.00", Category: "S"}},
		Total:        ptr("126.00"), PaidAmount: ptr("26.00"), Rounding: ptr("0.01"), AmountDue: ptr("100.01"),
		AccountingTax: &AccountingTax{Currency: "EUR", Amount: "24.57"},
	}
	inv, err := judge(t, nil, c)
	require.NoError(t, err)
	require.Equal(t, "#RE_2024 17", inv.InvoiceNumber, "the number exactly as printed")
	require.Equal(t, []Charge{{Kind: ChargeShipping, Amount: "10.00", Reason: "Fracht"}, {Kind: ChargeDiscount, Amount: "-5.00", Reason: "Rabatt 5 %"}}, inv.Charges)
	require.Equal(t, "126.00", inv.Total, "BT-111 in EUR is never added")
	require.Equal(t, "100.01", inv.AmountDue)
	require.Equal(t, &AccountingTax{Currency: "EUR", Amount: "24.57"}, inv.AccountingTax)
	require.Empty(t, inv.Flags)

	bad := c
	bad.AmountDue = ptr("100.00")
	_, err = judge(t, nil, bad)
	requireReason(t, err, ReasonAmountDueMismatch)
	bad = c
	bad.TaxBreakdown = &[]TaxSubtotal{{Rate: "20", TaxableAmount: "105.00", TaxAmount: "20.00"}}
	_, err = judge(t, nil, bad)
	requireReason(t, err, ReasonTaxMismatch)
	bad = c
	bad.TaxIncluded = ptr(true)
	_, err = judge(t, nil, bad)
	requireReason(t, err, ReasonTotalMismatch)
}

func TestJudgeCorrections_NegativeAmountsOfACorrectiveInvoice_BookedAsACredit(t *testing.T) {
	t.Parallel()
	fields := Corrections{
		InvoiceNumber: ptr("RK-2023-0042"), Vendor: ptr("Stadtwerke Beispiel"), IssueDate: ptr("2023-02-01"),
		Currency: ptr("EUR"), Subtotal: ptr("-7.39"), Tax: ptr("-1.40"), Total: ptr("-8.79"), PrecedingInvoice: ptr("R-2023-0007"),
	}
	inv, err := judge(t, nil, fields)
	require.NoError(t, err)
	require.Equal(t, DocCreditNote, inv.DocumentType, "an invoice that takes money back is a credit note")
	require.Equal(t, DirectionCredit, inv.Direction)
	require.Equal(t, "-8.79", inv.Total, "amounts as printed")
	require.Equal(t, "-8.79", inv.SignedTotal)
	require.Equal(t, "R-2023-0007", inv.PrecedingInvoice)

	fields.DocumentType = ptr(DocCorrectiveInvoice)
	inv, err = judge(t, nil, fields)
	require.NoError(t, err)
	require.Equal(t, DocCorrectiveInvoice, inv.DocumentType)
	require.Equal(t, DirectionCredit, inv.Direction)

	credit := fields
	credit.DocumentType, credit.Subtotal, credit.Tax, credit.Total = ptr(DocCreditNote), ptr("7.39"), ptr("1.40"), ptr("8.79")
	inv, err = judge(t, nil, credit)
	require.NoError(t, err)
	require.Equal(t, "8.79", inv.Total)
	require.Equal(t, "-8.79", inv.SignedTotal, "a credit note printed positive takes 8.79 back")

	_, err = JudgeCorrections(nil, credit, Policy{Accept: []string{DocInvoice}})
	requireReason(t, err, ReasonNotAccepted)
}

func requireReason(t *testing.T, err error, reason string) {
	t.Helper()
	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	require.Equal(t, reason, rej.Reason)
}

func TestFailedChecks_ListsEveryFieldAnOperatorMustFix_FirstTheValidatorsVerdict(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.InvoiceNumber, x.Vendor, x.Total = "", "", "1.00"
	require.Equal(t, []FailedCheck{
		{Field: "invoiceNumber", Check: "missing_field:invoiceNumber"},
		{Field: "vendor", Check: "missing_field:vendor"},
		{Field: "total", Check: ReasonTotalMismatch}, {Field: "subtotal", Check: ReasonTotalMismatch}, {Field: "tax", Check: ReasonTotalMismatch},
	}, FailedChecks(x))

	y := validExtraction()
	y.Currency = ""
	y.Problems = []string{ReasonAmbiguousDate}
	require.Equal(t, []FailedCheck{{Field: "issueDate", Check: ReasonAmbiguousDate}, {Field: "currency", Check: "missing_field:currency"}},
		FailedChecks(y), "a missing currency ends the list: amounts cannot be judged without it")
	require.Empty(t, FailedChecks(validExtraction()))

	_, err := ValidateExtraction(x)
	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	require.Len(t, rej.Kept().Failed, 5, "what a rejection keeps names every failing field")
}

// A total corrected over lines that were read and no subtotal stated is
// checked against the lines: dropping them would let a typo pass as a
// subtotal computed from it.
func TestJudgeCorrections_LinesWithoutASubtotalAreNeverDroppedForATotal(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.Subtotal, x.Tax, x.Total = "", "", "1200.00" // lines sum to 1152.00
	_, err := judge(t, &x, Corrections{Total: ptr("1252.00")})
	requireReason(t, err, ReasonTotalMismatch)
	inv, err := judge(t, &x, Corrections{Total: ptr("1152.00")})
	require.NoError(t, err)
	require.Len(t, inv.LineItems, 2)
}

// The rules record a total_mismatch themselves when two stated totals
// disagree ("Invoice total 720.00 … Total payable 705.60"): a person's
// correction of the total settles it, and the validator judges their value.
func TestJudgeCorrections_AProblemTheExtractorRecorded_IsAnsweredByACorrectionOfItsFields(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.Problems = []string{ReasonTotalMismatch}
	_, err := judge(t, &x, Corrections{InvoiceNumber: ptr("INV-9")})
	requireReason(t, err, ReasonTotalMismatch)
	inv, err := judge(t, &x, Corrections{Total: ptr("1382.40"), Charges: &[]Charge{}})
	require.NoError(t, err)
	require.Equal(t, "1382.40", inv.Total)
	_, err = judge(t, &x, Corrections{Total: ptr("1300.00")})
	requireReason(t, err, ReasonTotalMismatch)
}

// A machine-read line that fails its own check (quantity × price is not
// its amount) is overruled when the person states the subtotal it feeds.
func TestJudgeCorrections_AMisreadLineIsOverruledByTheSubtotalAPersonGives(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.LineItems[0].Amount = "13.00" // 3 × 4.00
	_, err := judge(t, &x, Corrections{InvoiceNumber: ptr("INV-2")})
	requireReason(t, err, ReasonLineMismatch)
	v, err := JudgeCorrections(&x, Corrections{Subtotal: ptr("1152.00")}, Policy{})
	require.NoError(t, err)
	require.Equal(t, []string{"lineItems"}, v.Dropped)
	require.Empty(t, v.Invoice.LineItems)
}
