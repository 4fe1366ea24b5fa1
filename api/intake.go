package api

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/jobs"
)

// Document intake: besides text (`content`), POST /v1/jobs takes the document
// as the supplier sent it, a file, either as a JSON member
// `file: {mediaType, data (base64), filename?}` or as the part named `file`
// of a multipart/form-data body. The file is checked here only as far as is
// cheap and certain — its media type is one relayops reads, its first bytes
// agree with that type, it fits the size and page limits — and is then stored
// as the job's input (jobs.FileContent). Everything else (a corrupt or
// encrypted PDF, XML that is no invoice) is the read stage's to judge, with a
// reason code on the job.

// Media types of files relayops reads. text/xml is stored as
// application/xml: the payload hash covers the media type, and the same XML
// sent under either name is the same document.
const (
	MediaTypePDF  = "application/pdf"
	MediaTypeXML  = "application/xml"
	MediaTypeText = jobs.MediaTypeText
	MediaTypePNG  = "image/png"
	MediaTypeJPEG = "image/jpeg"
	MediaTypeTIFF = "image/tiff"
)

// acceptedMediaTypes is what a 415 lists.
const acceptedMediaTypes = "application/pdf, application/xml, text/xml, text/plain, image/png, image/jpeg, image/tiff"

// maxFilenameBytes bounds a file's name.
const maxFilenameBytes = 255

// maxFormFieldBytes bounds each non-file field of a multipart submission.
const maxFormFieldBytes = 4 << 10

// DocumentPages is what the API needs of a PDF reader: counting pages at
// intake (the page limit answers 413 before anything is stored) and
// rendering a page for the console. The PDF reader of package document/pdf
// satisfies it.
type DocumentPages interface {
	PageCount(ctx context.Context, data []byte) (int, error)
	Render(ctx context.Context, data []byte, page, maxPixels int) ([]byte, error)
}

// submitBodyLimit is the largest JSON submission: a file of MaxFileBytes in
// base64 (4 bytes per 3) with room for the other members. Text content stays
// bounded by BodyLimit (checked once the body is read).
func (s *Server) submitBodyLimit() int64 {
	return max(s.cfg.BodyLimit, (s.cfg.MaxFileBytes+2)/3*4+64<<10)
}

// fileMember takes the JSON member `file`: {mediaType, data, filename?}.
// Problems are recorded on o, naming the member ("file.data").
func (s *Server) fileMember(o *object) (*submittedFile, bool) {
	raw, ok := o.take("file", false)
	if !ok {
		return nil, false
	}
	inner, err := parseObject(raw)
	if err != nil {
		o.fail("file", "must be an object with mediaType, data and optionally filename")
		return nil, true
	}
	f := &submittedFile{field: "file", typeField: "file.mediaType"}
	f.mediaType, _ = inner.str("mediaType", true)
	data, hasData := inner.str("data", true)
	f.filename, _ = inner.str("filename", false)
	for _, fe := range inner.fields {
		o.fail("file."+fe.Field, fe.Problem)
	}
	for k := range inner.members {
		o.fail("file."+truncate(k, 64), "is not a known field")
	}
	if hasData {
		b, err := base64.StdEncoding.DecodeString(data)
		switch {
		case err != nil:
			o.fail("file.data", "must be standard base64 (RFC 4648 §4, with padding)")
		case len(b) == 0:
			o.fail("file.data", "must not be empty")
		default:
			f.data = b
		}
	}
	f.filename = takeFilename(o, "file.filename", f.filename)
	return f, true
}

// submittedFile is a file as a request carried it, before its checks.
type submittedFile struct {
	field     string // the request's name for it: "file"
	typeField string // the name of its declared media type: "file.mediaType", or "file" for a multipart part
	mediaType string // as declared; empty: sniff
	filename  string
	data      []byte
}

// takeFilename checks a file name as a request gave it (UTF-8, at most
// maxFilenameBytes: else a 400 naming field) and returns its safe base name
// (baseFilename), the one stored and offered for download.
func takeFilename(o *object, field, name string) string {
	switch {
	case len(name) > maxFilenameBytes:
		o.fail(field, fmt.Sprintf("must be at most %d bytes", maxFilenameBytes))
	case !utf8.ValidString(name):
		o.fail(field, "must be UTF-8")
	}
	return baseFilename(name)
}

