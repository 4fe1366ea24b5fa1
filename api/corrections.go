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

// The members of the objects a correction's lists hold.
var (
	correctionLineFields   = []string{"description", "quantity", "unitPrice", "amount"}
	correctionChargeFields = []string{"kind", "amount", "reason"}
	correctionRateFields   = []string{"rate", "taxableAmount", "taxAmount", "category"}
	correctionTaxFields    = []string{"currency", "amount"}
)

// takeCorrections takes the body's optional "corrections" member: an
// object of the fields in extract.CorrectionFields. Scalars are strings
// (amounts as canonical decimals, "-8.79", "1234.56"; dates YYYY-MM-DD),
// taxIncluded is true or false, lineItems, charges and taxBreakdown are
// arrays of objects of strings (an empty array removes what was read),
// accountingTax is {currency, amount} (null or {} removes it). Every
// problem is collected on o under "corrections.<field>"; nil when absent
// or unreadable.
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
	bad := len(o.fields)
	for _, name := range sortedKeys(members) {
		takeCorrection(o, c, name, members[name])
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

// takeCorrection reads member name of the corrections into c.
func takeCorrection(o *object, c *extract.Corrections, name string, raw json.RawMessage) {
	field := "corrections." + truncate(name, 64)
	if dst := c.Scalar(name); dst != nil {
		v, ok := correctionString(o, field, raw)
		if ok && name == "documentType" && !extract.IsBooked(v) {
			o.fail(field, invalidWords["documentType"])
			return
		}
		if ok {
			*dst = &v
		}
		return
	}
	switch name {
	case "taxIncluded":
		var v bool
		if json.Unmarshal(raw, &v) != nil {
			o.fail(field, "must be true or false")
			return
		}
		c.TaxIncluded = &v
	case "lineItems":
		if items, ok := correctionObjects(o, field, raw, correctionLineFields, "description, quantity, unitPrice and amount"); ok {
			lines := make([]extract.ExtractedLine, len(items))
			for i, m := range items {
				lines[i] = extract.ExtractedLine{Description: m["description"], Quantity: m["quantity"], UnitPrice: m["unitPrice"], Amount: m["amount"]}
			}
			c.LineItems = &lines
		}
	case "charges":
		if items, ok := correctionObjects(o, field, raw, correctionChargeFields, "kind, amount and reason"); ok {
			c.Charges = correctionCharges(o, field, items)
		}
	case "taxBreakdown":
		if items, ok := correctionObjects(o, field, raw, correctionRateFields, "rate, taxableAmount, taxAmount and category"); ok {
			rates := make([]extract.TaxSubtotal, len(items))
			for i, m := range items {
				rates[i] = extract.TaxSubtotal{Rate: m["rate"], TaxableAmount: m["taxableAmount"], TaxAmount: m["taxAmount"], Category: m["category"]}
			}
			c.TaxBreakdown = &rates
		}
	case "accountingTax":
		c.AccountingTax = correctionAccountingTax(o, field, raw)
	default:
		o.fail(field, "is not a field a correction may set (one of "+strings.Join(extract.CorrectionFields, ", ")+")")
	}
}

// correctionCharges are the charges of a correction. A charge's kind is
// optional: without one, a negative amount is a discount (an allowance)
// and any other a fee.
func correctionCharges(o *object, field string, items []map[string]string) *[]extract.Charge {
	kinds := []string{extract.ChargeShipping, extract.ChargeDiscount, extract.ChargeFee, extract.ChargeRounding}
	out := make([]extract.Charge, len(items))
	for i, m := range items {
		kind := m["kind"]
		switch {
		case kind == "" && strings.HasPrefix(m["amount"], "-"):
			kind = extract.ChargeDiscount
		case kind == "":
			kind = extract.ChargeFee
		case !slices.Contains(kinds, kind):
			o.fail(fmt.Sprintf("%s[%d].kind", field, i), "must be one of "+strings.Join(kinds, ", "))
		}
		out[i] = extract.Charge{Kind: kind, Amount: m["amount"], Reason: m["reason"]}
	}
	return &out
}

// correctionAccountingTax reads BT-111: {currency, amount}; null or {}
// removes it (an empty AccountingTax).
func correctionAccountingTax(o *object, field string, raw json.RawMessage) *extract.AccountingTax {
	if string(raw) == "null" {
		return &extract.AccountingTax{}
	}
	var m map[string]json.RawMessage
	if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		o.fail(field, "must be an object of currency and amount strings, or null to remove it")
		return nil
	}
	vals, ok := correctionMembers(o, field, m, correctionTaxFields)
	if !ok {
		return nil
	}
	return &extract.AccountingTax{Currency: vals["currency"], Amount: vals["amount"]}
}

