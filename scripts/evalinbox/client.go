package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// client speaks to the API as the inbox's two people do: the tenant's
// mailroom submits documents and reads jobs, the clerk (an operator)
// corrects and decides. Nothing else of the system is touched.
type client struct {
	base                       string
	tenantToken, operatorToken string
	http                       *http.Client
	// rateLimited counts the 429 answers; each was waited out (its
	// Retry-After) and the request sent again.
	rateLimited int
}

func newClient(s *system) *client {
	return &client{base: s.apiURL, tenantToken: s.tenantToken, operatorToken: s.operatorToken,
		http: &http.Client{Timeout: 30 * time.Second}}
}

// Job states the replay tells apart.
const (
	stateSucceeded    = "succeeded"
	stateDeadLettered = "dead_lettered"
	stateCancelled    = "cancelled"
)

// jobView is what GET /v1/jobs/{jobId} answers, as far as the clerk reads
// it.
type jobView struct {
	JobID       string          `json:"jobId"`
	State       string          `json:"state"`
	ErrorCode   string          `json:"errorCode"`
	ErrorReason string          `json:"errorReason"`
	Result      json.RawMessage `json:"result"`
}

func (j *jobView) terminal() bool {
	return j.State == stateSucceeded || j.State == stateDeadLettered || j.State == stateCancelled
}

// reviewView is what GET /v1/reviews/{jobId} answers, as far as the clerk
// reads it.
type reviewView struct {
	JobID     string `json:"jobId"`
	Status    string `json:"status"`
	Duplicate *struct {
		Of       string   `json:"of"`
		Strength string   `json:"strength"`
		Matched  []string `json:"matched"`
	} `json:"duplicate"`
}

// profileView is one item of GET /v1/suppliers, or GET
// /v1/suppliers/{supplierId} with its history.
type profileView struct {
	SupplierID string         `json:"supplierId"`
	Version    int            `json:"version"`
	History    []profileEvent `json:"history"`
}

// profileEvent is one learning or deletion in a profile's history.
type profileEvent struct {
	Action string `json:"action"`
	JobID  string `json:"jobId"`
	Kind   string `json:"kind"` // correction or approval
}

// fieldError is one bad field of a 400 invalid_request.
type fieldError struct {
	Field   string `json:"field"`
	Problem string `json:"problem"`
}

// apiError is an answer other than the one expected.
type apiError struct {
	Method, Path string
	Status       int
	Code         string
	Message      string
	Fields       []fieldError
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s %s: %d %s: %s", e.Method, e.Path, e.Status, e.Code, e.Message)
}

// status is err's HTTP status, 0 when err is no answer of the API.
func status(err error) int {
	var e *apiError
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// submit posts a PDF as the tenant, as a multipart file, at version 1.
func (c *client) submit(ctx context.Context, documentID, path string) (*jobView, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("documentId", documentID)
	_ = w.WriteField("operationVersion", "1")
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filepath.Base(path)))
	h.Set("Content-Type", "application/pdf")
	part, err := w.CreatePart(h)
	if err != nil {
		return nil, err
	}
	_, _ = part.Write(data)
	if err := w.Close(); err != nil {
		return nil, err
	}
	var j jobView
	err = c.do(ctx, http.MethodPost, "/v1/jobs", c.tenantToken, w.FormDataContentType(), body.Bytes(), &j, http.StatusAccepted)
	return &j, err
}

func (c *client) job(ctx context.Context, jobID string) (*jobView, error) {
	var j jobView
	err := c.do(ctx, http.MethodGet, "/v1/jobs/"+jobID, c.tenantToken, "", nil, &j, http.StatusOK)
	return &j, err
}

// waitEnd polls a job until it is terminal, for at most timeout.
func (c *client) waitEnd(ctx context.Context, jobID string, timeout time.Duration) (*jobView, error) {
	var j *jobView
	err := poll(ctx, timeout, func() (bool, error) {
		var err error
		j, err = c.job(ctx, jobID)
		return err == nil && j.terminal(), err
	})
	if errors.Is(err, errTimeout) {
		return j, fmt.Errorf("job %s still %s after %s", jobID, j.State, timeout)
	}
	return j, err
}

