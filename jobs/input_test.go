package jobs

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFileContent_RoundTripsAndHashesBytesAndTypeNotName(t *testing.T) {
	t.Parallel()
	pdf := []byte("%PDF-1.7\n\x00\x01binary\nlines\n")
	c := FileContent("application/pdf", "Rechnung\n42.pdf", pdf)
	in := DecodeInput(c)
	require.True(t, in.File)
	require.Equal(t, Input{MediaType: "application/pdf", Filename: "Rechnung 42.pdf", Data: pdf, File: true}, in,
		"a newline in a name cannot break the envelope")

	require.Equal(t, PayloadHash(c), PayloadHash(FileContent("application/pdf", "other.pdf", pdf)), "the name is not payload")
	require.NotEqual(t, PayloadHash(c), PayloadHash(FileContent("application/xml", "Rechnung 42.pdf", pdf)), "the type is")
	require.NotEqual(t, PayloadHash(c), PayloadHash(FileContent("application/pdf", "x", append(pdf, ' '))), "the bytes are")
	require.NotEqual(t, PayloadHash(c), PayloadHash(string(pdf)), "a file is not the same payload as its bytes sent as text")
}

func TestDecodeInput_TextIsText_EvenWhenItLooksLikeAnEnvelope(t *testing.T) {
	t.Parallel()
	require.Equal(t, TextInput("INVOICE 7"), DecodeInput("INVOICE 7"))
	broken := fileEnvelopeMagic + "application/pdf" // no name line, no data
	require.False(t, DecodeInput(broken).File)
	require.Equal(t, canonicalTextHash(t, "INVOICE 7"), PayloadHash("INVOICE 7"), "text hashes as it always did")
}

func canonicalTextHash(t *testing.T, content string) string {
	t.Helper()
	h, err := CanonicalHash(mustJSON(map[string]string{"content": content}))
	require.NoError(t, err)
	return h
}

func TestSeal_CompressedFileFormats_AreNotDeflatedAgain(t *testing.T) {
	t.Parallel()
	k, err := BuildKey("acme", "inv-1", 1)
	require.NoError(t, err)
	body := make([]byte, 4096) // zeros: deflate would shrink them to almost nothing
	pdf := FileContent("application/pdf", "", body)
	blob, err := sealer{}.seal(k, pdf)
	require.NoError(t, err)
	require.Equal(t, byte(blobPlain), blob[0], "a PDF is stored as it is")
	back, err := sealer{}.open(k, blob)
	require.NoError(t, err)
	require.Equal(t, pdf, back)

	xml := FileContent("application/xml", "", body)
	blob, err = sealer{}.seal(k, xml)
	require.NoError(t, err)
	require.Equal(t, byte(blobDeflated), blob[0], "XML still deflates")
}