// correctionObjects reads an array of objects whose members are strings
// among names; each problem names its place ("corrections.charges[1].amount").
func correctionObjects(o *object, field string, raw json.RawMessage, names []string, what string) ([]map[string]string, bool) {
	var items []map[string]json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil || slices.ContainsFunc(items, func(m map[string]json.RawMessage) bool { return m == nil }) {
		o.fail(field, "must be an array of objects of "+what+" strings")
		return nil, false
	}
	ok := true
	out := make([]map[string]string, len(items))
	for i, item := range items {
		var good bool
		out[i], good = correctionMembers(o, fmt.Sprintf("%s[%d]", field, i), item, names)
		ok = ok && good
	}
	return out, ok
}

// correctionMembers reads an object whose members are strings among names.
func correctionMembers(o *object, field string, m map[string]json.RawMessage, names []string) (map[string]string, bool) {
	ok := true
	out := map[string]string{}
	for _, name := range sortedKeys(m) {
		f := field + "." + truncate(name, 64)
		if !slices.Contains(names, name) {
			o.fail(f, "is not one of "+strings.Join(names, ", "))
			ok = false
			continue
		}
		v, good := correctionString(o, f, m[name])
		out[name], ok = v, ok && good
	}
	return out, ok
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
		o.fail(field, `must be a string (amounts as decimals such as "1234.56" or "-8.79", dates as YYYY-MM-DD)`)
		return "", false
	}
	v = strings.TrimSpace(v) // the payload hash sees what the validator sees
	if utf8.RuneCountInString(v) > maxCorrectionRunes || hasControl(v) {
		o.fail(field, fmt.Sprintf("must be at most %d characters, without control characters", maxCorrectionRunes))
		return "", false
	}
	return v, true
}

// checkWords say what a failing check means for the field it names, for
// the operator who fixes the form.
var checkWords = map[string]string{
	extract.ReasonMissingField:       "is required",
	extract.ReasonInvalidField:       "is not acceptable (its format, range or number of decimals)",
	extract.ReasonUnparseableAmount:  `is not a decimal amount such as "1234.56" or "-8.79"`,
	extract.ReasonAmbiguousDate:      "is ambiguous: give it as YYYY-MM-DD",
	extract.ReasonLineMismatch:       "does not add up: a line's amount must be its quantity times its unit price",
	extract.ReasonSubtotalMismatch:   "does not add up: the line items must sum to the subtotal",
	extract.ReasonTotalMismatch:      "does not add up: subtotal (or the lines) + charges + tax must be the total",
	extract.ReasonTaxMismatch:        "does not add up: the tax breakdown's tax amounts must sum to the tax, and its taxable amounts to the subtotal plus charges",
	extract.ReasonAmountDueMismatch:  "does not add up: the amount due must be the total less the paid amount plus the rounding",
	extract.ReasonModelOutputInvalid: "could not be read: give the fields",
	extract.ReasonNotAnInvoice:       "cannot make an invoice of this document",
	extract.ReasonNotAccepted:        "is a document type this deployment does not book (RELAYOPS_ACCEPT_DOCUMENTS)",
}

// invalidWords say, per field, what an acceptable value is.
var invalidWords = map[string]string{
	"invoiceNumber":    "must be the number as printed: 1 to 100 printable characters with a letter or digit, no control or invisible characters",
	"precedingInvoice": "must be the number as printed: 1 to 100 printable characters with a letter or digit, no control or invisible characters",
	"vendor":           "must be the name as printed: 1 to 200 printable characters, no control or invisible characters",
	"issueDate":        "must be a calendar date YYYY-MM-DD",
	"dueDate":          "must be a calendar date YYYY-MM-DD, not before the issue date",
	"currency":         "must be an ISO 4217 currency code such as EUR",
	"documentType":     "must be one of " + strings.Join(extract.BookedTypes, ", "),
	"charges":          "must each have a kind (shipping, discount, fee, rounding), an amount in the currency's decimals and a reason of at most 200 printable characters",
	"taxBreakdown":     "must each have a rate from 0 to 100 (percent, up to 4 decimals), a tax amount and an optional taxable amount in the currency's decimals, and an optional VAT category code (S, Z, E, AE, K, G, O, L, M)",
	"accountingTax":    "must be an ISO 4217 currency code and an amount in that currency's decimals",
}

