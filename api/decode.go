package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/jobs"
)

// Request bodies are decoded strictly, so that two clients can never mean
// different things by the same bytes and nothing is silently dropped:
//   - the Content-Type must be application/json (charset, if given, utf-8);
//   - the body must fit the limit, be valid UTF-8 and hold exactly one JSON
//     object, without duplicate keys at any depth and without trailing data;
//   - unknown members are errors, each named;
//   - integers are written as integers: a JSON number with a fraction or an
//     exponent (1.0, 1e3) is rejected even when its value is whole;
//   - null is not a value of any member: an optional member is omitted;
//   - no string holds the escape \u0000 or a lone surrogate escape (\ud800
//     without its \udc00-\udfff pair, or the reverse): encoding/json would
//     turn a lone one into U+FFFD, so different bytes would mean, and hash
//     as, the same payload. Pairs (an emoji as \ud83d\ude00) are fine.
// Every problem found is reported at once, with the member's name.

// readObject reads the request body as a strict JSON object.
func (s *Server) readObject(c echo.Context) (*object, error) {
	return s.readObjectLimit(c, s.cfg.BodyLimit)
}

// readObjectLimit is readObject with a body limit of its own (a submission
// may carry a file).
func (s *Server) readObjectLimit(c echo.Context, limit int64) (*object, error) {
	r := c.Request()
	if err := checkContentType(r.Header.Get(echo.HeaderContentType)); err != nil {
		return nil, err
	}
	if r.ContentLength > limit {
		return nil, tooLarge()
	}
	data, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, limit))
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return nil, tooLarge()
	case err != nil:
		return nil, invalid(jobs.FieldError{Field: "body", Problem: "could not be read"})
	}
	return parseObject(data)
}

// parseObject parses data as one strict JSON object. Well-formed JSON (the
// common case) is checked by json.Valid and then walked once by scanObject;
// only a malformed body goes through checkSyntax's token walk, to say what
// is wrong with it.
func parseObject(data []byte) (*object, error) {
	if !utf8.Valid(data) {
		return nil, invalid(jobs.FieldError{Field: "body", Problem: "must be UTF-8"})
	}
	if !json.Valid(data) {
		problem := checkSyntax(data)
		if problem == "" { // nested deeper than encoding/json decodes
			problem = "must be a JSON object"
		}
		return nil, invalid(jobs.FieldError{Field: "body", Problem: problem})
	}
	members, problem := scanObject(data)
	if problem != "" {
		return nil, invalid(jobs.FieldError{Field: "body", Problem: problem})
	}
	if members == nil {
		return nil, invalid(jobs.FieldError{Field: "body", Problem: "must be a JSON object"})
	}
	if fields := checkEscapes(data); len(fields) > 0 {
		return nil, invalid(fields...)
	}
	return &object{members: members, size: int64(len(data))}, nil
}

// scanObject walks well-formed JSON (json.Valid holds) once. It returns the
// first key, in document order, that repeats a key of the same object at any
// depth (as checkSyntax words it), and, when the value is an object, its
// members (nil otherwise), each value's bytes without surrounding whitespace
// as encoding/json's RawMessage holds them.
func scanObject(data []byte) (map[string]json.RawMessage, string) {
	var (
		stack   []frame
		members map[string]json.RawMessage
		key     string // the top-level member whose value is being read
		start   = -1   // where that value starts; -1: none pending
	)
	if i := skipSpace(data, 0); i < len(data) && data[i] == '{' {
		members = make(map[string]json.RawMessage, 4)
	}
	endMember := func(i int) {
		if start >= 0 && members != nil {
			members[key] = json.RawMessage(trimSpace(data[start:i]))
		}
		start = -1
	}
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			stack = append(stack, frame{object: true, expectKey: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			if len(stack) == 1 {
				endMember(i)
			}
			stack = stack[:len(stack)-1]
		case ',':
			if top := len(stack) - 1; stack[top].object {
				stack[top].expectKey = true
				if top == 0 {
					endMember(i)
				}
			}
		case ':':
			if len(stack) == 1 {
				start = i + 1
			}
		case '"':
			end, escaped := skipString(data, i)
			if top := len(stack) - 1; top >= 0 && stack[top].object && stack[top].expectKey {
				f := &stack[top]
				f.expectKey = false
				k := jsonString(data[i:end+1], escaped)
				if f.has(k) {
					return nil, "has the key " + strconv.Quote(truncate(k, 64)) + " more than once"
				}
				f.add(k)
				if top == 0 {
					key = k
				}
			}
			i = end
		}
	}
	return members, ""
}