// waitReview polls a succeeded job's review until the review consumer has
// created it.
func (c *client) waitReview(ctx context.Context, jobID string, timeout time.Duration) (*reviewView, error) {
	var r reviewView
	err := poll(ctx, timeout, func() (bool, error) {
		err := c.do(ctx, http.MethodGet, "/v1/reviews/"+jobID, c.tenantToken, "", nil, &r, http.StatusOK)
		if status(err) == http.StatusNotFound {
			return false, nil // not created yet
		}
		return err == nil, err
	})
	if errors.Is(err, errTimeout) {
		return nil, fmt.Errorf("no review of %s after %s", jobID, timeout)
	}
	return &r, err
}

// decision is the body of POST /v1/reviews/{jobId}/decision.
type decision struct {
	Decision       string         `json:"decision"`
	Note           string         `json:"note,omitempty"`
	Corrections    map[string]any `json:"corrections,omitempty"`
	NotDuplicateOf string         `json:"notDuplicateOf,omitempty"`
}

func (c *client) decide(ctx context.Context, jobID string, d decision) error {
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, "/v1/reviews/"+jobID+"/decision", c.operatorToken, "application/json", body, nil, http.StatusOK)
}

// reprocess posts the clerk's corrections of a dead-lettered job; it
// returns the new version.
func (c *client) reprocess(ctx context.Context, jobID, reason string, corrections map[string]any) (*jobView, error) {
	body, err := json.Marshal(map[string]any{"reason": reason, "corrections": corrections})
	if err != nil {
		return nil, err
	}
	var j jobView
	err = c.do(ctx, http.MethodPost, "/v1/jobs/"+jobID+"/reprocess", c.operatorToken, "application/json", body, &j,
		http.StatusCreated, http.StatusOK)
	return &j, err
}

// profiles lists the tenant's supplier profiles (at most 500: the corpus
// has fewer suppliers).
func (c *client) profiles(ctx context.Context) ([]profileView, error) {
	var list struct {
		Items []profileView `json:"items"`
	}
	q := url.Values{"tenant": {tenant}, "limit": {"500"}}
	err := c.do(ctx, http.MethodGet, "/v1/suppliers?"+q.Encode(), c.operatorToken, "", nil, &list, http.StatusOK)
	return list.Items, err
}

func (c *client) profile(ctx context.Context, supplierID string) (*profileView, error) {
	var p profileView
	err := c.do(ctx, http.MethodGet, "/v1/suppliers/"+supplierID, c.operatorToken, "", nil, &p, http.StatusOK)
	return &p, err
}

// maxRetryAfter bounds how long one 429 is waited out.
const maxRetryAfter = time.Minute

// do sends one request and decodes the answer into out when its status is
// one of want; another status is an *apiError. A 429 is counted, waited
// out and sent again.
func (c *client) do(ctx context.Context, method, path, token, contentType string, body []byte, out any, want ...int) error {
	for {
		req, err := http.NewRequestWithContext(ctx, method, c.base+path, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := c.http.Do(req)
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		b, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			c.rateLimited++
			if err := sleep(ctx, retryAfter(resp.Header.Get("Retry-After"))); err != nil {
				return err
			}
			continue
		}
		for _, s := range want {
			if resp.StatusCode == s {
				if out == nil {
					return nil
				}
				if err := json.Unmarshal(b, out); err != nil {
					return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, path, err)
				}
				return nil
			}
		}
		return answerError(method, path, resp.StatusCode, b)
	}
}

func answerError(method, path string, status int, body []byte) error {
	e := &apiError{Method: method, Path: path, Status: status}
	var wire struct {
		Error struct {
			Code    string       `json:"code"`
			Message string       `json:"message"`
			Fields  []fieldError `json:"fields"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &wire) == nil && wire.Error.Code != "" {
		e.Code, e.Message, e.Fields = wire.Error.Code, wire.Error.Message, wire.Error.Fields
	} else {
		e.Message = strings.TrimSpace(string(body))
	}
	return e
}

// retryAfter reads a Retry-After in seconds (1 s when absent or unreadable),
// at most maxRetryAfter.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 1 {
		n = 1
	}
	return min(time.Duration(n)*time.Second, maxRetryAfter)
}

// pollInterval is how often a job, a review or the profiles are looked at
// while waiting.
const pollInterval = 20 * time.Millisecond

var errTimeout = errors.New("timed out")

// poll calls done every pollInterval until it reports true or an error,
// for at most timeout (errTimeout).
func poll(ctx context.Context, timeout time.Duration, done func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := done()
		switch {
		case err != nil:
			return err
		case ok:
			return nil
		case time.Now().After(deadline):
			return errTimeout
		}
		if err := sleep(ctx, pollInterval); err != nil {
			return err
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