// baseFilename reduces a client's file name to a safe base name, whichever
// way the file came (a JSON member or a multipart part): what follows the
// last path separator ('/' or '\'), without control, format (the
// bidirectional overrides such as U+202E, zero-width characters) or line
// and paragraph separator characters, trimmed of spaces, at most
// maxFilenameBytes bytes; "." and ".." are no name. So a name never walks
// out of a directory when saved, and never shows as other than it is
// ("invoice\u202Efdp.exe" is "invoicefdp.exe").
func baseFilename(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp) {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	for len(name) > maxFilenameBytes {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "." || name == ".." {
		return ""
	}
	return name
}

// checkFile decides the file's media type and applies the limits: 413 over
// the size or page limit, 415 for a type relayops does not read or a file
// whose first bytes do not agree with the type it declares, 429 when the
// caller's page counts stay busy. It returns the stored content.
func (s *Server) checkFile(ctx context.Context, caller string, f *submittedFile) (string, error) {
	if int64(len(f.data)) > s.cfg.MaxFileBytes {
		return "", limitTooLarge(s.cfg.MaxFileBytes, fmt.Sprintf("the file is %s; files are limited to %s (RELAYOPS_MAX_FILE_BYTES)",
			byteSize(int64(len(f.data))), byteSize(s.cfg.MaxFileBytes)))
	}
	mt, err := fileMediaType(f)
	if err != nil {
		return "", err
	}
	if mt == MediaTypePDF && s.pages != nil {
		// A PDF the reader cannot count is left to the read stage, which
		// rejects it with its reason (encrypted_document, unreadable_document).
		n, err := s.countPages(ctx, caller, f.data)
		if err != nil {
			return "", err
		}
		if n > s.cfg.MaxPages {
			return "", limitTooLarge(int64(s.cfg.MaxPages), fmt.Sprintf("the PDF has %d pages; documents are limited to %d pages (RELAYOPS_MAX_PAGES)", n, s.cfg.MaxPages))
		}
	}
	return jobs.FileContent(mt, f.filename, f.data), nil
}

// limitTooLarge is a 413 whose message states the limit.
func limitTooLarge(limit int64, msg string) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Message: msg, Limit: limit}
}

func unsupportedFile(field, problem string) *Error {
	return &Error{Status: http.StatusUnsupportedMediaType, Code: CodeUnsupportedMediaType,
		Message: field + " " + problem, Fields: []jobs.FieldError{{Field: field, Problem: problem}}}
}

// fileMediaType returns the media type of f: the declared one when relayops
// reads it and the file's signature agrees, the signature's when none (or
// application/octet-stream) is declared.
func fileMediaType(f *submittedFile) (string, error) {
	field := f.typeField
	if f.mediaType == "" {
		field = f.field
	}
	declared := f.mediaType
	if declared != "" {
		mt, params, err := mime.ParseMediaType(declared)
		if err != nil {
			return "", unsupportedFile(field, "is not a media type; accepted: "+acceptedMediaTypes)
		}
		if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "us-ascii") {
			return "", unsupportedFile(field, "has charset "+truncate(cs, 32)+"; text is read as UTF-8 only")
		}
		declared = mt
	}
	sniffed := sniffMediaType(f.data)
	switch declared {
	case "", "application/octet-stream":
		if sniffed == "" {
			return "", unsupportedFile(f.field, "is not a file relayops reads (by its first bytes); accepted: "+acceptedMediaTypes)
		}
		return sniffed, nil
	case "text/xml":
		declared = MediaTypeXML
	case MediaTypePDF, MediaTypeXML, MediaTypeText, MediaTypePNG, MediaTypeJPEG, MediaTypeTIFF:
	default:
		return "", unsupportedFile(field, "is "+truncate(declared, 64)+", which relayops does not read; accepted: "+acceptedMediaTypes)
	}
	if sniffed != declared {
		return "", unsupportedFile(field, "is "+declared+" but the file's first bytes are not ("+signatureOf(declared)+")")
	}
	return declared, nil
}

// signatureOf says what a media type's files start with, for a 415.
func signatureOf(mt string) string {
	switch mt {
	case MediaTypePDF:
		return "a PDF starts with %PDF-"
	case MediaTypeXML:
		return "XML starts with an XML declaration or a root element"
	case MediaTypePNG:
		return "a PNG starts with its 8-byte signature"
	case MediaTypeJPEG:
		return "a JPEG starts with FF D8 FF"
	case MediaTypeTIFF:
		return "a TIFF starts with II*\\x00 or MM\\x00*"
	}
	return "text is UTF-8 without NUL characters"
}

// sniffMediaType tells a file's media type by its first bytes, or "" when it
// is none relayops reads. PDF allows junk before its header (within the
// first 1024 bytes, as PDF readers do); XML may open with a byte-order mark
// and white space; text is valid UTF-8 without NUL and not XML.
func sniffMediaType(b []byte) string {
	head := b[:min(len(b), 1024)]
	switch {
	case bytes.Contains(head, []byte("%PDF-")):
		return MediaTypePDF
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return MediaTypePNG
	case bytes.HasPrefix(b, []byte{0xFF, 0xD8, 0xFF}):
		return MediaTypeJPEG
	case bytes.HasPrefix(b, []byte("II*\x00")), bytes.HasPrefix(b, []byte("MM\x00*")):
		return MediaTypeTIFF
	}
	if !utf8.Valid(b) || bytes.IndexByte(b, 0) >= 0 {
		return ""
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if len(t) > 1 && t[0] == '<' && (t[1] == '?' || t[1] == '!' || isNameStart(rune(t[1]))) {
		return MediaTypeXML
	}
	return MediaTypeText
}

func isNameStart(r rune) bool { return r == '_' || r == ':' || unicode.IsLetter(r) }

// isMultipart reports whether the request carries multipart/form-data.
func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	return err == nil && mt == "multipart/form-data"
}

