package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// BookedTypes are the document types relayops books: each is extracted,
// judged by the same arithmetic and reviewed. A Policy chooses which of
// them a deployment accepts.
var BookedTypes = []string{DocInvoice, DocCreditNote, DocCorrectiveInvoice}

// IsBooked reports whether t is one of BookedTypes.
func IsBooked(t string) bool { return slices.Contains(BookedTypes, t) }

// creditTypes may carry negative amounts as printed ("-8.79" on a
// Rechnungskorrektur); an invoice whose total is negative is a credit
// note (bookedType).
func creditType(t string) bool { return t == DocCreditNote || t == DocCorrectiveInvoice }

// bookedType is the type and direction a judged document is booked as:
// an invoice whose total is negative takes money back, so it is a credit
// note; a credit note always credits; a corrective invoice credits when
// its total is negative and debits otherwise.
func bookedType(t string, total int64) (docType, direction string) {
	switch {
	case t == DocInvoice && total < 0:
		return DocCreditNote, DirectionCredit
	case t == DocCreditNote, t == DocCorrectiveInvoice && total < 0:
		return t, DirectionCredit
	}
	return t, DirectionDebit
}

// signedTotal is total with the sign of direction: negative for a credit,
// whatever sign the document printed.
func signedTotal(total int64, direction string) int64 {
	if total < 0 {
		total = -total
	}
	if direction == DirectionCredit {
		return -total
	}
	return total
}

// Policy is what a deployment books (RELAYOPS_ACCEPT_DOCUMENTS). The zero
// value accepts every booked type.
type Policy struct {
	// Accept lists the booked types accepted; empty: all of BookedTypes.
	Accept []string
}

// ParseAcceptedTypes reads a comma-separated list of booked types
// ("invoice,creditNote"), for the configuration.
func ParseAcceptedTypes(s string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if !IsBooked(t) {
			return nil, fmt.Errorf("%q is not a document type relayops books (one of %s)", t, strings.Join(BookedTypes, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("names no document type (one or more of %s)", strings.Join(BookedTypes, ", "))
	}
	return out, nil
}

// Accepts reports whether the policy books documents of type t.
func (p Policy) Accepts(t string) bool {
	return len(p.Accept) == 0 && IsBooked(t) || slices.Contains(p.Accept, t)
}

// Admit is the policy's verdict on a judged document: nil when its type
// is accepted, else a *Rejection document_not_accepted that keeps what was
// read (x, when given), so a person can still see it.
func (p Policy) Admit(inv *Invoice, x *Extraction) error {
	if inv == nil || p.Accepts(inv.DocumentType) {
		return nil
	}
	r := &Rejection{Reason: ReasonNotAccepted, Fields: []string{"documentType"}}
	if x != nil {
		kept := *x
		r.Extraction = &kept
	}
	return r
}

// WithPolicy returns x whose validate stage also admits what it judged by
// p (a *Rejection document_not_accepted for a type p does not book); x
// itself when p books every type.
func WithPolicy(x Extractor, p Policy) Extractor {
	if len(p.Accept) == 0 {
		return x
	}
	return &admitting{Extractor: x, policy: p}
}

// admitting is an Extractor whose Validate admits by a Policy.
type admitting struct {
	Extractor
	policy Policy
}

func (a *admitting) Validate(ctx context.Context, extraction []byte) ([]byte, error) {
	out, err := a.Extractor.Validate(ctx, extraction)
	if err != nil {
		return nil, err
	}
	var inv Invoice
	if err := json.Unmarshal(out, &inv); err != nil {
		return nil, fmt.Errorf("%w: policy: the result is not JSON", ErrPermanent)
	}
	x, _ := DecodeExtraction(extraction)
	if err := a.policy.Admit(&inv, &x); err != nil {
		return nil, err
	}
	return out, nil
}
