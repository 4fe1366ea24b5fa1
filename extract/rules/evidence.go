package rules

import (
	"regexp"
	"sort"
	"strings"

	"github.com/relayops/relayops/extract"
)

// evidence is what one pass over a document tells of its conventions: the
// decimal mark, the currency and the order of day and month.
type evidence struct {
	votes formatVotes
	// currencies weighs each currency seen: beside an amount, on a total
	// line, as a code in a heading ("Total (EUR)").
	currencies map[string]int
	// labelled is the value of a "Currency:" label.
	labelled string
	dates    dateEvidence
	// raw is the document as read, for the country of a shared symbol or
	// of an invoice without a currency; lowerText its lower-case form,
	// made when needed.
	raw       strings.Builder
	lowerText string
	// usAt and ukAt are where a US state and ZIP code, and a UK postcode
	// or GB VAT number, first occur in raw, or -1.
	usAt, ukAt int
	// spacedDot counts money written with a currency, space-grouped
	// thousands and a decimal point ("$1 234.56", "1 234.56 CHF").
	spacedDot int
	// spacedWhole counts money written with a currency and space-grouped
	// thousands without decimals ("1 234 €", "12 500 EUR").
	spacedWhole int
}

// commonCodes are the currency codes counted when they stand alone ("All
// amounts in EUR"); rarer codes count only beside an amount, since some
// are English words (ALL, TOP, CUP).
var commonCodes = strings.Fields(`EUR USD GBP CHF JPY CNY AUD CAD NZD SEK NOK DKK PLN CZK HUF INR SGD
	HKD ZAR BHD KWD OMR JOD TND AED SAR QAR BRL MXN TRY ILS KRW RON BGN ISK THB MYR IDR`)

// codeWords returns the words of exactly three capital letters.
func codeWords(s string) []string {
	var out []string
	for i := 0; i+3 <= len(s); i++ {
		if isUpperByte(s[i]) && isUpperByte(s[i+1]) && isUpperByte(s[i+2]) &&
			(i == 0 || !isASCIIAlnum(s[i-1])) && (i+3 == len(s) || !isASCIIAlnum(s[i+3])) {
			out = append(out, s[i:i+3])
			i += 2
		}
	}
	return out
}

// usStateZip reports a US state and ZIP code ("Boulder, CO 80301"), not a
// label's value that looks like one ("Customer ID 13118").
func usStateZip(text string) bool {
	for at := nextStateZip(text, 0); at >= 0; at = nextStateZip(text, at+1) {
		before := strings.TrimRight(text[:at], " ")
		if strings.HasSuffix(before, ",") {
			return true
		}
		f := strings.Fields(before)
		if len(f) == 0 || !idLabelWords[strings.ToLower(strings.Trim(f[len(f)-1], ".:#"))] {
			return true
		}
	}
	return false
}

// idLabelWords name an identifier whose abbreviation is a state's ("Customer
// ID", "Order NO").
var idLabelWords = map[string]bool{
	"customer": true, "client": true, "account": true, "tax": true, "vendor": true, "supplier": true,
	"order": true, "invoice": true, "member": true, "user": true, "employee": true, "project": true,
	"reference": true, "ref": true, "transaction": true, "payment": true, "document": true,
}

// gatherEvidence reads every line of d once.
func gatherEvidence(d *document) *evidence {
	e := &evidence{currencies: map[string]int{}, usAt: -1, ukAt: -1}
	size := 0
	for i := range d.lines {
		size += len(d.lines[i].text) + 1
	}
	e.raw.Grow(size)
	for i := range d.lines {
		e.line(&d.lines[i])
	}
	return e
}

func (e *evidence) line(l *line) {
	if l.blank() {
		return
	}
	us := hasDigitRun(l.text, 5) && usStateZip(l.text)
	if e.usAt < 0 && us {
		e.usAt = e.raw.Len()
	}
	if e.ukAt < 0 && hasUKMarker(l.text) {
		e.ukAt = e.raw.Len()
	}
	e.raw.WriteString(l.text)
	e.raw.WriteByte('\n')
	dates := findDates(l.text)
	for _, dt := range dates {
		e.dates.addDate(dt)
	}
	weight := 1
	if k, _, ok := amountLabelOf(l); ok && (k == lkTotal || k == lkAmountDue) {
		weight = 5
	}
	for _, t := range scanNumbers(l.text, false) {
		if !overlaps(dates, t.start, t.end) {
			e.votes.vote(t.raw)
		}
		if t.cur != "" {
			e.currencies[t.cur] += weight
		}
	}
	if spacedDigits(l.text) && strings.IndexByte(l.text, '.') >= 0 {
		e.spacedDot += countSpacedDot(l.text, weight > 1)
	}
	if spacedDigits(l.text) {
		e.spacedWhole += countSpacedWhole(l.text)
	}
	for _, code := range codeWords(l.text) {
		if containsStr(commonCodes, code) {
			e.currencies[code]++
		}
	}
	e.conventions(l, us)
}

