package extract

import (
	"slices"
	"strings"
	"unicode"

	"github.com/relayops/relayops/einvoice"
)

// The schemes of identifiers an e-invoice names (ISO 6523 ICD for BT-29
// and BT-30, the EAS list for BT-34, which shares the ICD codes) that
// tell a supplier apart: a GS1 GLN, and national company registers.
const schemeGLN = "0088"

// legalSchemes are the company registers among the ISO 6523 ICD codes:
// France's SIRENE (0002) and SIRET (0009), Sweden's organisation number
// (0007), Finland's business ID (0037), the Dutch KvK (0106), the Swiss UID
// (0183), Denmark's CVR (0184), Norway's organisation number (0192),
// Belgium's enterprise number (0208).
var legalSchemes = []string{"0002", "0007", "0009", "0037", "0106", "0183", "0184", "0192", "0208"}

// einvoiceSeller are the seller's identifiers the XML states, strongest
// first and each once: its VAT identifier (BT-31), tax number (BT-32),
// legal registration (BT-30, or a BT-29 or BT-34 in a company register's
// scheme), GLN (13 digits in scheme 0088 of BT-29, BT-30 or BT-34), the IBAN it asks to
// be paid to (BT-84) and the domain of its e-mail address (BT-34, scheme
// EM). An identifier without a scheme that says what it is (a BT-29
// supplier number in the buyer's system) is left out, and so is a tax or
// legal "identifier" without a digit (Peppol's "Godkänd för F-skatt").
func einvoiceSeller(inv *einvoice.Invoice) []PartyID {
	ids := map[string][]string{}
	add := func(scheme, id string) {
		if id != "" && printedText(id, maxNumberRunes) && !slices.Contains(ids[scheme], id) {
			ids[scheme] = append(ids[scheme], id)
		}
	}
	add(IDVAT, compact(inv.SellerVATID))
	add(IDTax, registration(inv.SellerTaxID))
	if inv.SellerLegalID.Scheme == schemeGLN {
		add(IDGLN, gln(inv.SellerLegalID.ID))
	} else {
		add(IDLegal, registration(inv.SellerLegalID.ID))
	}
	// BT-29 and BT-34 by their scheme; an e-mail address is only BT-34's
	byScheme := func(id einvoice.Identifier) {
		switch scheme := strings.ToUpper(strings.TrimSpace(id.Scheme)); {
		case scheme == schemeGLN:
			add(IDGLN, gln(id.ID))
		case slices.Contains(legalSchemes, scheme):
			add(IDLegal, registration(id.ID))
		}
	}
	for _, id := range inv.SellerIDs {
		byScheme(id)
	}
	byScheme(inv.SellerEndpoint)
	if strings.EqualFold(strings.TrimSpace(inv.SellerEndpoint.Scheme), "EM") {
		add(IDEmail, emailDomain(inv.SellerEndpoint.ID))
	}
	add(IDIBAN, compact(inv.IBAN))
	var out []PartyID
	for _, scheme := range []string{IDVAT, IDTax, IDLegal, IDGLN, IDIBAN, IDEmail} {
		for _, id := range ids[scheme] {
			out = append(out, PartyID{Scheme: scheme, ID: id})
		}
	}
	return out
}

// gln is a GS1 global location number: 13 digits ("" for anything else).
func gln(s string) string {
	s = compact(s)
	if len(s) != 13 || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return ""
	}
	return s
}

// compact is an identifier without its white space ("DE 123 456 789").
func compact(s string) string { return strings.Join(strings.Fields(s), "") }

// registration is a tax or register number as written, its white space
// collapsed ("HRB 12345"), when it has a digit: an identifier, not words.
func registration(s string) string {
	s = collapseSpace(s)
	if strings.IndexFunc(s, unicode.IsDigit) < 0 {
		return ""
	}
	return s
}

// emailDomain is the domain of an e-mail address, lower case.
func emailDomain(s string) string {
	_, domain, ok := strings.Cut(strings.TrimSpace(s), "@")
	if !ok || strings.ContainsAny(domain, "@ ") || !strings.Contains(domain, ".") {
		return ""
	}
	return strings.ToLower(domain)
}
