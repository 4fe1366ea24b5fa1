package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// The correction form: a rejected document's fields as they were read,
// beside the document, for the operator to correct or complete. Only the
// fields whose value the operator changed are sent as corrections, so the
// audit records what the operator did and nothing else.

// formFields are the scalar fields of the form, in its order.
var formFields = []string{"vendor", "invoiceNumber", "issueDate", "dueDate", "currency", "subtotal", "tax", "total"}

// formHints are the form's help text per field.
var formHints = map[string]string{
	"issueDate": "YYYY-MM-DD", "dueDate": "YYYY-MM-DD, optional", "currency": "ISO 4217 code, e.g. EUR",
	"subtotal": "e.g. 1234.56", "tax": "e.g. 234.56", "total": "e.g. 1469.12",
}

// formLineRows is how many empty line-item rows the form offers beyond
// the lines read.
const formLineRows = 2

// correctionField is one input of the form.
type correctionField struct {
	Name, Label, Hint string
	Value             string // what the input holds: what was read, or what the operator sent
	Read              string // what was read
	Failing           bool   // the failing check concerns this field
	Why               string // the failing check, in words
	Errors            []string
}

// correctionLine is one line-item row of the form.
type correctionLine struct {
	Index                                    int
	Description, Quantity, UnitPrice, Amount string
}

// correctionForm is the form's content.
type correctionForm struct {
	Fields       []correctionField
	Lines        []correctionLine
	LinesFailing bool
	LinesWhy     string
	LineErrors   []string
	Reason       string
	Overrule     bool // the document was rejected as not an invoice
	ReadNothing  bool // nothing of the document was kept
	Errors       []string
}

// read is what was read of a rejected job, as form values.
type read struct {
	fields map[string]string
	lines  []extract.ExtractedLine
	failed map[string]string // field -> the check it fails
}

// empty reports whether nothing was read.
func (r read) empty() bool {
	for _, v := range r.fields {
		if v != "" {
			return false
		}
	}
	return len(r.lines) == 0
}

func readOf(k *extract.Kept) read {
	r := read{fields: map[string]string{}, failed: map[string]string{}}
	if k == nil {
		return r
	}
	if x := k.Fields; x != nil {
		for f, v := range map[string]string{"vendor": x.Vendor, "invoiceNumber": x.InvoiceNumber, "issueDate": x.IssueDate,
			"dueDate": x.DueDate, "currency": x.Currency, "subtotal": x.Subtotal, "tax": x.Tax, "total": x.Total} {
			r.fields[f] = v
		}
		r.lines = x.LineItems
	}
	for _, f := range k.Failed {
		if _, seen := r.failed[f.Field]; !seen {
			r.failed[f.Field] = f.Check
		}
	}
	return r
}

// newCorrectionForm builds the form from what was read (rd), the reason
// the job was rejected for, the values sent (sent, nil on a first view)
// and the problems of a refused submission.
func newCorrectionForm(rd read, reason string, sent *sentForm, problems []jobs.FieldError) *correctionForm {
	f := &correctionForm{Overrule: reason == extract.ReasonNotAnInvoice, ReadNothing: rd.empty()}
	errs := map[string][]string{}
	for _, p := range problems {
		name, ok := strings.CutPrefix(p.Field, "corrections.")
		switch {
		case ok && strings.HasPrefix(name, "lineItems"):
			f.LineErrors = append(f.LineErrors, p.Problem)
		case ok:
			errs[name] = append(errs[name], p.Problem)
		case p.Field == "corrections":
			f.Errors = append(f.Errors, p.Problem)
		}
	}
	for _, name := range formFields {
		check, failing := rd.failed[name]
		cf := correctionField{Name: name, Label: fieldLabel(name), Hint: formHints[name], Read: rd.fields[name],
			Value: rd.fields[name], Failing: failing, Errors: errs[name]}
		if failing {
			cf.Why = describe(check)
		}
		if sent != nil {
			cf.Value = sent.fields[name]
		}
		f.Fields = append(f.Fields, cf)
	}
	if check, failing := rd.failed["lineItems"]; failing {
		f.LinesFailing, f.LinesWhy = true, describe(check)
	}
	lines := rd.lines
	if sent != nil {
		lines, f.Reason = sent.lines, sent.reason
	}
	for i, l := range lines {
		f.Lines = append(f.Lines, correctionLine{Index: i, Description: l.Description, Quantity: l.Quantity, UnitPrice: l.UnitPrice, Amount: l.Amount})
	}
	for i := 0; i < formLineRows; i++ {
		f.Lines = append(f.Lines, correctionLine{Index: len(f.Lines)})
	}
	return f
}