// readMultipart reads a multipart/form-data submission: the fields
// documentId, operationVersion, deadlineSeconds as form values and the file
// as the one part named "file". It returns the fields as an object (so the
// JSON submission's checks apply unchanged, naming the same fields) and the
// file. The whole body is bounded by the file limit plus room for the
// fields; a larger file answers 413 stating the limit.
func (s *Server) readMultipart(c echo.Context) (*object, *submittedFile, error) {
	r := c.Request()
	_, params, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType))
	if params["boundary"] == "" {
		return nil, nil, invalid(jobs.FieldError{Field: "body", Problem: "multipart/form-data needs a boundary parameter"})
	}
	limit := s.cfg.MaxFileBytes + 64<<10
	body := http.MaxBytesReader(c.Response(), r.Body, limit)
	mr := multipart.NewReader(body, params["boundary"])
	o := &object{members: map[string]json.RawMessage{}}
	var file *submittedFile
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, s.multipartError(err)
		}
		name := p.FormName()
		switch {
		case name == "file":
			if file != nil {
				o.fail("file", "must be sent once")
				continue
			}
			data, err := io.ReadAll(io.LimitReader(p, s.cfg.MaxFileBytes+1))
			if err != nil {
				return nil, nil, s.multipartError(err)
			}
			if int64(len(data)) > s.cfg.MaxFileBytes {
				return nil, nil, limitTooLarge(s.cfg.MaxFileBytes, "files are limited to "+byteSize(s.cfg.MaxFileBytes)+" (RELAYOPS_MAX_FILE_BYTES)")
			}
			filename, hasName := partFilename(p)
			if !hasName {
				// curl -F file=invoice.pdf (the @ forgotten) sends the
				// name itself as a form field: no document to read.
				o.fail("file", "is a form field, not a file: send the file with its name, as curl -F file=@invoice.pdf does (the @ reads the file)")
			}
			file = &submittedFile{field: "file", typeField: "file", mediaType: p.Header.Get("Content-Type"), filename: takeFilename(o, "file.filename", filename), data: data}
		case name == "":
			o.fail("body", "has a part without a form name")
		default:
			if err := o.formValue(name, p); err != nil {
				return nil, nil, s.multipartError(err)
			}
		}
	}
	if file == nil {
		o.fail("file", "is required: a part named file holding the document")
	} else if len(file.data) == 0 {
		o.fail("file", "must not be empty")
	}
	return o, file, nil
}

// partFilename is the file name a multipart part declares in its
// Content-Disposition (filename, or filename* decoded), as sent: a part
// without one is a form field, not a file. (multipart.Part.FileName
// cannot tell a missing name from an empty one, and trims the path its own
// way.)
func partFilename(p *multipart.Part) (string, bool) {
	_, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil {
		return "", false
	}
	name, ok := params["filename"]
	return name, ok
}

// formValue stores one form field as the JSON member the JSON submission
// would have: a plain integer as a number, anything else as a string (so a
// non-numeric operationVersion is "must be an integer", as in JSON).
func (o *object) formValue(name string, p *multipart.Part) error {
	v, err := io.ReadAll(io.LimitReader(p, maxFormFieldBytes+1))
	if err != nil {
		return err
	}
	if _, dup := o.members[name]; dup {
		o.fail(truncate(name, 64), "must be sent once")
		return nil
	}
	if len(v) > maxFormFieldBytes {
		o.fail(truncate(name, 64), fmt.Sprintf("must be at most %d bytes", maxFormFieldBytes))
		return nil
	}
	if !utf8.Valid(v) {
		o.fail(truncate(name, 64), "must be UTF-8")
		return nil
	}
	if plainInteger(string(v)) {
		o.members[name] = v
	} else {
		o.members[name], _ = json.Marshal(string(v))
	}
	return nil
}

// multipartError is the answer to a multipart body that could not be read.
func (s *Server) multipartError(err error) error {
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		return limitTooLarge(s.cfg.MaxFileBytes, "files are limited to "+byteSize(s.cfg.MaxFileBytes)+" (RELAYOPS_MAX_FILE_BYTES)")
	}
	return invalid(jobs.FieldError{Field: "body", Problem: "is not a readable multipart/form-data body"})
}
