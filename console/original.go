package console

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/relayops/relayops/einvoice"
	"github.com/relayops/relayops/jobs"
)

// maxShownPages bounds the page images a job or review page shows; the
// rest are a link away (the download).
const maxShownPages = 20

// original is the document as it arrived, as a page shows it beside the
// fields: text as text, a PDF as its pages' images, an e-invoice as a short
// summary of its XML; each can be downloaded.
type original struct {
	Kind      string // "text", "pdf", "xml", "image"
	MediaType string
	Filename  string
	Size      int
	// Pages are the PDF page numbers shown as images; MorePages how many
	// more the document has.
	Pages     []int
	MorePages int
	NoImages  bool // a PDF the console cannot render (no PDF reader here, or unreadable)
	// EInvoice summarises an XML e-invoice (nil when it does not parse:
	// the job's reason says why).
	EInvoice *einvoice.Invoice
}

// describeOriginal makes the original of job k's input; it counts a PDF's
// pages through the operations.
func (c *Console) describeOriginal(r *http.Request, k jobs.Key, in jobs.Input) *original {
	o := &original{Kind: "text", MediaType: in.MediaType, Filename: in.Filename, Size: len(in.Data)}
	switch in.MediaType {
	case "application/pdf":
		o.Kind = "pdf"
		n, err := c.ops.PageCount(r.Context(), principal(r).Name, k, in.Data)
		if err != nil || n < 1 {
			o.NoImages = true
			break
		}
		for p := 1; p <= min(n, maxShownPages); p++ {
			o.Pages = append(o.Pages, p)
		}
		o.MorePages = n - len(o.Pages)
	case "application/xml":
		o.Kind = "xml"
		if inv, err := einvoice.Parse(in.Data); err == nil {
			o.EInvoice = inv
		}
	case "image/png", "image/jpeg", "image/tiff":
		o.Kind = "image"
	}
	return o
}

// document serves the job's original for download: an attachment the
// browser never renders in the console's origin.
func (c *Console) document(w http.ResponseWriter, r *http.Request) {
	in, ok := c.input(w, r)
	if !ok {
		return
	}
	name := in.Filename
	if name == "" {
		name = "document"
	}
	w.Header().Set("Content-Type", in.MediaType)
	w.Header().Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(name))
	w.Header().Set("Content-Security-Policy", "default-src 'none'; sandbox")
	_, _ = w.Write(in.Data)
}

// pageImage serves one page of a PDF original as a PNG.
func (c *Console) pageImage(w http.ResponseWriter, r *http.Request) {
	k, ok := c.jobKey(w, r)
	if !ok {
		return
	}
	in, ok := c.input(w, r)
	if !ok {
		return
	}
	page, err := strconv.Atoi(r.PathValue("page"))
	if err != nil || page < 1 || in.MediaType != "application/pdf" {
		c.fail(w, r, nil, http.StatusNotFound, "There is no such page.")
		return
	}
	png, err := c.ops.RenderPage(r.Context(), principal(r).Name, k, in.Data, page)
	var rl *RateLimitError
	switch {
	case errors.As(err, &rl):
		w.Header().Set("Retry-After", retryAfter(rl.RetryAfter))
		c.fail(w, r, nil, http.StatusTooManyRequests, "Too many pages asked for at once; this one will show when the page is reloaded.")
		return
	case err != nil:
		c.fail(w, r, nil, http.StatusNotFound, "This page cannot be shown.")
		return
	}
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(png)
}

// input reads the decoded input of the request's job, answering the page
// itself when it cannot.
func (c *Console) input(w http.ResponseWriter, r *http.Request) (jobs.Input, bool) {
	k, ok := c.jobKey(w, r)
	if !ok {
		return jobs.Input{}, false
	}
	content, err := c.ops.Input(r.Context(), k)
	if err != nil {
		c.storeFailed(w, r, err)
		return jobs.Input{}, false
	}
	return jobs.DecodeInput(content), true
}

// OriginalView is what the "original" template reads of a page's
// material: the job's ID beside it.
func (m material) OriginalView(id string) originalView {
	return originalView{ID: id, Text: m.Document, InputExpired: m.InputExpired, Original: m.Original}
}

// originalView is what the "original" template reads.
type originalView struct {
	ID           string
	Text         string
	InputExpired bool
	Original     *original
}
