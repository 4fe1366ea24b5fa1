package extract

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkDecode requires DecodeExtraction to decode b as json.Unmarshal does.
func checkDecode(t *testing.T, b []byte) {
	var want Extraction
	wantErr := json.Unmarshal(b, &want)
	got, gotErr := DecodeExtraction(b)
	require.Equal(t, wantErr == nil, gotErr == nil, "%q", b)
	if wantErr == nil {
		require.Equal(t, want, got, "%q", b)
	}
}

// extractionVariants are b and rewrites of it that the strict reader must
// hand to json.Unmarshal or read the same way.
func extractionVariants(b []byte) [][]byte {
	s := string(b)
	out := [][]byte{b}
	for _, v := range []string{
		" " + s, s + " ", s + "x", strings.Replace(s, ":", ": ", 1), strings.Replace(s, `"documentType"`, `"DocumentType"`, 1),
		strings.Replace(s, `"source":{`, `"source":{"promptTokens":3,`, 1), strings.Replace(s, `}}`, `,"completionTokens":2}}`, 1),
		strings.Replace(s, `"total":"`, `"total":"\u0031`, 1), strings.Replace(s, `"vendor":"`, `"vendor":"\xff`, 1),
		strings.Replace(s, `"lineItems":[{`, `"lineItems":[{},{`, 1), strings.Replace(s, `"taxIncluded":true`, `"taxIncluded":false`, 1),
		strings.Replace(s, `,"currency":`, `,"currency":null,"currency":`, 1), s[:len(s)/2], strings.Replace(s, `"]`, `",""]`, 1),
		strings.Replace(s, `{"documentType":"invoice",`, `{"documentType":"invoice","invoiceNumber":"",`, 1),
	} {
		out = append(out, []byte(v))
	}
	return out
}

// checkDecodeClassification requires DecodeClassification to decode b as
// json.Unmarshal does.
func checkDecodeClassification(t *testing.T, b []byte) {
	var want Classification
	wantErr := json.Unmarshal(b, &want)
	got, gotErr := DecodeClassification(b)
	require.Equal(t, wantErr == nil, gotErr == nil, "%q", b)
	if wantErr == nil {
		require.Equal(t, want, got, "%q", b)
	}
}

func FuzzDecode_MatchesJSONUnmarshal(f *testing.F) {
	for _, s := range []string{
		`{"documentType":"invoice","invoiceNumber":"INV-1","vendor":"Acme","issueDate":"2026-03-03","currency":"EUR",` +
			`"lineItems":[{"description":"Widget","quantity":"2","unitPrice":"1.00","amount":"2.00"},{"amount":"3"}],` +
			`"subtotal":"5.00","charges":[{"kind":"shipping","amount":"1.00"}],"tax":"1.20","taxIncluded":true,` +
			`"total":"7.20","problems":["ambiguous_date"],"source":{"extractor":"rules"}}`,
		`{"documentType":"other","source":{"extractor":"rules","model":"m"}}`, `{}`, `null`, `{"documentType":"x"}`,
		`{"documentType":"invoice","signals":["title_invoice","total_label"]}`, `{"documentType":"deferred"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, v := range extractionVariants(b) {
			checkDecode(t, v)
			checkDecodeClassification(t, v)
		}
	})
}