func fieldLabel(name string) string {
	if w, ok := fieldWords[name]; ok {
		return strings.ToUpper(w[:1]) + w[1:]
	}
	return name
}

// sentForm is the correction form as the browser sent it.
type sentForm struct {
	reason string
	fields map[string]string
	lines  []extract.ExtractedLine // the rows with any value, in order
}

// maxFormLines bounds the line-item rows a form may send.
const maxFormLines = 1000

func parseSentForm(r *http.Request) *sentForm {
	s := &sentForm{reason: r.PostForm.Get("reason"), fields: map[string]string{}}
	for _, name := range formFields {
		s.fields[name] = strings.TrimSpace(r.PostForm.Get("f-" + name))
	}
	n, _ := strconv.Atoi(r.PostForm.Get("lines"))
	for i := 0; i < min(n, maxFormLines); i++ {
		get := func(part string) string { return strings.TrimSpace(r.PostForm.Get(fmt.Sprintf("li-%d-%s", i, part))) }
		l := extract.ExtractedLine{Description: get("description"), Quantity: get("quantity"), UnitPrice: get("unitPrice"), Amount: get("amount")}
		if l != (extract.ExtractedLine{}) {
			s.lines = append(s.lines, l)
		}
	}
	return s
}

// corrections are the fields the operator changed from what was read.
func (s *sentForm) corrections(rd read) extract.Corrections {
	var c extract.Corrections
	set := map[string]**string{
		"invoiceNumber": &c.InvoiceNumber, "issueDate": &c.IssueDate, "dueDate": &c.DueDate, "vendor": &c.Vendor,
		"currency": &c.Currency, "subtotal": &c.Subtotal, "tax": &c.Tax, "total": &c.Total,
	}
	for _, name := range formFields {
		if v := s.fields[name]; v != rd.fields[name] {
			*set[name] = &v
		}
	}
	if !slices.Equal(s.lines, rd.lines) && (len(s.lines) > 0 || len(rd.lines) > 0) {
		lines := s.lines
		if lines == nil {
			lines = []extract.ExtractedLine{}
		}
		c.LineItems = &lines
	}
	return c
}