// skipString returns the index of the closing quote of the well-formed
// JSON string opening at data[start], and whether it holds an escape.
func skipString(data []byte, start int) (int, bool) {
	escaped := false
	for j := start + 1; j < len(data); j++ {
		switch data[j] {
		case '"':
			return j, escaped
		case '\\':
			escaped = true
			j++
		}
	}
	return len(data) - 1, escaped
}

// jsonString decodes the well-formed JSON string literal raw (quotes
// included, valid UTF-8) as encoding/json does. Without an escape its
// content is the string itself.
func jsonString(raw []byte, escaped bool) string {
	if !escaped {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// trimSpace trims JSON whitespace from both ends of b.
func trimSpace(b []byte) []byte {
	b = b[skipSpace(b, 0):]
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// manyKeys is the number of keys past which an object's keys are looked up
// in a map rather than a list.
const manyKeys = 16

// frame is an open object or array of scanObject's walk.
type frame struct {
	object, expectKey bool
	keys              []string            // the object's keys so far
	big               map[string]struct{} // the same, once there are more than manyKeys
}

func (f *frame) has(k string) bool {
	if f.big != nil {
		_, ok := f.big[k]
		return ok
	}
	for _, seen := range f.keys {
		if seen == k {
			return true
		}
	}
	return false
}

func (f *frame) add(k string) {
	if f.big == nil && len(f.keys) < manyKeys {
		f.keys = append(f.keys, k)
		return
	}
	if f.big == nil {
		f.big = make(map[string]struct{}, 2*manyKeys)
		for _, seen := range f.keys {
			f.big[seen] = struct{}{}
		}
		f.keys = nil
	}
	f.big[k] = struct{}{}
}

// checkEscapes finds the strings of a well-formed JSON object that hold the
// escape \u0000 or a lone surrogate escape, and names the top-level member
// each is in ("body" for a key that holds one), once per member.
func checkEscapes(data []byte) []jobs.FieldError {
	var out []jobs.FieldError
	var seen map[string]bool
	depth, expectKey := 0, false
	member := "body" // the top-level member being read
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
					member = truncate(jsonString(data[i:end+1], bytes.IndexByte(data[i:end+1], '\\') >= 0), 64)
				}
			}
			field := member
			if isKey {
				field = "body"
			}
			if problem != "" && !seen[field] {
				if seen == nil {
					seen = map[string]bool{}
				}
				seen[field] = true
				out = append(out, jobs.FieldError{Field: field, Problem: problem})
			}
			i = end
		}
	}
	return out
}

// scanString reads the JSON string opening at data[start] (well-formed) and
// returns the index of its closing quote and the problem of its escapes, "".
func scanString(data []byte, start int) (int, string) {
	problem := ""
	for j := start + 1; j < len(data); j++ {
		switch data[j] {
		case '"':
			return j, problem
		case '\\':
			if data[j+1] != 'u' {
				j++
				continue
			}
			code, next := unicodeEscape(data, j)
			j = next - 1
			switch {
			case code == 0:
				problem = "must not contain the escape \\u0000 (NUL)"
			case code >= 0xDC00 && code <= 0xDFFF:
				problem = "must not contain a lone surrogate escape (\\udc00-\\udfff without a \\ud800-\\udbff before it)"
			case code >= 0xD800 && code <= 0xDBFF:
				if low, after := unicodeEscape(data, next); low >= 0xDC00 && low <= 0xDFFF {
					j = after - 1
					continue
				}
				problem = "must not contain a lone surrogate escape (\\ud800-\\udbff without a \\udc00-\\udfff after it)"
			}
		}
	}
	return len(data) - 1, problem
}

