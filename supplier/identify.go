package supplier

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/relayops/relayops/extract"
)

// Page is one page's layout text, as the read stage produced it.
type Page = string

// Vendor says where the extraction read the issuer's name, so the
// identifiers printed with it (in its column, its block) are told from the
// buyer's, which many invoices print in the same form.
type Vendor struct {
	Name string
	Page int // 1-based; 0: unknown
	Line int // 1-based within the page; 0: unknown
}

// Identify returns the issuer's identifiers printed on the pages (VAT id,
// IBAN, GLN, registration and tax numbers, e-mail), strongest scheme first,
// each once. An identifier is the buyer's, and left out, when a buyer
// label stands before it (on its line, or heading its block: "Bill to",
// "Kunden-Nr.", "Rechnungsempfänger", "client", "klant", …) or when it
// stands beside the issuer's block in another column; a scheme whose
// identifiers cannot be told apart is left out rather than guessed.
func Identify(pages []Page, v Vendor) []extract.PartyID {
	var found []hit
	for p, text := range pages {
		found = append(found, scanPage(p+1, text, v)...)
	}
	return sellerIDs(found)
}

// hit is one identifier on a page.
type hit struct {
	id   extract.PartyID
	role role
}

type role int

const (
	roleUnknown role = iota
	roleSeller
	roleBuyer
)

// schemeOrder ranks the schemes, strongest first.
var schemeOrder = []string{extract.IDVAT, extract.IDTax, extract.IDLegal, extract.IDGLN, extract.IDIBAN, extract.IDEmail}

// sellerIDs keeps the identifiers of the seller: those marked so, and
// those of unknown role in a scheme where they are the only candidate
// value (two unknown VAT ids are the seller's and the buyer's, which
// cannot be told apart).
func sellerIDs(hits []hit) []extract.PartyID {
	var out []extract.PartyID
	for _, scheme := range schemeOrder {
		var sellers, unknown []string
		for _, h := range hits {
			if h.id.Scheme != scheme {
				continue
			}
			switch h.role {
			case roleSeller:
				sellers = appendOnce(sellers, h.id.ID)
			case roleUnknown:
				unknown = appendOnce(unknown, h.id.ID)
			}
		}
		if len(sellers) == 0 && len(unknown) == 1 {
			sellers = unknown
		}
		for _, id := range sellers {
			out = append(out, extract.PartyID{Scheme: scheme, ID: id})
		}
	}
	return out
}

