package jobs

import (
	"crypto/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSealer_RoundTripsEveryFormat(t *testing.T) {
	t.Parallel()
	key := make([]byte, 32)
	enc, err := newSealer(key)
	require.NoError(t, err)
	plain, err := newSealer(nil)
	require.NoError(t, err)
	k := mustKey(t, "acme", "inv-1", 1)
	random := make([]byte, 2048)
	_, _ = rand.Read(random)
	cases := map[string]struct {
		content string
		tag     byte
	}{
		"short stays plain":                  {"INVOICE 1", blobPlain},
		"text is deflated":                   {strings.Repeat("Line item: paper 10 x 4.50\n", 40), blobDeflated},
		"text under compressMin stays plain": {strings.Repeat("x", compressMin-1), blobPlain},
		"text of compressMin is deflated":    {strings.Repeat("x", compressMin), blobDeflated},
		"incompressible is plain":            {string(random), blobPlain},
		"empty":                              {"", blobPlain},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, s := range []sealer{plain, enc} {
				blob, err := s.seal(k, tc.content)
				require.NoError(t, err)
				want := tc.tag
				if s.aead != nil {
					want = map[byte]byte{blobPlain: blobEncrypted, blobDeflated: blobEncryptedDeflated}[tc.tag]
				}
				require.Equal(t, string(want), string(blob[0]))
				got, err := s.open(k, blob)
				require.NoError(t, err)
				require.Equal(t, tc.content, got)
			}
		})
	}
}

func TestSealer_RejectsCorruptOrForeignBlobs(t *testing.T) {
	t.Parallel()
	enc, _ := newSealer(make([]byte, 32))
	plain, _ := newSealer(nil)
	k := mustKey(t, "acme", "inv-1", 1)
	blob, err := enc.seal(k, strings.Repeat("text ", 100))
	require.NoError(t, err)
	_, err = plain.open(k, blob)
	require.ErrorIs(t, err, errUndecryptable, "an encrypted blob without the key")
	blob[len(blob)-1] ^= 1
	_, err = enc.open(k, blob)
	require.ErrorIs(t, err, errUndecryptable, "a tampered ciphertext")
	_, err = plain.open(k, []byte{blobDeflated, 0xff, 0x00})
	require.ErrorIs(t, err, errUndecryptable, "a corrupt deflate stream")
	_, err = plain.open(k, nil)
	require.ErrorIs(t, err, errUndecryptable)
	_, err = newSealer(make([]byte, 16))
	require.Error(t, err, "AES-256 needs 32 bytes")
}
