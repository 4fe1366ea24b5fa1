package extract

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/llmtest"
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

func TestValidateCorrected_JudgesTheCorrectedExtractionWithTheSameValidator(t *testing.T) {
	t.Parallel()
	x := validExtraction()
	x.InvoiceNumber, x.Total = "", "9.99"

	_, err := ValidateCorrected(&x, Corrections{InvoiceNumber: ptr("INV-2")})
	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	require.Equal(t, ReasonTotalMismatch, rej.Reason, "a correction that does not add up is refused")

	inv, err := ValidateCorrected(&x, Corrections{InvoiceNumber: ptr("INV-2"), Total: ptr("1382.40"), DueDate: ptr("2026-04-01")})
	require.NoError(t, err)
	require.Equal(t, "INV-2", inv.InvoiceNumber)
	require.Equal(t, "2026-04-01", inv.DueDate)
	require.Equal(t, EvidenceCorrection, inv.Evidence["total"].Source)
}

func TestValidateCorrected_OverrulesNotAnInvoiceWithTheFields(t *testing.T) {
	t.Parallel()
	_, err := ValidateCorrected(&Extraction{DocumentType: DocReceipt}, Corrections{Total: ptr("10.00")})
	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	require.Equal(t, "missing_field:invoiceNumber", rej.Reason, "an invoice now, missing its fields")

	inv, err := ValidateCorrected(nil, Corrections{
		InvoiceNumber: ptr("R-1"), Vendor: ptr("Corner Shop"), IssueDate: ptr("2026-03-03"),
		Currency: ptr("GBP"), Total: ptr("10.00"),
	})
	require.NoError(t, err)
	require.Equal(t, DocInvoice, inv.DocumentType)
	require.Equal(t, "10.00", inv.Subtotal)
}

// With rules,llm an operator's correction wins over the model, and the
// model is not called when the rules' extraction with the corrections
// validates.
func TestWithCorrections_Chain_CorrectionWinsOverTheModel(t *testing.T) {
	t.Parallel()
	t.Run("rules and corrections validate: no model call", func(t *testing.T) {
		t.Parallel()
		b := setupModel(t, func(llmtest.Request) llmtest.Reply { return llmtest.Completion(answer(t, nil), 1, 1) }, nil)
		x := rulesExtraction()
		x.InvoiceNumber = ""
		first := &stubFirst{validateErr: Reject("missing_field:invoiceNumber"), extraction: x}
		c := WithCorrections(NewChain(first, b.model), Corrections{InvoiceNumber: ptr("4471-A"), DueDate: ptr("2026-04-02")}).(*Chain)

		inv, err := runChain(t, c)

		require.NoError(t, err)
		require.Equal(t, "4471-A", inv.InvoiceNumber)
		require.Equal(t, "2026-04-02", inv.DueDate)
		require.Zero(t, b.srv.Calls())
	})
	t.Run("the model extracts: the correction still wins", func(t *testing.T) {
		t.Parallel()
		b := setupModel(t, func(llmtest.Request) llmtest.Reply {
			return llmtest.Completion(answer(t, func(a map[string]any) { a["invoiceNumber"] = "MODEL-1" }), 1, 1)
		}, nil)
		first := &stubFirst{validateErr: Reject(ReasonAmbiguousDate), extraction: Extraction{DocumentType: DocInvoice, Problems: []string{ReasonAmbiguousDate}}}
		c := WithCorrections(NewChain(first, b.model), Corrections{InvoiceNumber: ptr("OP-7")}).(*Chain)

		inv, err := runChain(t, c)

		require.NoError(t, err)
		require.Equal(t, 1, b.srv.Calls())
		require.Equal(t, "llm", inv.Source.Extractor)
		require.Equal(t, "OP-7", inv.InvoiceNumber, "the operator's correction wins over the model")
		require.Equal(t, EvidenceCorrection, inv.Evidence["invoiceNumber"].Source)
	})
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