func appendOnce(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// Candidates on a line, before normalisation.
var (
	vatCandidate   = regexp.MustCompile(`(?i)\b(?:AT ?U|BE ?[01]|BG|CHE|CY|CZ|DE|DK|EE|EL|ES|FI|FR|GB|GR|HR|HU|IE|IT|LT|LU|LV|MT|NL|NO|PL|PT|RO|SE|SI|SK|XI)[ .\-]?[0-9A-Z][0-9A-Z .\-]{6,16}[0-9A-Z]\b`)
	ibanCandidate  = regexp.MustCompile(`\b[A-Z]{2}[0-9]{2}(?: ?[0-9A-Z]{4}){2,7}(?: ?[0-9A-Z]{1,4})?\b`)
	glnCandidate   = regexp.MustCompile(`\b[0-9]{13}\b`)
	emailCandidate = regexp.MustCompile(`(?i)\b[a-z0-9._%+-]+@(?:[a-z0-9-]+\.)+[a-z]{2,24}\b`)
)

// scanPage finds the identifiers of one page and the role of each.
func scanPage(page int, text string, v Vendor) []hit {
	lines := strings.Split(text, "\n")
	vendorCol := -1
	if v.Page == page && v.Line >= 1 && v.Line <= len(lines) && v.Name != "" {
		vendorCol = runeIndex(lines[v.Line-1], v.Name)
	}
	var out []hit
	for i, line := range lines {
		for _, c := range candidates(line) {
			r := lineRole(line[:c.at], lines, i, runeCol(line, c.at))
			if r == roleUnknown && vendorCol >= 0 && abs(i+1-v.Line) <= 12 {
				r = columnRole(runeCol(line, c.at), vendorCol)
			}
			out = append(out, hit{id: c.id, role: r})
		}
	}
	return out
}

// candidate is an identifier at a byte offset of its line.
type candidate struct {
	id extract.PartyID
	at int
}

func candidates(line string) []candidate {
	var out []candidate
	add := func(re *regexp.Regexp, scheme string, norm func(string) string, labelled *regexp.Regexp) {
		for _, loc := range re.FindAllStringIndex(line, -1) {
			if labelled != nil && !labelled.MatchString(line[:loc[0]]) {
				continue
			}
			if id := norm(line[loc[0]:loc[1]]); id != "" {
				out = append(out, candidate{extract.PartyID{Scheme: scheme, ID: id}, loc[0]})
			}
		}
	}
	add(vatCandidate, extract.IDVAT, NormalizeVAT, nil)
	add(ibanCandidate, extract.IDIBAN, NormalizeIBAN, nil)
	add(glnCandidate, extract.IDGLN, NormalizeGLN, glnLabel)
	add(emailCandidate, extract.IDEmail, NormalizeEmail, nil)
	for _, r := range registrations {
		for _, m := range r.re.FindAllStringSubmatchIndex(line, -1) {
			id := strings.ToUpper(strings.Join(strings.Fields(line[m[2]:m[3]]), ""))
			if len(id) >= 4 {
				out = append(out, candidate{extract.PartyID{Scheme: r.scheme, ID: r.prefix + id}, m[0]})
			}
		}
	}
	return out
}

// glnLabel must stand before a 13-digit number for it to be a GLN: bare,
// it is as likely an EAN of an article.
var glnLabel = regexp.MustCompile(`(?i)\b(?:gln|iln|global location number)\b[^0-9]{0,12}$`)

// registrations are the labelled company and tax registrations, per
// country: the label, then the number (group 1). prefix keeps two
// countries' numbers apart.
var registrations = []struct {
	scheme, prefix string
	re             *regexp.Regexp
}{
	{extract.IDLegal, "HR:", regexp.MustCompile(`\b(HR[AB] ?[0-9]{2,6}(?: ?[A-Z]{1,2})?)\b`)},
	{extract.IDTax, "DE-ST:", regexp.MustCompile(`(?i)\b(?:steuer-?nr\.?|steuernummer|st\.-?nr\.?)[: ]+([0-9]{2,3}/[0-9]{3,4}/[0-9]{4,5})`)},
	{extract.IDLegal, "FR-SIREN:", regexp.MustCompile(`(?i)\b(?:siren|siret|rcs [a-zà-ü-]+)[: ]+([0-9]{3} ?[0-9]{3} ?[0-9]{3}(?: ?[0-9]{5})?)`)},
	{extract.IDLegal, "NL-KVK:", regexp.MustCompile(`(?i)\b(?:kvk|k\.v\.k\.|kamer van koophandel)(?:[- ]?(?:nr|nummer)\.?)?[: ]+([0-9]{8})\b`)},
	{extract.IDLegal, "GB-CRN:", regexp.MustCompile(`(?i)\bcompany (?:registration )?(?:no|number|reg\.? no)\.?[: ]+([0-9A-Z]{8})\b`)},
	{extract.IDTax, "AU-ABN:", regexp.MustCompile(`(?i)\babn[: ]+([0-9]{2} ?[0-9]{3} ?[0-9]{3} ?[0-9]{3})\b`)},
	{extract.IDTax, "PL-NIP:", regexp.MustCompile(`(?i)\bnip[: ]+([0-9]{3}-?[0-9]{3}-?[0-9]{2}-?[0-9]{2}|[0-9]{3}-?[0-9]{2}-?[0-9]{2}-?[0-9]{3})\b`)},
	{extract.IDLegal, "CZ-ICO:", regexp.MustCompile(`(?i)\bi[čc]o?\.?[: ]+([0-9]{8})\b`)},
	{extract.IDTax, "ES-NIF:", regexp.MustCompile(`(?i)\b(?:nif|cif)[: ]+([A-Z][0-9]{7}[0-9A-Z]|[0-9]{8}[A-Z])\b`)},
	{extract.IDTax, "IT-CF:", regexp.MustCompile(`(?i)\b(?:c\.?f\.?|codice fiscale)[: ]+([0-9]{11})\b`)},
}

// lineRole is the role a label gives an identifier: before it on its
// line, or heading its block (the nearest line above in the same column
// that holds a party label and no number, up to a blank line or eight
// lines).
func lineRole(before string, lines []string, i, col int) role {
	if r := labelRole(before); r != roleUnknown {
		return r
	}
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		seg := columnSegment(lines[j], col)
		if strings.TrimSpace(lines[j]) == "" {
			return roleUnknown
		}
		if strings.ContainsAny(seg, "0123456789") {
			continue // a field of its own ("Kunden-Nr. 4711"), no heading
		}
		if r := labelRole(seg); r != roleUnknown {
			return r
		}
	}
	return roleUnknown
}

