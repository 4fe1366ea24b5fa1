package einvoice

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

const ublOpen = `<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"` +
	` xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"` +
	` xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2">`

// An external entity is never resolved: not a file, not a URL. The
// DOCTYPE that declares it is refused before any of it is read, and the
// error says nothing of the file.
func TestParse_ExternalEntity_IsRefusedAndNeverFetched(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, "FETCHED")
	}))
	t.Cleanup(srv.Close)
	for name, decl := range map[string]string{
		"file":             `<!ENTITY xxe SYSTEM "file:///etc/passwd">`,
		"http":             `<!ENTITY xxe SYSTEM "` + srv.URL + `/xxe">`,
		"parameter entity": `<!ENTITY % p SYSTEM "` + srv.URL + `/dtd"> %p;`,
	} {
		doc := `<?xml version="1.0"?><!DOCTYPE Invoice [` + decl + `]>` + ublOpen + `<cbc:ID>&xxe;</cbc:ID></Invoice>`
		inv, err := Parse([]byte(doc))
		require.ErrorIs(t, err, ErrDoctype, name)
		require.Nil(t, inv)
		require.NotContains(t, err.Error(), "root:", name)
		_, ok := Sniff([]byte(doc))
		require.False(t, ok, name)
	}
	// A DOCTYPE pointing at an external DTD is refused the same way.
	_, err := Parse([]byte(`<?xml version="1.0"?><!DOCTYPE Invoice SYSTEM "` + srv.URL + `/ext.dtd">` + ublOpen + `</Invoice>`))
	require.ErrorIs(t, err, ErrDoctype)
	require.Zero(t, hits.Load(), "an entity was fetched")
}

// Entity expansion (billion laughs) and any internal entity are refused
// with the DOCTYPE, at once.
func TestParse_EntityExpansion_IsRefused(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">`)
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, `<!ENTITY lol%d "%s">`, i, strings.Repeat(fmt.Sprintf("&lol%d;", i-1), 10))
	}
	b.WriteString(`]>` + ublOpen + `<cbc:ID>&lol9;</cbc:ID></Invoice>`)
	billion := strings.Replace(b.String(), "&lol0;", "&lol;", -1)
	_, err := Parse([]byte(billion))
	require.ErrorIs(t, err, ErrDoctype)

	internal := `<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY name "Acme">]>` + ublOpen + `<cbc:ID>&name;</cbc:ID></Invoice>`
	_, err = Parse([]byte(internal))
	require.ErrorIs(t, err, ErrDoctype)
}

// Without a DOCTYPE an entity reference is undefined: malformed XML, never
// an empty or guessed value.
func TestParse_UndefinedEntity_IsASyntaxError(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte(ublOpen + `<cbc:ID>&xxe;</cbc:ID></Invoice>`))
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 1, se.Line)
}

// Deep nesting stops at MaxDepth; a document of too many elements at
// MaxElements; one past MaxBytes is not read at all. Each is refused
// with its error.
func TestParse_HostileShapes_AreRefusedWithinBounds(t *testing.T) {
	t.Parallel()
	deep := ublOpen + strings.Repeat("<cac:X>", 100_000) + strings.Repeat("</cac:X>", 100_000) + "</Invoice>"
	_, err := Parse([]byte(deep))
	require.ErrorIs(t, err, ErrTooDeep)

	wide := ublOpen + strings.Repeat("<cbc:Note/>", MaxElements+1) + "</Invoice>"
	_, err = Parse([]byte(wide))
	require.ErrorIs(t, err, ErrTooLarge)

	var attrs strings.Builder
	for i := range MaxElements + 1 {
		fmt.Fprintf(&attrs, ` a%d="1"`, i)
	}
	_, err = Parse([]byte(ublOpen + "<cbc:ID" + attrs.String() + "/></Invoice>"))
	require.ErrorIs(t, err, ErrTooLarge, "attributes count against the bound")

	huge := make([]byte, MaxBytes+1)
	copy(huge, ublOpen)
	_, err = Parse(huge)
	require.ErrorIs(t, err, ErrTooLarge)
	_, ok := Sniff(huge)
	require.False(t, ok)
}

// A malformed document's error names the line, never its text.
func TestParse_SyntaxError_DoesNotQuoteTheDocument(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		ublOpen + "<cbc:ID>SECRET-4711</cbc:Wrong></Invoice>",
		ublOpen + "<cbc:ID>SECRET-4711",
		"SECRET-4711",
		"",
		`<?xml version="1.0" encoding="EBCDIC-SECRET"?>` + ublOpen + "</Invoice>",
	} {
		_, err := Parse([]byte(doc))
		var se *SyntaxError
		require.ErrorAs(t, err, &se, doc)
		require.NotContains(t, err.Error(), "SECRET", doc)
	}
}

// Other XML is not an e-invoice; a UBL document of another type (an
// order) neither.
func TestParse_OtherXML_IsNotAnEInvoice(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`<html><body>invoice</body></html>`,
		`<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"/>`,
		`<Invoice/>`, // the right name in no namespace
		`<rsm:CrossIndustryInvoice xmlns:rsm="urn:example:other"/>`,
	} {
		_, err := Parse([]byte(doc))
		require.ErrorIs(t, err, ErrNotEInvoice, doc)
		_, ok := Sniff([]byte(doc))
		require.False(t, ok, doc)
	}
}

// Sniff tells the syntax from the root, whatever comes before it (a BOM,
// the prolog, comments) and whatever prefix the document binds.
func TestSniff_TellsTheSyntaxFromTheRoot(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]Syntax{
		"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- c -->" + ublOpen + "</Invoice>":                         UBLInvoice,
		`<ubl:CreditNote xmlns:ubl="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"/>`:          UBLCreditNote,
		`<x:CrossIndustryInvoice xmlns:x="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"/>`: CII,
		`<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"/>`:              ZUGFeRD1,
	} {
		got, ok := Sniff([]byte(doc))
		require.True(t, ok, doc)
		require.Equal(t, want, got)
	}
	for _, doc := range []string{"%PDF-1.7\n", "plain text", "", "<a>", `<?xml version="1.0"?>`} {
		_, ok := Sniff([]byte(doc))
		require.False(t, ok, doc)
	}
}

// A document declared ISO-8859-1 is read as such.
func TestParse_Latin1Document_IsDecoded(t *testing.T) {
	t.Parallel()
	doc := []byte(`<?xml version="1.0" encoding="ISO-8859-1"?>` + ublOpen +
		"<cac:AccountingSupplierParty><cac:Party><cac:PartyLegalEntity><cbc:RegistrationName>M\xfcller GmbH" +
		"</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty></Invoice>")
	inv, err := Parse(doc)
	require.NoError(t, err)
	require.Equal(t, "Müller GmbH", inv.SellerName)
}

// Parsing a hostile document costs memory in proportion to the bounds,
// not to what it would expand to: the figures are printed, not asserted.
func BenchmarkParse_Refusals(b *testing.B) {
	docs := map[string][]byte{
		"billion_laughs": []byte(`<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>` + ublOpen + "&b;</Invoice>"),
		"deep":           []byte(ublOpen + strings.Repeat("<cac:X>", 100_000) + strings.Repeat("</cac:X>", 100_000) + "</Invoice>"),
		"wide":           []byte(ublOpen + strings.Repeat("<cbc:Note/>", MaxElements+1) + "</Invoice>"),
		"huge":           bytes.Repeat([]byte(" "), MaxBytes+1),
	}
	for name, doc := range docs {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, err := Parse(doc); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}
