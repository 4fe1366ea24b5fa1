package api

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

// referenceParseObject is the strict decoder as it was before parseObject
// took its one-pass path (checkSyntax's token walk, encoding/json into a map,
// then the escape scan): the specification the fast path is held to.
func referenceParseObject(data []byte) (*object, error) {
	if !utf8.Valid(data) {
		return nil, invalid(jobs.FieldError{Field: "body", Problem: "must be UTF-8"})
	}
	if problem := checkSyntax(data); problem != "" {
		return nil, invalid(jobs.FieldError{Field: "body", Problem: problem})
	}
	var members map[string]json.RawMessage
	if bytes.TrimSpace(data)[0] != '{' || json.Unmarshal(data, &members) != nil {
		return nil, invalid(jobs.FieldError{Field: "body", Problem: "must be a JSON object"})
	}
	if fields := referenceCheckEscapes(data); len(fields) > 0 {
		return nil, invalid(fields...)
	}
	return &object{members: members}, nil
}

func referenceCheckEscapes(data []byte) []jobs.FieldError {
	var out []jobs.FieldError
	seen := map[string]bool{}
	depth, expectKey := 0, false
	member := "body"
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			depth++
			expectKey = data[i] == '{' && depth == 1
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			end, problem := scanString(data, i)
			isKey := depth == 1 && expectKey
			if isKey {
				expectKey, member = false, "body"
				if problem == "" {
					_ = json.Unmarshal(data[i:end+1], &member)
					member = truncate(member, 64)
				}
			}
			field := member
			if isKey {
				field = "body"
			}
			if problem != "" && !seen[field] {
				seen[field] = true
				out = append(out, jobs.FieldError{Field: field, Problem: problem})
			}
			i = end
		}
	}
	return out
}

// decoderCorpus is every catalogued bad submission body plus bodies aimed at
// the one-pass walk: whitespace everywhere, escaped and nested duplicate keys,
// many keys, values of every type, trailing data.
func decoderCorpus() [][]byte {
	var out [][]byte
	for _, tt := range badInputs() {
		out = append(out, []byte(tt.c.body))
	}
	many := []byte(`{`)
	for i := range 40 {
		if i > 0 {
			many = append(many, ',')
		}
		many = append(many, `"k`...)
		many = append(many, byte('a'+i%26), byte('a'+i/26))
		many = append(many, `":1`...)
	}
	manyDup := append(bytes.Clone(many), `,"kab":2}`...)
	many = append(many, '}')
	for _, s := range []string{
		``, ` `, `{}`, ` { } `, "\t{\r\n\"a\" :\n 1 ,\"b\":\"x\"\n}\n", `[]`, `1`, `"s"`, `null`, `{} {}`, `{}x`, `{"a":1}{`,
		`{"documentId":"inv-1","operationVersion":1,"content":"x"}`,
		`{"documentId" : "inv-1" , "operationVersion" : 1 , "content" : "a\"b\\c\u00e9\ud83d\ude00" }`,
		`{"a":1,"\u0061":2}`, `{"a":{"b":1,"b":2}}`, `{"a":[{"b":1},{"b":1}],"c":[{"d":1,"d":1}]}`,
		`[{"a":1,"a":2}]`, `{"a":{"x":1},"b":{"x":1}}`, `{"a":1,"b":{"a":1}}`,
		`{"\ud800":1,"\udbff":2}`, `{"\u0000":1}`, `{"a":"\u0000","b":"\udc00","a2":"\ud800x"}`,
		`{"a":[1,2,{"b":"\ud800"}],"c":{"d":"\u0000"}}`, `{"a":true,"b":false,"c":null,"d":-1.5e3,"e":[],"f":{}}`,
		`{"content":"x","content":"y"}`, `{"a":1,}`, `{"a" 1}`, `{"a":01}`, "{\"a\":\"\x01\"}", `{"a":"\x"}`,
		string(many), string(manyDup), `{"` + string(bytes.Repeat([]byte("k"), 100)) + `":1,"` + string(bytes.Repeat([]byte("k"), 100)) + `":2}`,
		"{\"a\":1}\xff", "{\"\xc3\xa9\":1,\"\\u00e9\":2}",
	} {
		out = append(out, []byte(s))
	}
	return out
}

func requireSameDecoding(t *testing.T, body []byte) {
	t.Helper()
	want, wantErr := referenceParseObject(body)
	got, gotErr := parseObject(body)
	require.Equal(t, wantErr, gotErr, "body %q", body)
	if wantErr == nil {
		require.Equal(t, want.members, got.members, "body %q", body)
	}
}

func TestParseObject_DecodesEveryBodyAsTheReferenceDecoder(t *testing.T) {
	t.Parallel()
	for _, body := range decoderCorpus() {
		requireSameDecoding(t, body)
	}
}

// FuzzParseObject_MatchesReference holds the one-pass decoder to the
// reference on arbitrary bodies: the same members, or the same refusal
// naming the same fields with the same problems.
func FuzzParseObject_MatchesReference(f *testing.F) {
	for _, body := range decoderCorpus() {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		requireSameDecoding(t, body)
	})
}

// BenchmarkParseObject compares the one-pass decoder with the reference on a
// submission as scripts/benchsubmit sends it.
func BenchmarkParseObject(b *testing.B) {
	body := []byte(`{"documentId":"bench-m-12345","operationVersion":1,"content":"INVOICE\n\nInvoice Number: INV-2024-0001\nVendor: Northwind Traders GmbH\nIssue Date: 2024-03-15\nCurrency: EUR\n\nItems:\nCopy paper A4, 500 sheets  10 x 4.50\nToner cartridge black  2 x 39.90\n\nTotal: 124.80\n"}`)
	for name, parse := range map[string]func([]byte) (*object, error){"onepass": parseObject, "reference": referenceParseObject} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := parse(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
