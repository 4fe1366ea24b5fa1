package supplier

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"unicode"

	"github.com/relayops/relayops/extract"
)

// Fingerprint is what the duplicate check knows of a committed document:
// hashes only (salted with the tenant), never its values, so it may travel
// in an outbox row. Its supplier is resolved when it is claimed, from its
// identity keys.
type Fingerprint struct {
	// Keys are the supplier's identity keys ("vat:<hash>", …, "name:<hash>"),
	// strongest first.
	Keys []string
	// Number is the hash of the normalised number and the document type;
	// Amount of the total, the issue date and the type; Total of the total
	// alone (to tell a number match with another total).
	Number, Amount, Total string
	// Preceding is the hash of the number of the invoice a credit note or
	// corrective invoice refers to, as an invoice's Number would be; "".
	Preceding string
}

// FingerprintOf is the fingerprint of a judged document of tenant: its
// supplier's identity (the identifiers it states, and its normalised name
// as the weakest key), its number, total, date and type.
func FingerprintOf(tenant string, inv *extract.Invoice) Fingerprint {
	h := func(parts ...string) string { return hash(tenant, strings.Join(parts, "\x1f")) }
	fp := Fingerprint{
		Number: h("n", inv.DocumentType, NormalizeNumber(inv.InvoiceNumber)),
		Amount: h("a", inv.DocumentType, inv.SignedTotal, inv.IssueDate),
		Total:  h("t", inv.SignedTotal),
	}
	for _, k := range IdentityKeys(inv) {
		scheme, _, _ := strings.Cut(k, ":")
		fp.Keys = append(fp.Keys, scheme+":"+h("id", k)[:24])
	}
	if inv.PrecedingInvoice != "" {
		fp.Preceding = h("n", extract.DocInvoice, NormalizeNumber(inv.PrecedingInvoice))
	}
	return fp
}

// IdentityKeys are the identity keys of a document's supplier, in
// clear ("vat:DE123456789", "name:acme"), strongest first, each once.
func IdentityKeys(inv *extract.Invoice) []string {
	ids := slices.Clone(inv.Seller)
	if v := NormalizeVAT(inv.SellerVATID); v != "" {
		ids = append(ids, extract.PartyID{Scheme: extract.IDVAT, ID: v})
	}
	if v := NormalizeIBAN(inv.IBAN); v != "" {
		ids = append(ids, extract.PartyID{Scheme: extract.IDIBAN, ID: v})
	}
	var out []string
	for _, scheme := range schemeOrder {
		for _, id := range ids {
			if id.Scheme != scheme {
				continue
			}
			if v := normalizeID(scheme, id.ID); v != "" && !slices.Contains(out, scheme+":"+v) {
				out = append(out, scheme+":"+v)
			}
		}
	}
	if n := NormalizeName(inv.Vendor); n != "" {
		out = append(out, "name:"+n)
	}
	return out
}

// normalizeID is an identifier of scheme in the one form the page and the
// XML agree on: a VAT id and an IBAN as their normalisers write them (as
// stated, compacted, when the form is not one they check), an e-mail by
// NormalizeEmail (a bare free-mail domain identifies nobody: ""), any
// other compacted in upper case.
func normalizeID(scheme, id string) string {
	compact := strings.ToUpper(strings.Join(strings.Fields(id), ""))
	switch scheme {
	case extract.IDVAT:
		return cmp.Or(NormalizeVAT(id), compact)
	case extract.IDIBAN:
		return cmp.Or(NormalizeIBAN(id), compact)
	case extract.IDGLN:
		return NormalizeGLN(id)
	case extract.IDEmail:
		if strings.Contains(id, "@") {
			return NormalizeEmail(id)
		}
		if d := strings.ToLower(strings.TrimSpace(id)); !freeMail[d] && strings.Contains(d, ".") {
			return d
		}
		return ""
	}
	return compact
}

// NormalizeNumber is an invoice number as the duplicate check compares
// it: its letters and digits in upper case ("INV 0046", "inv-0046" and
// "INV/0046" are one number), leading zeros dropped from a number of
// digits only ("00123" is "123").
func NormalizeNumber(s string) string {
	n := strings.ToUpper(strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, s))
	if strings.Trim(n, "0123456789") == "" {
		n = strings.TrimLeft(n, "0")
	}
	return n
}

func hash(tenant, s string) string {
	sum := sha256.Sum256([]byte(tenant + "\x00" + s))
	return hex.EncodeToString(sum[:16])
}

// Encode writes fp as one outbox field: its parts separated by '|', the
// keys by ','.
func (fp Fingerprint) Encode() string {
	return strings.Join([]string{strings.Join(fp.Keys, ","), fp.Number, fp.Amount, fp.Total, fp.Preceding}, "|")
}

// ErrBadFingerprint: an outbox field that is not an encoded fingerprint.
var ErrBadFingerprint = errors.New("supplier: malformed fingerprint")

// DecodeFingerprint reads what Encode wrote.
func DecodeFingerprint(s string) (Fingerprint, error) {
	parts := strings.Split(s, "|")
	if len(parts) != 5 || parts[1] == "" || parts[2] == "" || parts[3] == "" {
		return Fingerprint{}, ErrBadFingerprint
	}
	fp := Fingerprint{Number: parts[1], Amount: parts[2], Total: parts[3], Preceding: parts[4]}
	if parts[0] != "" {
		fp.Keys = strings.Split(parts[0], ",")
	}
	if len(fp.Keys) == 0 || len(fp.Keys) > maxIdentityKeys {
		return Fingerprint{}, ErrBadFingerprint
	}
	for _, k := range fp.Keys {
		if scheme, _, ok := strings.Cut(k, ":"); !ok || !slices.Contains(append(schemeOrder, "name"), scheme) {
			return Fingerprint{}, ErrBadFingerprint
		}
	}
	return fp, nil
}

// maxIdentityKeys bounds the keys a claim resolves.
const maxIdentityKeys = 16
