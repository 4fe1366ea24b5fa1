package jobs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCanonicalHash_KeyOrderAndWhitespaceDoNotMatter(t *testing.T) {
	t.Parallel()
	a, err := CanonicalHash([]byte(`{"content":"x","meta":{"a":1,"b":[1,2]}}`))
	require.NoError(t, err)
	b, err := CanonicalHash([]byte("{ \"meta\" : {\"b\":[1, 2],\n \"a\":1}, \"content\":\"x\" }"))
	require.NoError(t, err)
	require.Equal(t, a, b)
}

func TestCanonicalHash_AnyValueChangeChangesIt(t *testing.T) {
	t.Parallel()
	base, _ := CanonicalHash([]byte(`{"content":"x","n":1}`))
	for _, doc := range []string{`{"content":"y","n":1}`, `{"content":"x","n":2}`, `{"content":"x ","n":1}`,
		`{"content":"x","n":1.0}`, `{"content":"x"}`, `{"content":"x","n":1,"m":null}`} {
		h, err := CanonicalHash([]byte(doc))
		require.NoError(t, err)
		require.NotEqual(t, base, h, doc)
	}
}

func TestCanonicalHash_RejectsTrailingData(t *testing.T) {
	t.Parallel()
	_, err := CanonicalHash([]byte(`{"a":1} {"b":2}`))
	require.Error(t, err)
}

func TestPayloadHash_DependsOnContentOnly(t *testing.T) {
	t.Parallel()
	require.Equal(t, PayloadHash("invoice"), PayloadHash("invoice"))
	require.NotEqual(t, PayloadHash("invoice"), PayloadHash("invoice."))
	require.Len(t, PayloadHash(""), 64)
}

// referencePayloadHash is PayloadHash as stored hashes were computed before
// its direct path: CanonicalHash of the marshalled payload.
func referencePayloadHash(content string) string {
	h, _ := CanonicalHash(mustJSON(map[string]any{"content": content}))
	return h
}

// payloadHashCorpus covers what encoding/json escapes or rewrites: quotes,
// backslashes, control characters, HTML characters, U+2028/U+2029, U+FFFD,
// astral runes and invalid UTF-8.
var payloadHashCorpus = []string{
	"", "invoice", "INVOICE\n\tTotal: 124.80\r\n", `say "hi" \ back\slash`, "\x00\x01\x1f\x7f",
	"<b>Tom & Jerry</b>", "line\u2028sep\u2029para", "\ufffd", "emoji 😀 ü é 日本", "\xff", "a\xc3", "\xed\xa0\x80",
	"ok\xffok\xfe\xfd", "/slashes/ and \u00a0nbsp",
}

func TestPayloadHash_MatchesCanonicalHash(t *testing.T) {
	t.Parallel()
	for _, s := range payloadHashCorpus {
		require.Equal(t, referencePayloadHash(s), PayloadHash(s), "content %q", s)
	}
	// A fixed value: a change of the canonical form would make every stored
	// job conflict with its own resubmission.
	require.Equal(t, "fe5f715ec010e4a481d3d79636ee202c042c8583b237c5dbe95abc2367969188", PayloadHash("invoice"))
}

func FuzzPayloadHash_MatchesCanonicalHash(f *testing.F) {
	for _, s := range payloadHashCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		require.Equal(t, referencePayloadHash(s), PayloadHash(s), "content %q", s)
	})
}
