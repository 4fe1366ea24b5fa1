package supplier

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"time"

	"github.com/relayops/relayops/extract"
)

// A supplier profile is what relayops learned of one supplier's documents
// from the values people confirmed on them (a correction, an approval):
// for each field, the label printed before its value and where the value
// stands relative to it, and the form the value is printed in. It is
// small, explainable data, never a model: each anchor can be shown to a
// person as "the total is right of 'Gesamtbetrag', written 1.234,56 €,
// learned from job …".
//
// A profile proposes, the validator decides. Read returns only what an
// anchor finds at its label in its learned form (a label that is not on
// the page, or a value that does not parse as learned, reads nothing);
// Overlay puts that over the rules' extraction, and
// extract.ValidateExtraction judges the result exactly as it judges any
// other: a profile can never make amounts that do not add up pass.

// Profile is what relayops learned of one supplier's documents. It is
// stored sealed as JSON, bound to the supplier's identity.
type Profile struct {
	// Version is raised by one per learning.
	Version int `json:"version"`
	// Vendor is the issuer's name as a person gave or approved it: the
	// name of an issuer that prints only a logo comes from here.
	Vendor string `json:"vendor,omitempty"`
	// Currency is the currency people confirmed; Read gives it only where
	// an amount is printed with the marker it was learned with.
	Currency string `json:"currency,omitempty"`
	// Language is the language of the documents' labels, when the
	// learning can tell (an ISO 639-1 code; "nordic" for the Scandinavian
	// languages, whose labels are alike).
	Language string `json:"language,omitempty"`
	// Anchors are, per field name (invoiceNumber, issueDate, dueDate,
	// subtotal, tax, total, vendor, currency), where its value is.
	Anchors map[string]Anchor `json:"anchors"`
	// Learned is the history of learnings, newest last, at most
	// MaxLearned entries.
	Learned []LearnedFrom `json:"learned"`
	// Numbers are short hashes of the invoice numbers of the documents it
	// learned from, newest last, at most MaxNumbers: a number it finds
	// again is another document's (a credit note's reference to the
	// invoice it credits, a copy already booked), which a read does not
	// give as this document's.
	Numbers []string `json:"numbers,omitempty"`
	// Reads counts the documents read with this profile, Misses those of
	// them that were then rejected or corrected (see Flagged), in a
	// process that keeps the profile (evalreal's replay). They are not
	// stored with it: the store counts a stored profile's reads beside it
	// (Store.CountRead, StoredProfile.Reads), without rewriting it.
	Reads  int `json:"-"`
	Misses int `json:"-"`
}

// Anchor says where one field's value is on a supplier's documents.
type Anchor struct {
	// Relation is how the value stands to its label: RelationRight,
	// RelationBelow, or, with no label, RelationName (the vendor's name
	// printed anywhere), RelationIdentity (a vendor the page does not
	// print), RelationMarker (a currency told by the marker printed with
	// the amounts) or RelationComputed (a subtotal or tax the layout does
	// not print).
	Relation string `json:"relation"`
	// Label is the label as printed on the document it was learned from
	// ("Rechnungsnummer:"); Match is the form a read looks for: its words
	// in lower case, each run of digits written '#' ("mwst. #%"), joined by
	// one space. A label matches only at the start of a cell (the line's
	// start, or after a gap of two spaces or more).
	Label string `json:"label,omitempty"`
	Match string `json:"match,omitempty"`
	// Below is, for RelationBelow, which cell under the label in its
	// column holds the value (1: the first below it).
	Below int `json:"below,omitempty"`
	// Occurrence is which of the label's matches that give a value in the
	// learned form holds it (1-based, from the top), of Occurrences on the
	// document it was learned from: the total's row among several. When a
	// document has another number of matches, the first or the last one
	// is still found, any other is not.
	Occurrence  int `json:"occurrence,omitempty"`
	Occurrences int `json:"occurrences,omitempty"`
	// Page is where it was learned, for the person reading the profile;
	// Region the side of the page ("left", "right") its value stood on,
	// where a text or a date must stand to be read.
	Page   int    `json:"page,omitempty"`
	Region string `json:"region,omitempty"`
	// Format is the form of the value.
	Format Format `json:"format,omitzero"`
	// Job is the job whose correction or approval taught the anchor;
	// Confirmed counts the later learnings that found it again.
	Job       string `json:"job,omitempty"`
	Confirmed int    `json:"confirmed,omitempty"`
	// Alternate is the anchor of the same field in a second layout of the
	// supplier's (its credit notes print "Gutschriftsnummer" where its
	// invoices print "Rechnungsnummer"), read only where this anchor's
	// label is not printed. It has no alternate of its own.
	Alternate *Anchor `json:"alternate,omitempty"`
}

// Relations of an Anchor.
const (
	// RelationRight: the value follows the label on its line.
	RelationRight = "right"
	// RelationBelow: the value is under the label, in its column.
	RelationBelow = "below"
	// RelationName: the vendor's name as printed anywhere on the page.
	RelationName = "name"
	// RelationIdentity: the vendor is not printed (a logo); the name is
	// the one a person gave for the supplier the page's identifiers name.
	RelationIdentity = "identity"
	// RelationMarker: the currency of the amounts printed with Label, the
	// marker they were learned with ("€", "PLN").
	RelationMarker = "marker"
	// RelationComputed: the layout does not print the field (a subtotal
	// only the lines or the total tell, a tax of zero); the validator
	// derives it and marks it computed.
	RelationComputed = "computed"
)

