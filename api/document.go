package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/jobs"
)

// pageImagePixels bounds a rendered page image (about 1240 × 1754, an A4
// page at 150 dpi): readable beside the fields, and a bounded cost.
const pageImagePixels = 2_200_000

// getDocument is GET /v1/jobs/{jobId}/document: the job's input as it was
// submitted, to its tenant and to operators. It is served as an attachment
// that no browser renders in the API's origin (nosniff, a sandboxing CSP):
// a submitted file is untrusted.
func (s *Server) getDocument(c echo.Context) error {
	key, in, err := s.jobInput(c)
	if err != nil {
		return err
	}
	mt := in.MediaType
	if mt == jobs.MediaTypeText {
		mt += "; charset=utf-8"
	}
	h := c.Response().Header()
	h.Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(downloadName(key, in)))
	setUntrustedHeaders(h)
	return c.Blob(http.StatusOK, mt, in.Data)
}

// jobInput reads the decoded input of the request's job, answering 404 for
// a job the caller may not see and 409 input_expired once it has expired.
func (s *Server) jobInput(c echo.Context) (jobs.Key, jobs.Input, error) {
	key, err := s.jobKey(c)
	if err != nil {
		return jobs.Key{}, jobs.Input{}, err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	content, err := s.store.Input(ctx, key)
	if errors.Is(err, jobs.ErrInputExpired) {
		if _, gerr := s.store.Get(ctx, key); errors.Is(gerr, jobs.ErrNotFound) {
			return jobs.Key{}, jobs.Input{}, notFound()
		}
		return jobs.Key{}, jobs.Input{}, inputExpired()
	}
	if err != nil {
		return jobs.Key{}, jobs.Input{}, fmt.Errorf("api: input %s: %w", key, err)
	}
	return key, jobs.DecodeInput(content), nil
}

// inputExpired is the 409 of a job whose input is no longer stored.
func inputExpired() *Error {
	return &Error{Status: http.StatusConflict, Code: CodeInputExpired, Message: "the job's document has expired (retention)"}
}

// setUntrustedHeaders keeps a browser from interpreting a submitted
// document in the API's origin, and any cache from keeping it.
func setUntrustedHeaders(h http.Header) {
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, no-store")
}

// downloadName is the file name of a downloaded document: the client's
// own name when it gave one, else one made from the job key.
func downloadName(k jobs.Key, in jobs.Input) string {
	if in.Filename != "" {
		return in.Filename
	}
	ext := map[string]string{MediaTypePDF: ".pdf", MediaTypeXML: ".xml", MediaTypePNG: ".png",
		MediaTypeJPEG: ".jpg", MediaTypeTIFF: ".tif"}[in.MediaType]
	if ext == "" {
		ext = ".txt"
	}
	return k.DocumentID + "-v" + strconv.FormatInt(k.Version, 10) + ext
}
