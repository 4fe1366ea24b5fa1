package jobs

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/keyring"
)

// testKey is a fixed data key derived from id, so two rings built from the
// same IDs share their keys.
func testKey(id string) keyring.Key {
	secret := make([]byte, keyring.KeySize)
	copy(secret, id)
	secret[31] = byte(len(id))
	return keyring.Key{ID: id, Secret: secret}
}

// testRing is a ring of the test keys ids, the first sealing.
func testRing(t testing.TB, ids ...string) *keyring.Ring {
	t.Helper()
	keys := make([]keyring.Key, len(ids))
	for i, id := range ids {
		keys[i] = testKey(id)
	}
	r, err := keyring.New(keys)
	require.NoError(t, err)
	return r
}

func TestSealer_RoundTripsEveryFormat(t *testing.T) {
	t.Parallel()
	enc, plain := sealer{ring: testRing(t, "k1")}, sealer{}
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
			blob, err := plain.seal(k, tc.content)
			require.NoError(t, err)
			require.Equal(t, string(tc.tag), string(blob[0]), "without a key: the legacy input format")
			got, err := plain.open(k, blob)
			require.NoError(t, err)
			require.Equal(t, tc.content, got)

			blob, err = enc.seal(k, tc.content)
			require.NoError(t, err)
			mode := map[byte]byte{blobPlain: blobEncrypted, blobDeflated: blobEncryptedDeflated}[tc.tag]
			require.Equal(t, []byte{sealedTag, mode}, blob[:2])
			id, _ := keyring.KeyID(blob, 2)
			require.Equal(t, "k1", id, "the blob names its key")
			got, err = enc.open(k, blob)
			require.NoError(t, err)
			require.Equal(t, tc.content, got)

			v, err := enc.sealValue(k, kindResult, []byte(tc.content))
			require.NoError(t, err)
			back, err := enc.openValue(k, kindResult, v)
			require.NoError(t, err)
			require.Equal(t, tc.content, string(back))
		})
	}
}

func TestSealer_WithoutKey_StoresValuesRaw_AndTellsThemFromSealedOnes(t *testing.T) {
	t.Parallel()
	plain := sealer{}
	k := mustKey(t, "acme", "inv-1", 1)
	v, err := plain.sealValue(k, kindResult, []byte(`{"total":"12.00"}`))
	require.NoError(t, err)
	require.Equal(t, `{"total":"12.00"}`, string(v), "byte for byte what earlier releases wrote")
	odd := []byte{sealedTag, 'e', 'x'}
	v, err = plain.sealValue(k, kindReviewNote, odd)
	require.NoError(t, err)
	require.NotEqual(t, odd, v, "a value that looks sealed is wrapped")
	back, err := plain.openValue(k, kindReviewNote, v)
	require.NoError(t, err)
	require.Equal(t, odd, back)
}

// legacySeal is how inputs were encrypted before key rings: one key,
// nonce || ciphertext, "tenant:documentId" as associated data.
func legacySeal(t *testing.T, key []byte, k Key, tag byte, data []byte) []byte {
	t.Helper()
	block, err := aes.NewCipher(key)
	require.NoError(t, err)
	aead, err := cipher.NewGCM(block)
	require.NoError(t, err)
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	return aead.Seal(append([]byte{tag}, nonce...), nonce, data, []byte(k.Tenant+":"+k.DocumentID))
}

func TestSealer_LegacyEncryptedInput_OpensWithItsKeyAnywhereInTheRing(t *testing.T) {
	t.Parallel()
	k := mustKey(t, "acme", "inv-1", 1)
	old := testKey(keyring.LegacyID)
	text := strings.Repeat("Line item: paper 10 x 4.50\n", 40)
	short := legacySeal(t, old.Secret, k, blobEncrypted, []byte("INVOICE 1"))
	long := legacySeal(t, old.Secret, k, blobEncryptedDeflated, deflate([]byte(text)))
	rotated := sealer{ring: testRing(t, "2027-01", keyring.LegacyID)}
	got, err := rotated.open(k, short)
	require.NoError(t, err)
	require.Equal(t, "INVOICE 1", got)
	got, err = rotated.open(k, long)
	require.NoError(t, err)
	require.Equal(t, text, got)
	_, err = sealer{ring: testRing(t, "2027-01")}.open(k, short)
	require.ErrorIs(t, err, ErrUndecryptable, "the old key dropped from the ring")
	_, err = rotated.open(mustKey(t, "acme", "inv-2", 1), short)
	require.ErrorIs(t, err, ErrUndecryptable, "moved to another document")
}