// unicodeEscape decodes the \uXXXX escape at data[i] and returns its code
// and the index after it; -1 when data[i:] is not such an escape.
func unicodeEscape(data []byte, i int) (int, int) {
	if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
		return -1, i
	}
	v, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 16)
	if err != nil {
		return -1, i
	}
	return int(v), i + 6
}

func checkContentType(ct string) error {
	unsupported := &Error{Status: http.StatusUnsupportedMediaType, Code: CodeUnsupportedMediaType,
		Message: "Content-Type must be application/json"}
	if ct == "" {
		return unsupported
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return unsupported
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return unsupported
		}
	}
	return nil
}

// checkSyntax walks data token by token. It returns "" for exactly one JSON
// value without duplicate object keys, or the problem otherwise.
// encoding/json alone would keep the last of two duplicate keys and stop
// reading after the first value.
func checkSyntax(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		keys      map[string]bool // nil for an array
		expectKey bool
	}
	var stack []*frame
	started := false
	for {
		tok, err := dec.Token()
		switch {
		case err == io.EOF && started && len(stack) == 0:
			return ""
		case err == io.EOF:
			return "must be a JSON object"
		case err != nil:
			return "is not well-formed JSON"
		case started && len(stack) == 0:
			return "has data after the JSON value"
		}
		started = true
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if key, isKey := tok.(string); isKey && top != nil && top.keys != nil && top.expectKey {
			if top.keys[key] {
				return "has the key " + strconv.Quote(truncate(key, 64)) + " more than once"
			}
			top.keys[key] = true
			top.expectKey = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, expectKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: its parent object now expects a key.
		if len(stack) > 0 && stack[len(stack)-1].keys != nil {
			stack[len(stack)-1].expectKey = true
		}
	}
}

// object is a decoded JSON object whose members are taken one by one; the
// problems found are collected and reported together by done.
type object struct {
	members map[string]json.RawMessage
	fields  []jobs.FieldError
	size    int64 // the body's bytes
}

func (o *object) fail(field, problem string) {
	o.fields = append(o.fields, jobs.FieldError{Field: field, Problem: problem})
}

// take removes a member; ok is false when it is absent.
func (o *object) take(name string, required bool) (json.RawMessage, bool) {
	raw, ok := o.members[name]
	delete(o.members, name)
	if !ok && required {
		o.fail(name, "is required")
	}
	return raw, ok
}

// str takes a string member. It reports a missing required member and a
// value of another type.
func (o *object) str(name string, required bool) (string, bool) {
	raw, ok := o.take(name, required)
	if !ok {
		return "", false
	}
	if raw[0] != '"' { // raw is a well-formed value: a string literal starts with a quote
		o.fail(name, "must be a string")
		return "", false
	}
	return jsonString(raw, bytes.IndexByte(raw, '\\') >= 0), true
}

// plainInteger reports whether s matches -?(0|[1-9][0-9]*).
func plainInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// integer takes an integer member in [min, max], written without fraction or
// exponent.
func (o *object) integer(name string, required bool, min, max int64) (int64, bool) {
	raw, ok := o.take(name, required)
	if !ok {
		return 0, false
	}
	rangeProblem := "must be an integer from " + strconv.FormatInt(min, 10) + " to " + strconv.FormatInt(max, 10)
	s := string(raw)
	if !plainInteger(s) {
		if s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9')) {
			o.fail(name, rangeProblem+", written without fraction or exponent")
		} else {
			o.fail(name, rangeProblem)
		}
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < min || n > max {
		o.fail(name, rangeProblem)
		return 0, false
	}
	return n, true
}

// done reports every member not taken as unknown and returns the collected
// problems as one invalid_request, or nil.
func (o *object) done(hints map[string]string) error {
	unknown := make([]string, 0, len(o.members))
	for k := range o.members {
		unknown = append(unknown, k)
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		problem := "is not a known field"
		if h, ok := hints[k]; ok {
			problem = h
		}
		o.fail(truncate(k, 64), problem)
	}
	if len(o.fields) > 0 {
		return invalid(o.fields...)
	}
	return nil
}

// truncate shortens s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
