package document_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/document/pdf"
	"github.com/relayops/relayops/extract"
)

var (
	pdfOnce   sync.Once
	pdfReader *pdf.Reader
	pdfErr    error
)

// readers returns the readers with one PDF reader per test binary (PDFium
// compiles once; wazero's cache makes later binaries start fast).
func readers(t testing.TB) *document.Readers {
	t.Helper()
	pdfOnce.Do(func() { pdfReader, pdfErr = pdf.New(context.Background(), pdf.Config{MaxPages: 50}) })
	require.NoError(t, pdfErr)
	return document.New(document.Config{PDF: pdfReader})
}

func file(t testing.TB, path ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"..", "testdata"}, path...)...))
	require.NoError(t, err)
	return b
}

func pdfFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("pdf", "testdata", name))
	require.NoError(t, err)
	return b
}

func reasonOf(t testing.TB, err error) string {
	t.Helper()
	var r *extract.Rejection
	require.True(t, errors.As(err, &r), "want a rejection, got %v", err)
	return r.Reason
}

func TestRead_Text_IsOnePageExactlyAsSubmitted(t *testing.T) {
	t.Parallel()
	doc, err := document.New(document.Config{}).Read(context.Background(), "text/plain", []byte("INVOICE 7\n\nTotal 10.00"), nil)
	require.NoError(t, err)
	require.Len(t, doc.Pages, 1)
	require.Equal(t, "INVOICE 7\n\nTotal 10.00", doc.Text())
	require.Nil(t, doc.EInvoice)
}

func TestRead_XMLEInvoice_IsStructured(t *testing.T) {
	t.Parallel()
	doc, err := document.New(document.Config{}).Read(context.Background(), "application/xml",
		file(t, "einvoice", "en16931", "testfiles", "Invoice-Min_content_with_VAT.xml"), nil)
	require.NoError(t, err)
	require.NotNil(t, doc.EInvoice)
	require.Equal(t, "xml", doc.EInvoiceFrom)
	require.Empty(t, doc.Pages)
}

func TestRead_BadFiles_AreRejectionsWithTheirReason(t *testing.T) {
	t.Parallel()
	r := readers(t)
	hybrid := pdfFile(t, "mustangproject/EN16931_Einfach.pdf")
	for _, tc := range []struct {
		name, mediaType string
		data            []byte
		reason          string
	}{
		{"xml that is no invoice", "application/xml", []byte(`<?xml version="1.0"?><catalog><book/></catalog>`), extract.ReasonNotAnInvoice},
		{"xml with an external entity", "application/xml", []byte(`<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&x;</Invoice>`), "invalid_einvoice:syntax"},
		{"truncated xml", "application/xml", file(t, "einvoice", "en16931", "testfiles", "Invoice-Min_content_with_VAT.xml")[:300], "invalid_einvoice:syntax"},
		{"truncated pdf", "application/pdf", hybrid[:len(hybrid)/3], extract.ReasonUnreadableDocument},
		{"random bytes as pdf", "application/pdf", []byte("%PDF-1.7\n\x00\x01\x02 garbage garbage"), extract.ReasonUnreadableDocument},
		{"text that is not utf-8", "text/plain", []byte{0xff, 0xfe, 0x00}, extract.ReasonUnreadableDocument},
		{"empty", "application/pdf", nil, extract.ReasonUnreadableDocument},
		{"unknown media type", "application/msword", []byte("x"), extract.ReasonUnreadableDocument},
	} {
		_, err := r.Read(context.Background(), tc.mediaType, tc.data, nil)
		require.Equal(t, tc.reason, reasonOf(t, err), tc.name)
	}
}

func TestRead_HybridPDF_CarriesItsXMLAndItsVisibleText(t *testing.T) {
	t.Parallel()
	r := readers(t)
	for _, name := range []string{
		"mustangproject/EN16931_Einfach.pdf",
		"horstoeko-zugferd/pdf_zf_en16931_1.pdf",
		"horstoeko-zugferd/pdf_zf_xrechnung_1.pdf",
	} {
		doc, err := r.Read(context.Background(), "application/pdf", pdfFile(t, name), nil)
		require.NoError(t, err, name)
		require.NotNil(t, doc.EInvoice, name)
		require.Contains(t, []string{"factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml"}, strings.ToLower(doc.EInvoiceFrom), name)
		require.True(t, doc.HasText(), name)
		require.NotEmpty(t, doc.EInvoice.Number, name)
		require.Contains(t, doc.Text(), doc.EInvoice.Number, "%s: the visible page shows the XML's invoice number", name)
	}
}

func TestRead_PlainPDF_IsItsLayoutText(t *testing.T) {
	t.Parallel()
	doc, err := readers(t).Read(context.Background(), "application/pdf", pdfFile(t, "horstoeko-zugferd/pdf_plain.pdf"), nil)
	if err != nil {
		// A PDF without any text is a scan.
		require.Equal(t, extract.ReasonNoTextLayer, reasonOf(t, err))
		return
	}
	require.Nil(t, doc.EInvoice)
	require.True(t, strings.HasSuffix(doc.Text(), "\f"), "pages end with a form feed, as pdftotext writes them")
}

func TestRead_PDFWithoutAReader_IsPermanentWithoutAReason(t *testing.T) {
	t.Parallel()
	_, err := document.New(document.Config{}).Read(context.Background(), "application/pdf", pdfFile(t, "mustangproject/EN16931_Einfach.pdf"), nil)
	require.ErrorIs(t, err, document.ErrNoPDFReader)
	require.ErrorIs(t, err, extract.ErrPermanent)
}

// Every hybrid PDF of the official corpus (testdata/einvoice) is read from
// its embedded XML through the read stage: the attachment is found, the XML
// parses, and the committed fields are the XML's own. The PDFs that embed
// no invoice (plain PDFs, Order-X orders, deliberately broken files) are
// listed apart and must stay as they are.
func TestRead_EveryHybridPDFOfTheCorpus_IsReadFromItsXML(t *testing.T) {
	t.Parallel()
	r := readers(t)
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "einvoice", "*", "*.pdf"))
	require.NoError(t, err)
	more, err := filepath.Glob(filepath.Join("..", "testdata", "einvoice", "*", "*", "*.pdf"))
	require.NoError(t, err)
	paths = append(paths, more...)
	require.GreaterOrEqual(t, len(paths), 40)
	read, noXML := 0, 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		doc, err := r.Read(context.Background(), "application/pdf", data, nil)
		if err != nil || doc.EInvoice == nil {
			noXML++
			continue
		}
		read++
		inv := doc.EInvoice
		out, err := extract.FromEInvoice(inv)
		if err != nil {
			continue // a rule the file breaks: its reason is the einvoice package's to test
		}
		var got extract.Invoice
		require.NoError(t, json.Unmarshal(out, &got), p)
		require.Equal(t, inv.Number, got.InvoiceNumber, "%s: BT-1", p)
		require.Equal(t, inv.IssueDate, got.IssueDate, "%s: BT-2", p)
		require.Equal(t, inv.Currency, got.Currency, "%s: BT-5", p)
		require.True(t, extract.SameDecimal(inv.TaxInclusive, got.Total), "%s: BT-112 %s, committed %s", p, inv.TaxInclusive, got.Total)
	}
	t.Logf("%d hybrid PDFs read from their XML, %d without a readable e-invoice", read, noXML)
	require.GreaterOrEqual(t, read, 27, "the corpus's hybrids are read from their XML")
}