// correct reprocesses a rejected job with the fields the operator changed
// in the form, through the API's own path (validation before anything is
// created, audit of each field, idempotency, rate limit). A refusal shows
// the form again with every typed value and each error beside its field;
// success goes to the new version, which reloads until it ends.
func (c *Console) correct(w http.ResponseWriter, r *http.Request) {
	k, ok := c.jobKey(w, r)
	if !ok {
		return
	}
	job, err := c.ops.GetJob(r.Context(), k)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	kept, err := c.ops.Kept(r.Context(), job)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	sent := parseSentForm(r)
	corr := sent.corrections(readOf(kept))
	pg := &page{}
	if corr.Empty() {
		pg.Problem = "Nothing was reprocessed: change at least one field (or use the document form below)."
		pg.Fields = []jobs.FieldError{{Field: "corrections", Problem: "must correct at least one field"}}
		c.showJob(w, r, http.StatusBadRequest, k, pg, &jobBody{sent: sent})
		return
	}
	req := jobs.ReprocessRequest{Key: k, Operator: principal(r).Name, Reason: sent.reason}
	res, err := c.ops.Reprocess(r.Context(), req, &corr)
	var ve *jobs.ValidationError
	var rl *RateLimitError
	switch {
	case err == nil:
		http.Redirect(w, r, c.cfg.RootPath+"/jobs/"+res.Job.Key.String()+"?corrected="+k.String(), http.StatusSeeOther)
	case errors.As(err, &rl):
		w.Header().Set("Retry-After", retryAfter(rl.RetryAfter))
		pg.Problem = fmt.Sprintf("The reprocess rate limit of tenant %s is reached; nothing was created. Try again in %s.",
			k.Tenant, age(rl.RetryAfter))
		c.showJob(w, r, http.StatusTooManyRequests, k, pg, &jobBody{sent: sent})
	case errors.As(err, &ve):
		pg.Problem, pg.Fields = "Nothing was reprocessed: the corrected fields do not pass the checks.", ve.Fields
		c.showJob(w, r, http.StatusBadRequest, k, pg, &jobBody{sent: sent})
	case errors.Is(err, jobs.ErrNotDeadLettered), errors.Is(err, jobs.ErrJobCancelled),
		errors.Is(err, jobs.ErrInputExpired), errors.Is(err, jobs.ErrIdempotencyConflict):
		pg.Problem = conflictText(err)
		if errors.Is(err, jobs.ErrIdempotencyConflict) {
			pg.Problem = "This job was already reprocessed with other corrections; the existing new version stands."
		}
		c.showJob(w, r, http.StatusConflict, k, pg, &jobBody{sent: sent})
	default:
		c.storeFailed(w, r, err)
	}
}

// resultRead is a committed result as form values (no line items: an
// approval corrects scalar fields).
func resultRead(inv *invoice) read {
	r := read{fields: map[string]string{}, failed: map[string]string{}}
	if inv == nil {
		return r
	}
	for f, v := range map[string]string{"vendor": inv.Vendor, "invoiceNumber": inv.InvoiceNumber, "issueDate": inv.IssueDate,
		"dueDate": inv.DueDate, "currency": inv.Currency, "subtotal": inv.Subtotal, "tax": inv.Tax, "total": inv.Total} {
		r.fields[f] = v
	}
	return r
}

// reviewCorrections fills the review page's correction part: the form of
// a pending review, pre-filled with the result (or the values sent), or
// what a decided approval corrected.
func (c *Console) reviewCorrections(r *http.Request, b *reviewBody, problems []jobs.FieldError) error {
	if b.Invoice == nil {
		return nil
	}
	if b.Review.Status == jobs.ReviewPending {
		f := newCorrectionForm(resultRead(b.Invoice), "", b.sent, problems)
		f.Lines = nil
		b.Correct = f
		return nil
	}
	corr, err := c.ops.ReviewCorrections(r.Context(), b.Review.Key)
	if err != nil || corr == nil {
		return err
	}
	x := corr.Apply(extract.Extraction{})
	values := map[string]string{"vendor": x.Vendor, "invoiceNumber": x.InvoiceNumber, "issueDate": x.IssueDate,
		"dueDate": x.DueDate, "currency": x.Currency, "subtotal": x.Subtotal, "tax": x.Tax, "total": x.Total}
	read := resultRead(b.Invoice)
	for _, name := range corr.Fields() {
		if v, ok := values[name]; ok {
			b.Corrected = append(b.Corrected, correctionField{Name: name, Label: fieldLabel(name), Value: v, Read: read.fields[name]})
		}
	}
	return nil
}

// decisionCorrections are the fields an approval form changed from the
// committed result; nil when none.
func (c *Console) decisionCorrections(r *http.Request, k jobs.Key, sent *sentForm) (*extract.Corrections, error) {
	res, err := c.ops.Result(r.Context(), k)
	if err != nil {
		return nil, nil // no result to correct: the decision alone is judged
	}
	var inv invoice
	if json.Unmarshal(res, &inv) != nil {
		return nil, nil
	}
	if r.PostForm.Get("correcting") == "" {
		return nil, nil // a form without the correction part
	}
	rd := resultRead(&inv)
	sent.lines = nil // an approval corrects scalar fields only
	corr := sent.corrections(rd)
	if corr.Empty() {
		return nil, nil
	}
	return &corr, nil
}
