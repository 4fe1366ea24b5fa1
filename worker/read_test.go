package worker

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/extract"
)

// An OCR page of three lines whose third line (the total) holds an
// uncertain word, on the second page of the document.
func ocrDoc(lowLines []int) *document.Document {
	return &document.Document{Pages: []document.Page{
		{Number: 1, Text: "cover page\n", Source: document.SourceText},
		{Number: 2, Text: "INVOICE 4471\nWidget 24.00\nTotal 24.00\n", Source: document.SourceOCR, LowConfidenceLines: lowLines},
	}}
}

const ocrResult = `{"documentType":"invoice","invoiceNumber":"4471","total":"24.00","currency":"EUR",` +
	`"evidence":{"invoiceNumber":{"source":"text","page":2,"line":2},"total":{"source":"text","page":2,"line":4}}}`

func TestMarkOCR_FieldsFromOCR_AreMarkedAndFlagged(t *testing.T) {
	t.Parallel()
	out, err := ocrDoc([]int{1}).MarkOCR([]byte(ocrResult)) // line 1 of page 2: the widget line
	require.NoError(t, err)
	var inv extract.Invoice
	require.NoError(t, json.Unmarshal(out, &inv))
	require.Equal(t, extract.EvidenceOCR, inv.Evidence["total"].Source)
	require.False(t, inv.Evidence["total"].LowConfidence)
	require.Contains(t, inv.Flags, extract.FlagOCR)
}

func TestMarkOCR_TotalFromAnUncertainWord_IsRejectedForAPerson(t *testing.T) {
	t.Parallel()
	_, err := ocrDoc([]int{2}).MarkOCR([]byte(ocrResult)) // line 2 of page 2: the total
	var rej *extract.Rejection
	require.True(t, errors.As(err, &rej))
	require.Equal(t, extract.ReasonOCRUncertain, rej.Reason)
	require.Equal(t, []string{"total"}, rej.Fields)
	require.NotNil(t, rej.Extraction, "what was read is kept for the correction form")
	require.Equal(t, "24.00", rej.Extraction.Total)
}

func TestMarkOCR_TextDocument_IsUnchanged(t *testing.T) {
	t.Parallel()
	doc := &document.Document{Pages: []document.Page{{Number: 1, Text: "x\n", Source: document.SourceText}}}
	out, err := doc.MarkOCR([]byte(ocrResult))
	require.NoError(t, err)
	require.JSONEq(t, ocrResult, string(out))
}

// OCR that drops a decimal mark reads 1.021,91 as 102191 on every line, and
// the arithmetic agrees with itself: an amount not written with its
// decimals on its line is a person's to confirm.
func TestMarkOCR_AmountWithoutItsDecimalMark_IsRejectedForAPerson(t *testing.T) {
	t.Parallel()
	doc := &document.Document{Pages: []document.Page{
		{Number: 1, Text: "INVOICE 4471\nWidget 102191\nTotal 102191\n", Source: document.SourceOCR},
	}}
	result := `{"documentType":"invoice","invoiceNumber":"4471","total":"102191.00",` +
		`"evidence":{"invoiceNumber":{"page":1,"line":1},"total":{"page":1,"line":3}}}`
	_, err := doc.MarkOCR([]byte(result))
	var rej *extract.Rejection
	require.True(t, errors.As(err, &rej))
	require.Equal(t, extract.ReasonOCRUncertain, rej.Reason)
	require.Equal(t, []string{"total"}, rej.Fields)

	doc.Pages[0].Text = "INVOICE 4471\nWidget 1.021,91\nTotal 1.021,91\n"
	_, err = doc.MarkOCR([]byte(`{"invoiceNumber":"4471","total":"1021.91","evidence":{"total":{"page":1,"line":3}}}`))
	require.NoError(t, err, "written with its decimal mark, in the document's own grouping")
}
