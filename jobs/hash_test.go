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