// conventions notes a "Currency:" label and the tax words and addresses
// that tell US documents from others; us: the line has a US state and ZIP
// code.
func (e *evidence) conventions(l *line, us bool) {
	for i := range l.cells {
		c := &l.cells[i]
		m, ok := c.labelOf()
		if ok && m.kind == lkCurrency && e.labelled == "" {
			e.labelled = currencyValue(labelValue(c.text, m))
		}
		if ok && (m.kind == lkTax || m.kind == lkTaxIncluded) && pureRemainder(c.text[m.end:]) {
			if strings.Contains(m.phrase, "sales tax") || strings.Contains(m.phrase, "state tax") {
				e.dates.strongUS++
			} else if strings.Contains(m.phrase, "vat") || strings.Contains(m.phrase, "gst") ||
				strings.Contains(m.phrase, "mwst") || strings.Contains(m.phrase, "tva") {
				e.dates.strongDMY++
			}
		}
	}
	if us {
		e.dates.strongUS++
	}
}

// hasDigitRun reports n digits in a row.
func hasDigitRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// currencyNames maps what a "Currency:" label may say besides a code.
var currencyNames = map[string]string{
	"euro": "EUR", "euros": "EUR", "€": "EUR", "£": "GBP", "$": "USD", "¥": "JPY",
	"us dollar": "USD", "us dollars": "USD", "dollars": "USD", "pound sterling": "GBP",
	"pounds sterling": "GBP", "pounds": "GBP", "sterling": "GBP", "yen": "JPY", "swiss francs": "CHF",
}

// currencyValue reads the value of a "Currency:" label: a code (in any
// case), a symbol or a name. An unknown code is returned as written, upper
// case, for the validator to reject.
func currencyValue(v string) string {
	v = strings.TrimSpace(v)
	if name, ok := currencyNames[strings.ToLower(v)]; ok {
		return name
	}
	w := strings.Trim(firstWord(v), ".,;()")
	if code, ok := currencyNames[strings.ToLower(w)]; ok {
		return code
	}
	if len(w) >= 2 && len(w) <= 8 && isAllLetters(w) {
		return strings.ToUpper(w)
	}
	return ""
}

func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// currency returns the document's currency: the labelled one, else the
// one seen most (a bare "$" resolved by the document's country), else the
// currency of the country the document names.
func (e *evidence) currency() string {
	if e.labelled != "" {
		return e.labelled
	}
	codes := make([]string, 0, len(e.currencies))
	for c := range e.currencies {
		codes = append(codes, c)
	}
	sort.Slice(codes, func(i, j int) bool {
		ci, cj := e.currencies[codes[i]], e.currencies[codes[j]]
		return ci > cj || ci == cj && codes[i] < codes[j]
	})
	if len(codes) == 0 {
		return e.countryCurrency()
	}
	switch codes[0] {
	case "$":
		return e.byCountry(dollarCountries, "USD")
	case "kr":
		return e.byCountry(kronaCountries, "SEK")
	}
	return codes[0]
}

// countryHint tells which currency a shared symbol ("$", "kr") is, or a
// document without any: a country or a tax named in words, or a web or
// mail domain.
type countryHint struct {
	code    string
	words   []string
	domains []string
}

func hint(code, words, domains string) countryHint {
	return countryHint{code: code, words: strings.Split(words, "|"), domains: strings.Split(domains, "|")}
}