// Format is the printed form of an anchored value. Empty members are not
// known (an amount below 1,000 shows no grouping).
type Format struct {
	// Kind is FormatAmount, FormatDate or FormatText.
	Kind string `json:"kind"`
	// Decimal and Group are an amount's decimal mark and thousands
	// separator ("," and "." in "1.234,56"); Currency is the marker
	// printed beside it ("€", "PLN", "$"), "" for none.
	Decimal  string `json:"decimal,omitempty"`
	Group    string `json:"group,omitempty"`
	Currency string `json:"currency,omitempty"`
	// Order is a date's order ("DMY", "MDY", "YMD"; "" when the learned
	// date could not tell day from month), Separator what separates its
	// parts, MonthNames whether the month is written as a word, YearDigits
	// 2 or 4.
	Order      string `json:"order,omitempty"`
	Separator  string `json:"separator,omitempty"`
	MonthNames bool   `json:"monthNames,omitempty"`
	YearDigits int    `json:"yearDigits,omitempty"`
	// Shape is a text value's shape: each run of letters written 'A', of
	// digits '9', other characters as printed ("RE-2024-0311" is
	// "A-9-9"); Prefix and Suffix are what is printed before and after it
	// in the same word ("#" in "#202410712"); Words is its number of words.
	Shape  string `json:"shape,omitempty"`
	Prefix string `json:"prefix,omitempty"`
	Suffix string `json:"suffix,omitempty"`
	Words  int    `json:"words,omitempty"`
}

// Kinds of Format.
const (
	FormatAmount = "amount"
	FormatDate   = "date"
	FormatText   = "text"
)

// LearnedFrom is one learning: whose decision on which job taught what.
type LearnedFrom struct {
	Job      string    `json:"job"`
	Operator string    `json:"operator,omitempty"`
	At       time.Time `json:"at"`
	// Fields are the fields the person corrected (for an approval, those
	// corrected with it, if any); a field listed with an empty value was
	// removed.
	Fields []string `json:"fields,omitempty"`
	// Kind is LearnedCorrection or LearnedApproval.
	Kind string `json:"kind"`
	// Anchored are the fields whose anchor this learning set or confirmed.
	Anchored []string `json:"anchored,omitempty"`
}

// Kinds of learning.
const (
	LearnedCorrection = "correction"
	LearnedApproval   = "approval"
)

// MaxLearned bounds Profile.Learned and MaxNumbers Profile.Numbers:
// older entries are dropped.
const (
	MaxLearned = 20
	MaxNumbers = 32
)

// numberHash is the short hash of an invoice number Profile.Numbers keeps
// (its normalised form, as the duplicate check compares numbers).
func numberHash(number string) string {
	sum := sha256.Sum256([]byte(NormalizeNumber(number)))
	return hex.EncodeToString(sum[:6])
}

// Values are the values a person confirmed on one document, canonical as
// the validator commits them: amounts "1234.56" (signed as printed), dates
// YYYY-MM-DD. An empty value is not known.
type Values struct {
	DocumentType, InvoiceNumber, IssueDate, DueDate, Currency, Vendor, Subtotal, Tax, Total string
}

// ValuesOf are the values of a committed invoice, for an approval.
func ValuesOf(inv *extract.Invoice) Values {
	return Values{
		DocumentType: inv.DocumentType, InvoiceNumber: inv.InvoiceNumber, IssueDate: inv.IssueDate,
		DueDate: inv.DueDate, Currency: inv.Currency, Vendor: inv.Vendor, Subtotal: inv.Subtotal,
		Tax: inv.Tax, Total: inv.Total,
	}
}

// Profile fields, the keys of Anchors.
const (
	fieldNumber    = "invoiceNumber"
	fieldIssueDate = "issueDate"
	fieldDueDate   = "dueDate"
	fieldSubtotal  = "subtotal"
	fieldTax       = "tax"
	fieldTotal     = "total"
	fieldVendor    = "vendor"
	fieldCurrency  = "currency"
)

// amountFields are the anchored amounts, in the order a currency marker
// is looked for among them.
var amountFields = []string{fieldTotal, fieldSubtotal, fieldTax}

// value returns v's value of field.
func (v Values) value(field string) string {
	switch field {
	case fieldNumber:
		return v.InvoiceNumber
	case fieldIssueDate:
		return v.IssueDate
	case fieldDueDate:
		return v.DueDate
	case fieldSubtotal:
		return v.Subtotal
	case fieldTax:
		return v.Tax
	case fieldTotal:
		return v.Total
	case fieldVendor:
		return v.Vendor
	case fieldCurrency:
		return v.Currency
	}
	return ""
}

// Flagged reports whether the profile's reads keep being rejected or
// corrected (FlaggedCounts): a person should look at it, and may delete it.
func (p *Profile) Flagged() bool {
	return p != nil && FlaggedCounts(p.Reads, p.Misses)
}

// CountRead counts one document read with the profile: missed when it
// was then rejected, or a person corrected what it read. It changes the
// counters only, not the version.
func (p *Profile) CountRead(missed bool) {
	p.Reads++
	if missed {
		p.Misses++
	}
}

// Fields lists the fields the profile has an anchor for, sorted.
func (p *Profile) Fields() []string {
	if p == nil {
		return nil
	}
	out := make([]string, 0, len(p.Anchors))
	for f := range p.Anchors {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// Ref is how evidence names a profile: "<supplier>@v<version>".
func Ref(supplierID string, version int) string {
	return supplierID + "@v" + itoa(version)
}

// PagesOf splits a read document's text (its pages each ended by a form
// feed, as document.Document.Text writes them) into its pages.
func PagesOf(text string) []Page {
	pages := strings.Split(text, "\f")
	if len(pages) > 1 && pages[len(pages)-1] == "" {
		pages = pages[:len(pages)-1]
	}
	return pages
}
