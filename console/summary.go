package console

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// summary is what a reviewer scans a list for: who, which invoice, how
// much. Empty members were not read (or have expired).
type summary struct {
	Vendor, Number, Total string
	// Type is the document type in words ("credit note"); Credit marks a
	// document that takes from what is owed, whose Total is signed.
	Type   string
	Credit bool
}

// reviewSummary reads a review's committed result; a result that is gone
// or unreadable summarises as nothing.
func (c *Console) reviewSummary(r *http.Request, k jobs.Key) summary {
	res, err := c.ops.Result(r.Context(), k)
	if err != nil {
		return summary{}
	}
	var inv extract.Invoice
	if json.Unmarshal(res, &inv) != nil {
		return summary{}
	}
	s := summary{Vendor: inv.Vendor, Number: inv.InvoiceNumber, Total: money(inv.Total, inv.Currency),
		Type: typeWord(inv.DocumentType), Credit: inv.Direction == extract.DirectionCredit}
	if s.Credit && inv.SignedTotal != "" {
		s.Total = signedMoney(inv.SignedTotal, inv.Currency)
	}
	return s
}

// deadSummary reads what a rejected job kept of its extraction.
func (c *Console) deadSummary(r *http.Request, j *jobs.Job) summary {
	if j.ErrorReason == "" {
		return summary{}
	}
	k, err := c.ops.Kept(r.Context(), j)
	if err != nil || k == nil || k.Fields == nil {
		return summary{}
	}
	s := summary{Vendor: k.Fields.Vendor, Number: k.Fields.InvoiceNumber, Total: money(k.Fields.Total, k.Fields.Currency)}
	if extract.IsBooked(k.Fields.DocumentType) {
		s.Type = typeWord(k.Fields.DocumentType)
	}
	return s
}

// money writes a canonical decimal amount ("141500.00") grouped as the
// currency writes it: thousands for most ("141,500.00 USD"), lakhs and
// crores for the Indian rupee ("1,41,500.00 INR"). An amount that is not a
// canonical decimal is shown as it is.
func money(amount, currency string) string {
	if amount == "" {
		return ""
	}
	neg := strings.HasPrefix(amount, "-")
	whole, frac, hasFrac := strings.Cut(strings.TrimPrefix(amount, "-"), ".")
	if whole == "" || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return strings.TrimSpace(amount + " " + currency)
	}
	grouped := group(whole, currency == "INR")
	if hasFrac {
		grouped += "." + frac
	}
	if neg {
		grouped = "-" + grouped
	}
	return strings.TrimSpace(grouped + " " + currency)
}

// group inserts thousands separators; lakh groups the digits above the
// last three in pairs.
func group(digits string, lakh bool) string {
	if len(digits) <= 3 {
		return digits
	}
	head, tail := digits[:len(digits)-3], digits[len(digits)-3:]
	size := 3
	if lakh {
		size = 2
	}
	var parts []string
	for len(head) > size {
		parts = append([]string{head[len(head)-size:]}, parts...)
		head = head[:len(head)-size]
	}
	parts = append([]string{head}, parts...)
	return strings.Join(append(parts, tail), ",")
}

// nextReview goes to the oldest pending review other than the one the
// operator comes from (?after=), or back to the queue when there is none:
// the keyboard's "next review".
func (c *Console) nextReview(w http.ResponseWriter, r *http.Request) {
	after := r.URL.Query().Get("after")
	pg, err := c.ops.ListReviews(r.Context(), jobs.ReviewOptions{Status: jobs.ReviewPending, Oldest: true, Limit: 2})
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	for _, rv := range pg.Reviews {
		if rv.Key.String() != after {
			http.Redirect(w, r, c.cfg.RootPath+"/reviews/"+rv.Key.String(), http.StatusSeeOther)
			return
		}
	}
	http.Redirect(w, r, c.cfg.RootPath+"/reviews", http.StatusSeeOther)
}

// auditChanges decodes an audit entry's corrected fields, each value as
// a person reads it (a list's rows rather than its JSON); nil when none
// (or unreadable).
func auditChanges(b []byte) []extract.FieldChange {
	var out []extract.FieldChange
	if len(b) == 0 || json.Unmarshal(b, &out) != nil {
		return nil
	}
	for i, c := range out {
		out[i].Old, out[i].New = changeText(c.Field, c.Old), changeText(c.Field, c.New)
	}
	return out
}

// changeText is an audited value as a person reads it: a list or an
// object (written as JSON) as valueText writes it, anything else as it is.
func changeText(field, value string) string {
	if !strings.HasPrefix(value, "[") && !strings.HasPrefix(value, "{") {
		return value
	}
	var x extract.Extraction
	if json.Unmarshal([]byte(`{"`+field+`":`+value+`}`), &x) != nil {
		return value
	}
	if s := valueText(x, field); s != "" {
		return s
	}
	return value
}