// firstIn returns where the hint first occurs in lower (the document in
// lower case, one space between words), or -1.
func (h countryHint) firstIn(lower string) int {
	at := -1
	for _, w := range h.words {
		if i := wordIndex(lower, w); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	for _, d := range h.domains {
		if i := domainIndex(lower, d); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	return at
}

// domainIndex returns where ".<domain>" ends a host name in lower, or -1.
func domainIndex(lower, domain string) int {
	needle := "." + domain
	for i := 0; ; {
		j := strings.Index(lower[i:], needle)
		if j < 0 {
			return -1
		}
		j += i
		end := j + len(needle)
		if j > 0 && isASCIIAlnum(lower[j-1]) && (end == len(lower) || !isASCIIAlnum(lower[end]) && lower[end] != '.') {
			return j
		}
		i = j + 1
	}
}

var (
	dollarCountries = []countryHint{
		hint("AUD", `aud|australia|abn|nsw|qld`, `au`),
		hint("NZD", `nzd|new zealand|nzbn`, `nz`),
		hint("CAD", `cad|canada|gst/hst|hst|pst|qst|ontario|quebec|québec|british columbia|alberta`, `ca`),
		hint("SGD", `sgd|singapore`, `sg`),
		hint("HKD", `hkd|hong kong`, `hk`),
	}
	kronaCountries = []countryHint{
		hint("SEK", `sek|sweden|sverige`, `se`),
		hint("NOK", `nok|norway|norge|mva`, `no`),
		hint("DKK", `dkk|denmark|danmark`, `dk`),
		hint("ISK", `isk|iceland|ísland`, `is`),
	}
)

// byCountry resolves a shared symbol: the code among the hints' and def
// written most often in the document wins over a country ("$49.00 USD"
// from a Toronto company), else the first hint's country found, else def.
func (e *evidence) byCountry(list []countryHint, def string) string {
	best, n := "", 0
	for _, h := range list {
		if c := e.currencies[h.code]; c > n {
			best, n = h.code, c
		}
	}
	if e.currencies[def] > n { // "$49.00 USD" from a Toronto company
		return def
	}
	if best != "" {
		return best
	}
	lower := e.lower()
	for _, h := range list {
		if h.firstIn(lower) >= 0 {
			return h.code
		}
	}
	return def
}

// lower returns the document in lower case, words one space apart (a
// phrase may wrap: "Sales\nTax"), a space either end.
func (e *evidence) lower() string {
	if e.lowerText == "" {
		var b strings.Builder
		b.WriteByte(' ')
		for _, f := range strings.Fields(strings.ToLower(e.raw.String())) {
			b.WriteString(f)
			b.WriteByte(' ')
		}
		e.lowerText = b.String()
	}
	return e.lowerText
}

// format returns the document's number format for a currency.
func (e *evidence) format(currency string) numberFormat {
	minor, ok := extract.MinorUnits(currency)
	if !ok {
		minor = 2
	}
	f := e.votes.decide(minor)
	f.spaceGroups = f.decimal == '.' && (e.spacedDot > 0 || e.spacedWhole > 0)
	return f
}

// spacedDigits reports a digit, one space and three digits: a cheap test
// before countSpacedDot.
func spacedDigits(s string) bool {
	for i := 1; i+4 <= len(s); i++ {
		if s[i] == ' ' && isDigit(s[i-1]) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
			return true
		}
	}
	return false
}

// countSpacedDot counts the amounts of text written with a currency (or
// on a total's line), a space between digit groups and a decimal point.
func countSpacedDot(text string, total bool) int {
	n := 0
	for _, t := range scanNumbers(text, true) {
		if (t.cur != "" || total) && strings.IndexByte(t.raw, ' ') > 0 && strings.IndexByte(t.raw, ',') < 0 &&
			strings.IndexByte(t.raw, '.') > strings.LastIndexByte(t.raw, ' ') {
			n++
		}
	}
	return n
}

// countSpacedWhole counts the amounts of text written with a currency and
// a space between digit groups, without a decimal mark or another group
// separator ("1 234 €", "Summe 12 500 EUR"): the document groups
// thousands with spaces.
func countSpacedWhole(text string) int {
	n := 0
	for _, t := range scanNumbers(text, true) {
		if t.cur != "" && !t.pct && strings.IndexByte(t.raw, ' ') > 0 && !strings.ContainsAny(t.raw, ".,'") {
			n++
		}
	}
	return n
}

// dateOrder returns the document's order of day and month, adding the
// currency and the decimal mark to the evidence.
func (e *evidence) dateOrder(currency string, f numberFormat) dateOrder {
	ev := e.dates
	switch {
	case currency == "USD":
		ev.strongUS++
	case currency != "" && currency != "CAD":
		ev.strongDMY++
	}
	if f.voted && f.decimal == ',' {
		ev.strongDMY++
	}
	return ev.decide()
}

// countryCurrencies name the currency of a country written in the
// document (a country name, a web or mail domain, a US state and ZIP), for
// an invoice that writes its amounts without any currency: an invoice from
// Germany is in euros.
var countryCurrencies = []countryHint{
	hint("EUR", `germany|deutschland|france|netherlands|nederland|the netherlands|italy|italia|spain|españa|austria|österreich|belgium|belgique|ireland|finland|suomi|portugal|greece|luxembourg|slovakia|slovenia|estonia|latvia|lithuania|malta|cyprus|croatia`,
		`de|fr|nl|it|es|at|be|ie|fi|pt|gr|lu|sk|si|ee|lv|lt|mt|cy|hr|eu`),
	hint("GBP", `united kingdom|england|scotland|wales|northern ireland|great britain`, `co\.uk|uk`),
	hint("CHF", `switzerland|schweiz|suisse|svizzera|liechtenstein`, `ch|li`),
	hint("SEK", `sweden|sverige`, `se`),
	hint("NOK", `norway|norge`, `no`),
	hint("DKK", `denmark|danmark`, `dk`),
	hint("PLN", `poland|polska`, `pl`),
	hint("CZK", `czech republic|czechia`, `cz`),
	hint("JPY", `japan`, `jp`),
	hint("AUD", `australia`, `au`),
	hint("CAD", `canada`, `ca`),
	hint("NZD", `new zealand`, `nz`),
	hint("SGD", `singapore`, `sg`),
	hint("HKD", `hong kong`, `hk`),
	hint("INR", `india|gstin`, `in`),
	hint("ARS", `argentina|cuit|afip`, `ar`),
	hint("MXN", `mexico|méxico`, `mx`),
	hint("BRL", `brazil|brasil|cnpj`, `br`),
	hint("BHD", `bahrain`, `bh`),
	hint("KWD", `kuwait`, `kw`),
	hint("OMR", `oman`, `om`),
	hint("AED", `united arab emirates|uae|dubai|abu dhabi`, `ae`),
	hint("SAR", `saudi arabia`, `sa`),
	hint("ZAR", `south africa`, `za`),
	hint("USD", `usa|united states|sales tax`, `us`),
}

// vatIDs are VAT identification numbers, whose prefix names the country
// ("BE0000.000.196", "DE 123456789", "ATU16090307", "CHE-112.203.184",
// "GB123456789"), and postal codes as distinctive (Canada's "BC V8L 4Z8").
// They are looked for in the lower-case text.
var vatIDs = []struct {
	code string
	re   *regexp.Regexp
}{
	{"EUR", regexp.MustCompile(`\b(?:at ?u|be ?0|be ?1|cy|de|ee|el|es|fi|fr|hr|ie|it|lt|lu|lv|mt|nl|pt|si|sk)[ .]?[0-9][0-9. ]{6,12}[0-9](?:b[0-9]{2})?\b`)},
	{"CHF", regexp.MustCompile(`\bche[- ]?[0-9]{3}\.[0-9]{3}\.[0-9]{3}\b`)},
	{"GBP", regexp.MustCompile(`\bgb ?[0-9]{3} ?[0-9]{4} ?[0-9]{2}\b`)},
	// a Canadian province and postal code: "North Saanich, BC V8L 4Z8"
	{"CAD", regexp.MustCompile(`\b(?:bc|ab|sk|mb|on|qc|nb|ns|pe|nl|yt|nt|nu),? [a-z][0-9][a-z] ?[0-9][a-z][0-9]\b`)},
}

// countryCurrency returns the currency of the country named first in the
// document (a country, a domain, a VAT id's prefix; a US state and ZIP
// code names the US), or "".
func (e *evidence) countryCurrency() string {
	lower := e.lower()
	best, at := "", len(lower)+1
	for _, h := range countryCurrencies {
		if i := h.firstIn(lower); i >= 0 && i < at {
			best, at = h.code, i
		}
	}
	for _, v := range vatIDs {
		if loc := v.re.FindStringIndex(lower); loc != nil && loc[0] < at {
			best, at = v.code, loc[0]
		}
	}
	for _, p := range []struct {
		at   int
		code string
	}{{e.usAt, "USD"}, {e.ukAt, "GBP"}} {
		if p.at >= 0 && (best == "" || p.at < at) {
			best, at = p.code, p.at
		}
	}
	return best
}
