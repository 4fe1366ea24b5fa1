// Package llmtest is a fake OpenAI-compatible Chat Completions endpoint for
// tests, evaluations and measurements: an httptest server on loopback that
// records every request and answers what the test says (a completion, an
// error status with headers, a malformed body, an answer held back until
// the caller gives up). Nothing that uses it reaches the internet.
package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Message is one chat message of a request.
type Message struct {
	Role string `json:"role"`
	// Content is the message's text. A message sent as content parts has
	// its parts' texts here joined by "\n", each image part standing as
	// "[image N]" (1-based, counted over the message).
	Content string `json:"content"`
	// Images are the message's image_url parts, in order.
	Images []Image `json:"-"`
}

// Image is one image_url content part.
type Image struct {
	URL    string // as sent
	Detail string
	// MediaType and Data are a data URL's ("data:image/png;base64,…")
	// decoded; empty for any other URL or a malformed one.
	MediaType string
	Data      []byte
}

// UnmarshalJSON reads a message whose content is a string or an array of
// text and image_url parts.
func (m *Message) UnmarshalJSON(b []byte) error {
	var raw struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	m.Role, m.Content, m.Images = raw.Role, "", nil
	if len(raw.Content) == 0 || raw.Content[0] != '[' {
		return json.Unmarshal(orNull(raw.Content), &m.Content)
	}
	var parts []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ImageURL struct {
			URL    string `json:"url"`
			Detail string `json:"detail"`
		} `json:"image_url"`
	}
	if err := json.Unmarshal(raw.Content, &parts); err != nil {
		return err
	}
	texts := make([]string, 0, len(parts))
	for _, p := range parts {
		switch p.Type {
		case "image_url":
			m.Images = append(m.Images, decodeImage(p.ImageURL.URL, p.ImageURL.Detail))
			texts = append(texts, fmt.Sprintf("[image %d]", len(m.Images)))
		default:
			texts = append(texts, p.Text)
		}
	}
	m.Content = strings.Join(texts, "\n")
	return nil
}

func orNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

func decodeImage(url, detail string) Image {
	img := Image{URL: url, Detail: detail}
	meta, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
	mediaType, isBase64 := strings.CutSuffix(meta, ";base64")
	if !ok || !isBase64 || !strings.HasPrefix(url, "data:") {
		return img
	}
	if b, err := base64.StdEncoding.DecodeString(data); err == nil {
		img.MediaType, img.Data = mediaType, b
	}
	return img
}

// Images returns the images of the request's user messages, in order.
func (r Request) Images() []Image {
	var imgs []Image
	for _, m := range r.Messages {
		if m.Role == "user" {
			imgs = append(imgs, m.Images...)
		}
	}
	return imgs
}

// Request is one request the server received.
type Request struct {
	Path                string
	Authorization       string // the Authorization header as sent
	Model               string
	Messages            []Message
	MaxCompletionTokens int64
	// ResponseFormat is the request's response_format, as sent.
	ResponseFormat json.RawMessage
	// Body is the whole request body.
	Body []byte
}

// Document returns the document the request fences as data in its user
// message, between "<<<DOCUMENT id>>>" and "<<<END DOCUMENT id>>>" (the
// model extractor's format), and whether there is exactly one such fence.
func (r Request) Document() (string, bool) {
	found, doc := 0, ""
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		if d, ok := fenced(m.Content); ok {
			found, doc = found+1, d
		}
	}
	return doc, found == 1
}

func fenced(msg string) (string, bool) {
	const open, closing = "<<<DOCUMENT ", "<<<END DOCUMENT "
	i := strings.Index(msg, open)
	if i < 0 {
		return "", false
	}
	id, rest, ok := strings.Cut(msg[i+len(open):], ">>>\n")
	if !ok || id == "" {
		return "", false
	}
	doc, tail, ok := strings.Cut(rest, "\n"+closing+id+">>>")
	return doc, ok && tail == ""
}

// Reply is what the server answers to one request.
type Reply struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// Header is added to the answer (e.g. Retry-After).
	Header http.Header
	// Content is the assistant message of a 200 completion.
	Content string
	// FinishReason of the completion; "" means "stop".
	FinishReason string
	// PromptTokens and CompletionTokens are reported as usage.
	PromptTokens, CompletionTokens int64
	// Body, when set, is sent as is instead of a completion or an error
	// object (a malformed answer).
	Body string
	// Hold, when set, holds the answer back until it is closed or the
	// client gives up (a slow endpoint, without sleeping).
	Hold <-chan struct{}
}

// Completion answers content with the given usage.
func Completion(content string, promptTokens, completionTokens int64) Reply {
	return Reply{Content: content, PromptTokens: promptTokens, CompletionTokens: completionTokens}
}

// Error answers status with an OpenAI-style error object.
func Error(status int, code, message string) Reply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": "invalid_request_error", "param": nil, "code": code,
	}})
	return Reply{Status: status, Body: string(b)}
}

// Server is a fake endpoint. URL is its base URL, ending in /v1.
type Server struct {
	URL string

	srv    *httptest.Server
	answer func(Request) Reply

	mu       sync.Mutex
	requests []Request
}

// New starts a server that answers each request with answer(request); it
// is closed when the test ends.
func New(t testing.TB, answer func(Request) Reply) *Server {
	t.Helper()
	s := &Server{answer: answer}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(s.srv.Close)
	return s
}

// NewFixed starts a server that answers every request with the same reply.
func NewFixed(t testing.TB, r Reply) *Server {
	return New(t, func(Request) Reply { return r })
}

// Requests returns a copy of every request received, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Calls is the number of requests received.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Path: r.URL.Path, Authorization: r.Header.Get("Authorization"), Body: body}
	var parsed struct {
		Model               string          `json:"model"`
		Messages            []Message       `json:"messages"`
		MaxCompletionTokens int64           `json:"max_completion_tokens"`
		ResponseFormat      json.RawMessage `json:"response_format"`
	}
	if err := json.Unmarshal(body, &parsed); err == nil {
		req.Model, req.Messages = parsed.Model, parsed.Messages
		req.MaxCompletionTokens, req.ResponseFormat = parsed.MaxCompletionTokens, parsed.ResponseFormat
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	n := len(s.requests)
	s.mu.Unlock()

	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","code":"not_found"}}`, http.StatusNotFound)
		return
	}
	rep := s.answer(req)
	if rep.Hold != nil {
		select {
		case <-rep.Hold:
		case <-r.Context().Done():
			return
		}
	}
	write(w, rep, req.Model, n)
}

func write(w http.ResponseWriter, rep Reply, model string, n int) {
	for k, vs := range rep.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	body := rep.Body
	if body == "" {
		body = completionBody(rep, model, n)
	}
	if strings.HasPrefix(strings.TrimSpace(body), "{") {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

func completionBody(rep Reply, model string, n int) string {
	finish := rep.FinishReason
	if finish == "" {
		finish = "stop"
	}
	b, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-fake-%d", n), "object": "chat.completion", "created": 1767225600, "model": model,
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": finish, "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": rep.Content, "refusal": nil},
		}},
		"usage": map[string]any{
			"prompt_tokens": rep.PromptTokens, "completion_tokens": rep.CompletionTokens,
			"total_tokens": rep.PromptTokens + rep.CompletionTokens,
		},
	})
	return string(b)
}