func TestSealer_AfterRotation_OldKeysValuesOpen_NewOnesUseTheNewKey(t *testing.T) {
	t.Parallel()
	k := mustKey(t, "acme", "inv-1", 1)
	before := sealer{ring: testRing(t, "k1")}
	after := sealer{ring: testRing(t, "k2", "k1")}
	oldBlob, err := before.sealValue(k, kindResult, []byte(`{"iban":"SECRET"}`))
	require.NoError(t, err)
	got, err := after.openValue(k, kindResult, oldBlob)
	require.NoError(t, err)
	require.Equal(t, `{"iban":"SECRET"}`, string(got))
	newBlob, err := after.sealValue(k, kindResult, []byte(`{}`))
	require.NoError(t, err)
	id, _ := keyring.KeyID(newBlob, 2)
	require.Equal(t, "k2", id)
	_, err = before.openValue(k, kindResult, newBlob)
	require.ErrorIs(t, err, ErrUndecryptable, "a ring without k2")
	_, err = sealer{ring: testRing(t, "k2")}.openValue(k, kindResult, oldBlob)
	require.ErrorIs(t, err, ErrUndecryptable, "k1 retired too early")
}

func TestSealer_RejectsCorruptForeignOrMovedBlobs(t *testing.T) {
	t.Parallel()
	enc, plain := sealer{ring: testRing(t, "k1")}, sealer{}
	k := mustKey(t, "acme", "inv-1", 1)
	blob, err := enc.seal(k, strings.Repeat("text ", 100))
	require.NoError(t, err)
	_, err = plain.open(k, blob)
	require.ErrorIs(t, err, ErrUndecryptable, "an encrypted blob without the key")
	for name, other := range map[string]Key{
		"another document": mustKey(t, "acme", "inv-2", 1),
		"another tenant":   mustKey(t, "globex", "inv-1", 1),
	} {
		_, err = enc.open(other, blob)
		require.ErrorIs(t, err, ErrUndecryptable, name)
	}
	res, err := enc.sealValue(k, kindResult, []byte(`{"a":1}`))
	require.NoError(t, err)
	_, err = enc.openValue(k, kindCheckpoint("extract"), res)
	require.ErrorIs(t, err, ErrUndecryptable, "a result moved into the checkpoints")
	ck, err := enc.sealValue(k, kindCheckpoint("classify"), []byte(`{"a":1}`))
	require.NoError(t, err)
	_, err = enc.openValue(k, kindCheckpoint("extract"), ck)
	require.ErrorIs(t, err, ErrUndecryptable, "a checkpoint moved to another stage")
	flipped := append([]byte(nil), blob...)
	flipped[1] = blobEncryptedDeflated
	_, err = enc.open(k, flipped)
	require.ErrorIs(t, err, ErrUndecryptable, "a changed mode byte")
	blob[len(blob)-1] ^= 1
	_, err = enc.open(k, blob)
	require.ErrorIs(t, err, ErrUndecryptable, "a tampered ciphertext")
	_, err = plain.open(k, []byte{blobDeflated, 0xff, 0x00})
	require.ErrorIs(t, err, ErrUndecryptable, "a corrupt deflate stream")
	_, err = plain.open(k, nil)
	require.ErrorIs(t, err, ErrUndecryptable)
	_, err = enc.openValue(k, kindResult, []byte{sealedTag})
	require.ErrorIs(t, err, ErrUndecryptable, "a truncated sealed value")
}

// BenchmarkSealValue prints the cost of sealing a result of about 1.5 KiB
// of JSON (deflated, then encrypted) and of opening it.
func BenchmarkSealValue(b *testing.B) {
	s := sealer{ring: testRing(b, "k1")}
	k := mustKey(b, "acme", "inv-1", 1)
	var items strings.Builder
	for i := range 12 {
		fmt.Fprintf(&items, `{"line":%d,"description":"Item %03d paper A4 %dg","quantity":%d,"unitPrice":"%d.%02d","amount":"%d.%02d"},`,
			i+1, i*37%101, 70+i*5, i%7+1, 3+i*11%40, i*13%100, 9+i*29%300, i*17%100)
	}
	result := []byte(`{"invoiceNumber":"INV-2024-0417","issueDate":"2024-04-17","currency":"EUR","vendor":"Northwind GmbH","items":[` +
		strings.TrimSuffix(items.String(), ",") + `],"total":"1234.50","evidence":{"total":"Total due EUR 1,234.50"}}`)
	blob, err := s.sealValue(k, kindResult, result)
	require.NoError(b, err)
	b.Logf("a %d-byte result is stored in %d bytes", len(result), len(blob))
	b.Run("seal", func(b *testing.B) {
		for b.Loop() {
			_, _ = s.sealValue(k, kindResult, result)
		}
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
			_, _ = s.openValue(k, kindResult, blob)
		}
	})
}
