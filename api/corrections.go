package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// maxCorrectionRunes bounds one corrected value (a vendor name, a line
// description): the validator bounds each field more tightly still.
const maxCorrectionRunes = 1000

// correctionLineFields are the members of a corrected line item.
var correctionLineFields = []string{"description", "quantity", "unitPrice", "amount"}

// takeCorrections takes the reprocess body's optional "corrections"
// member: an object of the fields in extract.CorrectionFields, each a
// string (amounts as canonical decimals, "1234.56"; dates YYYY-MM-DD),
// lineItems an array of objects of strings. Every problem is collected on
// o under "corrections.<field>"; nil when absent or unreadable.
func takeCorrections(o *object) *extract.Corrections {
	raw, ok := o.take("corrections", false)
	if !ok {
		return nil
	}
	var members map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &members) != nil {
		o.fail("corrections", "must be an object of the fields to correct")
		return nil
	}
	c := &extract.Corrections{}
	scalars := map[string]**string{
		"invoiceNumber": &c.InvoiceNumber, "issueDate": &c.IssueDate, "dueDate": &c.DueDate, "vendor": &c.Vendor,
		"currency": &c.Currency, "subtotal": &c.Subtotal, "tax": &c.Tax, "total": &c.Total,
	}
	bad := len(o.fields)
	for _, name := range sortedKeys(members) {
		field := "corrections." + truncate(name, 64)
		switch dst, isScalar := scalars[name]; {
		case isScalar:
			if v, ok := correctionString(o, field, members[name]); ok {
				*dst = &v
			}
		case name == "lineItems":
			if lines, ok := correctionLines(o, field, members[name]); ok {
				c.LineItems = &lines
			}
		default:
			o.fail(field, "is not a field a correction may set (one of "+strings.Join(extract.CorrectionFields, ", ")+")")
		}
	}
	if len(o.fields) > bad {
		return nil
	}
	if c.Empty() {
		o.fail("corrections", "must correct at least one field")
		return nil
	}
	return c
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// correctionString reads one corrected value: a string of at most
// maxCorrectionRunes without control characters.
func correctionString(o *object, field string, raw json.RawMessage) (string, bool) {
	var v string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &v) != nil {
		o.fail(field, `must be a string (amounts as decimals such as "1234.56", dates as YYYY-MM-DD)`)
		return "", false
	}
	v = strings.TrimSpace(v) // the payload hash sees what the validator sees
	if utf8.RuneCountInString(v) > maxCorrectionRunes || hasControl(v) {
		o.fail(field, fmt.Sprintf("must be at most %d characters, without control characters", maxCorrectionRunes))
		return "", false
	}
	return v, true
}

func correctionLines(o *object, field string, raw json.RawMessage) ([]extract.ExtractedLine, bool) {
	var items []map[string]json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		o.fail(field, "must be an array of line items, each an object of description, quantity, unitPrice and amount strings")
		return nil, false
	}
	ok := true
	lines := make([]extract.ExtractedLine, len(items))
	for i, item := range items {
		dst := map[string]*string{"description": &lines[i].Description, "quantity": &lines[i].Quantity,
			"unitPrice": &lines[i].UnitPrice, "amount": &lines[i].Amount}
		for _, name := range sortedKeys(item) {
			f := fmt.Sprintf("%s[%d].%s", field, i, truncate(name, 64))
			p, known := dst[name]
			if !known {
				o.fail(f, "is not a line item field (one of "+strings.Join(correctionLineFields, ", ")+")")
				ok = false
				continue
			}
			v, good := correctionString(o, f, item[name])
			*p, ok = v, ok && good
		}
	}
	return lines, ok
}

// checkWords say what a failing check means for the field it names, for
// the operator who fixes the form.
var checkWords = map[string]string{
	extract.ReasonMissingField:       "is required",
	extract.ReasonInvalidField:       "is not acceptable (its format, range or number of decimals)",
	extract.ReasonUnparseableAmount:  `is not a decimal amount such as "1234.56"`,
	extract.ReasonAmbiguousDate:      "is ambiguous: give it as YYYY-MM-DD",
	extract.ReasonLineMismatch:       "does not add up: a line's amount must be its quantity times its unit price",
	extract.ReasonSubtotalMismatch:   "does not add up: the line items must sum to the subtotal",
	extract.ReasonTotalMismatch:      "does not add up: subtotal (or the lines) + charges + tax must be the total",
	extract.ReasonModelOutputInvalid: "could not be read: give the fields",
	extract.ReasonNotAnInvoice:       "cannot make an invoice of this document",
}

// correctionErrors turns the validator's rejection of corrected fields
// into the fields of a 400: each field the failing check concerns, with
// the check's code and what it means.
func correctionErrors(r *extract.Rejection) *jobs.ValidationError {
	check, _, _ := strings.Cut(r.Reason, ":")
	words := checkWords[check]
	if words == "" {
		words = "is refused"
	}
	problem := words + " (check " + r.Reason + ")"
	fields := r.Fields
	if len(fields) == 0 {
		fields = []string{""}
	}
	ve := &jobs.ValidationError{}
	for _, f := range fields {
		name := "corrections"
		if f != "" {
			name += "." + f
		}
		ve.Fields = append(ve.Fields, jobs.FieldError{Field: name, Problem: problem})
	}
	return ve
}