// missingWords say, per field, what to give where the document prints
// none.
var missingWords = map[string]string{
	"issueDate": "is required: a document that prints no issue date is booked under the date you give (its delivery or tax point date)",
	"currency":  "is required: a document that prints no currency is booked in the one you give (the currency it is paid in)",
}

// correctionErrors turns the validator's rejection of corrected fields
// into the fields of a 400: each field the failing check concerns, with
// the check's code and what it means.
func correctionErrors(r *extract.Rejection) *jobs.ValidationError {
	check, field, _ := strings.Cut(r.Reason, ":")
	words := checkWords[check]
	if w := invalidWords[field]; check == extract.ReasonInvalidField && w != "" {
		words = w
	}
	if w := missingWords[field]; check == extract.ReasonMissingField && w != "" {
		words = w
	}
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

// judge is the API's side of extract.JudgeCorrections: the verdict on c
// over base, a *jobs.ValidationError naming each field of a failing check.
func (s *Server) judge(base *extract.Extraction, c extract.Corrections) (extract.Verdict, error) {
	v, err := extract.JudgeCorrections(base, c, s.cfg.Policy)
	var r *extract.Rejection
	if errors.As(err, &r) {
		return v, correctionErrors(r)
	}
	return v, err
}

// prepareCorrections judges corrections over what the dead job kept of
// its extraction (nothing, when it kept nothing or it expired) with
// extract.JudgeCorrections, before anything is created: a correction that
// does not add up is a *jobs.ValidationError naming the fields and the
// failing check. One that does is written into req: the effective
// corrections (with the removal of what they contradicted), the base they
// were judged over, which the worker judges again to commit the version,
// each field's change for the audit, and not_an_invoice when it overrules
// that verdict. A job that is not a dead letter is left to the store,
// which refuses it as for any reprocess.
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
	v, err := s.judge(base, *c)
	if err != nil {
		return err
	}
	if req.Corrections, err = json.Marshal(v.Effective); err != nil {
		return err
	}
	if req.Base, err = json.Marshal(base); err != nil {
		return err
	}
	from := extract.Extraction{}
	if base != nil {
		from = *base
	}
	if req.Changes, err = json.Marshal(v.Effective.Changes(from)); err != nil {
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
	k = k.WithStatus()
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
// result and returns what the store records, nil without corrections. A
// job without a review (not committed, or not yet reviewed) is not found,
// as the decision itself would be.
func (s *Server) decisionCorrections(ctx context.Context, k jobs.Key, c *extract.Corrections) (*jobs.DecideOpts, error) {
	if c == nil {
		return nil, nil
	}
	if _, err := s.store.GetReview(ctx, k); err != nil {
		return nil, err
	}
	base, err := s.committedExtraction(ctx, k)
	if errors.Is(err, jobs.ErrResultExpired) {
		return nil, &jobs.ValidationError{Fields: []jobs.FieldError{{Field: "corrections", Problem: "cannot be applied: the result has expired"}}}
	}
	if err != nil {
		return nil, err
	}
	v, err := s.judge(&base, *c)
	if err != nil {
		return nil, err
	}
	o := &jobs.DecideOpts{Fields: v.Effective.Fields()}
	if o.Corrections, err = json.Marshal(v.Effective); err != nil {
		return nil, err
	}
	if o.Changes, err = json.Marshal(v.Effective.Changes(base)); err != nil {
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
	verdict, err := extract.JudgeCorrections(&base, c, s.cfg.Policy)
	if err != nil {
		return nil // judged when decided; a result that no longer passes shows its fields only
	}
	v.CorrectedResult, err = json.Marshal(verdict.Invoice)
	return err
}
