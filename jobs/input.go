package jobs

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// A job's input is what the client submitted: text (the `content` of the
// API) or a file (a PDF, an e-invoice XML, …). Both travel through the store
// as one string, the stored content, so every script, quota and retention
// rule treats them alike. Text is stored as it is, as before files existed;
// a file is stored in an envelope that text can never start with (the API
// refuses text containing NUL):
//
//	"\x00relayops-file/1\n" mediaType "\n" filename "\n" data
//
// The media type and the file name are single lines; the data is the file's
// bytes, unchanged.
const fileEnvelopeMagic = "\x00relayops-file/1\n"

// Input is a job's input, decoded from its stored content.
type Input struct {
	// MediaType is "text/plain" for text content, else the file's media
	// type as accepted at submission ("application/pdf", "application/xml").
	MediaType string
	// Filename is the file's name as the client gave it, or empty.
	Filename string
	// Data is the text or the file's bytes.
	Data []byte
	// File reports whether the input was submitted as a file (text
	// submitted as `content` is not a file, whatever its content).
	File bool
}

// MediaTypeText is the media type of text content.
const MediaTypeText = "text/plain"

// TextInput returns the Input of text content.
func TextInput(content string) Input {
	return Input{MediaType: MediaTypeText, Data: []byte(content)}
}

// FileContent returns the stored content of a file: the envelope around
// data. mediaType and filename must not contain a newline (the API checks
// both; a newline here is replaced so the envelope stays decodable).
func FileContent(mediaType, filename string, data []byte) string {
	var b strings.Builder
	b.Grow(len(fileEnvelopeMagic) + len(mediaType) + len(filename) + 2 + len(data))
	b.WriteString(fileEnvelopeMagic)
	b.WriteString(oneLine(mediaType))
	b.WriteByte('\n')
	b.WriteString(oneLine(filename))
	b.WriteByte('\n')
	b.Write(data)
	return b.String()
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// IsFileContent reports whether stored content is a file envelope.
func IsFileContent(content string) bool { return strings.HasPrefix(content, fileEnvelopeMagic) }

// DecodeInput returns the Input that stored content holds. Content that is
// not a well-formed file envelope is text.
func DecodeInput(content string) Input {
	mt, name, data, ok := cutEnvelope(content)
	if !ok {
		return TextInput(content)
	}
	return Input{MediaType: mt, Filename: name, Data: []byte(data), File: true}
}

// cutEnvelope splits a file envelope into its media type, name and data
// (sharing content's memory); ok is false for text.
func cutEnvelope(content string) (mediaType, filename, data string, ok bool) {
	rest, ok := strings.CutPrefix(content, fileEnvelopeMagic)
	if !ok {
		return "", "", "", false
	}
	mediaType, rest, ok1 := strings.Cut(rest, "\n")
	filename, data, ok2 := strings.Cut(rest, "\n")
	return mediaType, filename, data, ok1 && ok2
}

// filePayloadHash is the payload hash of a file envelope: the SHA-256 of the
// canonical business payload {"file":{"mediaType":…,"sha256":…}}. It covers
// the file's bytes (through their SHA-256) and its media type, not the file
// name: the same file sent again under another name is the same payload.
func filePayloadHash(content string) (string, bool) {
	mt, _, data, ok := cutEnvelope(content)
	if !ok {
		return "", false
	}
	sum := sha256.Sum256([]byte(data))
	h := sha256.New()
	h.Write([]byte(`{"file":{"mediaType":`))
	h.Write(mustJSON(mt))
	h.Write([]byte(`,"sha256":"` + hex.EncodeToString(sum[:]) + `"}}`))
	return hex.EncodeToString(h.Sum(nil)), true
}