// prepareCorrections judges corrections over what the dead job kept of
// its extraction (nothing, when it kept nothing or it expired) with the
// validator every extraction passes, before anything is created: a
// correction that does not add up is a *jobs.ValidationError naming the
// fields and the failing check. One that does is written into req: the
// corrections, each field's change for the audit, and not_an_invoice when
// it overrules that verdict. A job that is not a dead letter is left to
// the store, which refuses it as for any reprocess.
func (s *Server) prepareCorrections(ctx context.Context, job *jobs.Job, req *jobs.ReprocessRequest, c *extract.Corrections) error {
	if c == nil || job.State != jobs.StateDeadLettered {
		return nil
	}
	if req.Content != nil {
		return &jobs.ValidationError{Fields: []jobs.FieldError{{Field: "corrections",
			Problem: "cannot be combined with content: corrections are put over what was read from the stored document"}}}
	}
	kept, err := s.kept(ctx, job)
	if err != nil {
		return err
	}
	var base *extract.Extraction
	if kept != nil {
		base = kept.Fields
	}
	if _, err := extract.ValidateCorrected(base, *c); err != nil {
		var r *extract.Rejection
		if errors.As(err, &r) {
			return correctionErrors(r)
		}
		return err
	}
	if req.Corrections, err = json.Marshal(c); err != nil {
		return err
	}
	from := extract.Extraction{}
	if base != nil {
		from = *base
	}
	if req.Changes, err = json.Marshal(c.Changes(from)); err != nil {
		return err
	}
	if job.ErrorReason == extract.ReasonNotAnInvoice {
		req.Overruled = extract.ReasonNotAnInvoice
	}
	return nil
}

// kept is what a rejected job kept of its extraction, or nil.
func (s *Server) kept(ctx context.Context, job *jobs.Job) (*extract.Kept, error) {
	if job.State != jobs.StateDeadLettered || job.ErrorReason == "" {
		return nil, nil
	}
	raw, err := s.store.Rejection(ctx, job.Key)
	switch {
	case errors.Is(err, jobs.ErrResultExpired), errors.Is(err, jobs.ErrNotDeadLettered), errors.Is(err, jobs.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	var k extract.Kept
	if err := json.Unmarshal(raw, &k); err != nil {
		return nil, fmt.Errorf("api: rejection %s: stored detail is not JSON", job.Key)
	}
	return &k, nil
}

// addKept shows what a job rejected for its content kept, beside its
// errorReason, to its tenant and to operators.
func (s *Server) addKept(ctx context.Context, job *jobs.Job, v *jobView) error {
	k, err := s.kept(ctx, job)
	if err != nil {
		return err
	}
	v.Extraction = k
	return nil
}

// committedExtraction is the committed result of k as the extraction a
// decision's corrections are put over.
func (s *Server) committedExtraction(ctx context.Context, k jobs.Key) (extract.Extraction, error) {
	res, err := s.store.Result(ctx, k)
	if err != nil {
		return extract.Extraction{}, err
	}
	var inv extract.Invoice
	if err := json.Unmarshal(res, &inv); err != nil {
		return extract.Extraction{}, fmt.Errorf("api: result %s: stored result is not an invoice", k)
	}
	return extract.ExtractionOf(inv), nil
}

// decisionCorrections judges an approval's corrections over the committed
// result and returns what the store records, nil without corrections.
func (s *Server) decisionCorrections(ctx context.Context, k jobs.Key, c *extract.Corrections) (*jobs.DecideOpts, error) {
	if c == nil {
		return nil, nil
	}
	base, err := s.committedExtraction(ctx, k)
	if errors.Is(err, jobs.ErrResultExpired) {
		return nil, &jobs.ValidationError{Fields: []jobs.FieldError{{Field: "corrections", Problem: "cannot be applied: the result has expired"}}}
	}
	if err != nil {
		return nil, err
	}
	if _, err := extract.ValidateCorrected(&base, *c); err != nil {
		var r *extract.Rejection
		if errors.As(err, &r) {
			return nil, correctionErrors(r)
		}
		return nil, err
	}
	o := &jobs.DecideOpts{Fields: c.Fields()}
	if o.Corrections, err = json.Marshal(c); err != nil {
		return nil, err
	}
	if o.Changes, err = json.Marshal(c.Changes(base)); err != nil {
		return nil, err
	}
	return o, nil
}

// addReviewCorrections shows the corrected fields of an approval and the
// result with them; the job's own result stays the extractor's.
func (s *Server) addReviewCorrections(ctx context.Context, r *jobs.Review, v *reviewView) error {
	raw, err := s.store.ReviewCorrections(ctx, r.Key)
	if err != nil || raw == nil {
		return err
	}
	var c extract.Corrections
	if err := json.Unmarshal(raw, &c); err != nil {
		return fmt.Errorf("api: review corrections %s: not JSON", r.Key)
	}
	v.CorrectedFields = c.Fields()
	base, err := s.committedExtraction(ctx, r.Key)
	if errors.Is(err, jobs.ErrResultExpired) {
		return nil
	}
	if err != nil {
		return err
	}
	inv, err := extract.ValidateCorrected(&base, c)
	if err != nil {
		return nil // judged when decided; a result that no longer passes shows its fields only
	}
	v.CorrectedResult, err = json.Marshal(inv)
	return err
}