// columnSegment is the part of line from col on, up to the next gap of
// three spaces or more (the cell above an identifier in a column layout).
func columnSegment(line string, col int) string {
	rs := []rune(line)
	if col >= len(rs) {
		return ""
	}
	start := col
	for start > 0 && !(start >= 3 && string(rs[start-3:start]) == "   ") {
		start--
	}
	end := col
	for end < len(rs) && !(end+3 <= len(rs) && string(rs[end:end+3]) == "   ") {
		end++
	}
	return string(rs[start:end])
}

// columnRole: an identifier printed far from the issuer's name's column,
// near its block, belongs to the other party.
func columnRole(col, vendorCol int) role {
	if abs(col-vendorCol) <= 20 {
		return roleSeller
	}
	return roleBuyer
}

// labelRole is the party a label names in s (the buyer's labels win: "our
// customer no." is the buyer's).
func labelRole(s string) role {
	low := strings.ToLower(s)
	for _, w := range buyerWords {
		if strings.Contains(low, w) {
			return roleBuyer
		}
	}
	for _, w := range sellerWords {
		if strings.Contains(low, w) {
			return roleSeller
		}
	}
	return roleUnknown
}

// buyerWords and sellerWords are the labels that name a party, in the
// languages the rules read.
var (
	buyerWords = []string{
		"bill to", "billed to", "invoice to", "sold to", "ship to", "customer", "client", "buyer", "recipient", "your vat", "purchaser",
		"rechnungsempfänger", "rechnungsadresse", "kunde", "kunden", "empfänger", "leistungsempfänger", "auftraggeber", "ihre ust",
		"destinataire", "facturé à", "adresse de facturation", "acheteur",
		"klant", "afnemer", "factuuradres", "ontvanger",
		"cliente", "destinatario", "committente", "fatturare a",
		"nabywca", "odbiorca", "płatnik",
		"odběratel", "odberateľ", "příjemce",
		"comprador", "facturar a",
		"kund", "køber", "kjøper", "ostaja", "mottaker",
		// a direct debit names the buyer's account
		"your account", "ihr konto", "ihre iban", "lastschrift", "direct debit", "prélèvement", "mandat",
	}
	sellerWords = []string{
		"seller", "supplier", "vendor", "issued by", "from:", "biller", "our vat", "payee", "pay to", "beneficiary",
		"verkäufer", "lieferant", "aussteller", "rechnungssteller", "unsere ust", "geschäftsführer", "amtsgericht", "registergericht",
		"vendeur", "fournisseur", "émetteur", "prestataire",
		"leverancier", "verkoper",
		"fornitore", "cedente", "venditore",
		"sprzedawca", "wystawca",
		"dodavatel", "prodávající",
		"proveedor", "vendedor", "emisor",
		// the account a document asks to be paid to is the payee's
		"iban", "bankverbindung", "bank details", "bank account", "banque", "bankgegevens", "coordonnées bancaires",
		"coordinate bancarie", "rachunek", "bankovní spojení", "datos bancarios",
	}
)

// runeIndex is the rune column of sub in s, or -1.
func runeIndex(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		i = strings.Index(strings.ToLower(s), strings.ToLower(sub))
	}
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(s[:i])
}

// runeCol is the rune column of byte offset at in s.
func runeCol(s string, at int) int { return utf8.RuneCountInString(s[:at]) }

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
