package keyring

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func key(id string, fill byte) Key { return Key{ID: id, Secret: bytes.Repeat([]byte{fill}, KeySize)} }

func TestNew_BadKeys_AreRefusedNamingTheKey(t *testing.T) {
	t.Parallel()
	for name, keys := range map[string][]Key{
		"short secret":   {{ID: "a", Secret: make([]byte, 16)}},
		"id with colon":  {key("a:b", 1)},
		"empty id":       {key("", 1)},
		"id used twice":  {key("a", 1), key("a", 2)},
		"id of 33 chars": {key("abcdefghijklmnopqrstuvwxyz0123456", 1)},
	} {
		_, err := New(keys)
		require.Error(t, err, name)
	}
	r, err := New(nil)
	require.NoError(t, err)
	require.False(t, r.Enabled(), "no keys: no encryption")
	_, err = r.Seal(nil, []byte("x"), nil)
	require.Error(t, err)
}

func TestSeal_FirstKeySeals_EveryKeyOpens_BoundToHeaderAndAD(t *testing.T) {
	t.Parallel()
	old, err := New([]Key{key("old", 1)})
	require.NoError(t, err)
	ring, err := New([]Key{key("new", 2), key("old", 1)})
	require.NoError(t, err)
	require.Equal(t, "new", ring.Primary())

	sealed, err := old.Seal([]byte{9, 9}, []byte("plaintext"), []byte("ad"))
	require.NoError(t, err)
	require.NotContains(t, string(sealed), "plaintext")
	id, ok := KeyID(sealed, 2)
	require.True(t, ok)
	require.Equal(t, "old", id)
	pt, err := ring.Open(sealed, 2, []byte("ad"))
	require.NoError(t, err)
	require.Equal(t, "plaintext", string(pt))

	_, err = ring.Open(sealed, 2, []byte("other ad"))
	require.ErrorIs(t, err, ErrUnopenable, "other associated data")
	changed := bytes.Clone(sealed)
	changed[0] = 8
	_, err = ring.Open(changed, 2, []byte("ad"))
	require.ErrorIs(t, err, ErrUnopenable, "a changed header")
	fresh, err := ring.Seal(nil, []byte("p"), nil)
	require.NoError(t, err)
	_, err = old.Open(fresh, 0, nil)
	require.ErrorIs(t, err, ErrUnopenable, "sealed by a key the ring lacks")
	_, err = ring.Open(sealed[:5], 2, []byte("ad"))
	require.ErrorIs(t, err, ErrUnopenable, "truncated")
}
