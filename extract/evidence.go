package extract

import (
	"regexp"
	"sort"
	"strings"
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
	// text is the document in lower case, for the dollar's country.
	text strings.Builder
}

// commonCodes are the currency codes counted when they stand alone ("All
// amounts in EUR"); rarer codes count only beside an amount, since some
// are English words (ALL, TOP, CUP).
var commonCodes = strings.Fields(`EUR USD GBP CHF JPY CNY AUD CAD NZD SEK NOK DKK PLN CZK HUF INR SGD
	HKD ZAR BHD KWD OMR JOD TND AED SAR QAR BRL MXN TRY ILS KRW RON BGN ISK THB MYR IDR`)

var (
	codeWordRe = regexp.MustCompile(`\b[A-Z]{3}\b`)
	// usStateZipRe finds a US state abbreviation and ZIP code.
	usStateZipRe = regexp.MustCompile(`\b(?:AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC),?\s+\d{5}(?:-\d{4})?\b`)
)

// gatherEvidence reads every line of d once.
func gatherEvidence(d *document) *evidence {
	e := &evidence{currencies: map[string]int{}}
	for i := range d.lines {
		e.line(&d.lines[i])
	}
	return e
}

func (e *evidence) line(l *line) {
	if l.blank() {
		return
	}
	e.text.WriteString(strings.ToLower(l.text))
	e.text.WriteByte('\n')
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
	for _, code := range codeWordRe.FindAllString(l.text, -1) {
		if containsStr(commonCodes, code) {
			e.currencies[code]++
		}
	}
	e.conventions(l)
}

// conventions notes a "Currency:" label and the tax words and addresses
// that tell US documents from others.
func (e *evidence) conventions(l *line) {
	for _, c := range l.cells {
		m, ok := matchLabel(c.text)
		if ok && m.kind == lkCurrency && e.labelled == "" {
			e.labelled = currencyValue(labelValue(c.text, m))
		}
		if ok && (m.kind == lkTax || m.kind == lkTaxIncluded) {
			if strings.Contains(m.phrase, "sales tax") || strings.Contains(m.phrase, "state tax") {
				e.dates.strongUS++
			} else if strings.Contains(m.phrase, "vat") || strings.Contains(m.phrase, "gst") ||
				strings.Contains(m.phrase, "mwst") || strings.Contains(m.phrase, "tva") {
				e.dates.strongDMY++
			}
		}
	}
	if usStateZipRe.MatchString(l.text) {
		e.dates.strongUS++
	}
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
// one seen most (a bare "$" resolved by the document's country).
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
		return ""
	}
	switch codes[0] {
	case "$":
		return e.byCountry(dollarCountries, "USD")
	case "kr":
		return e.byCountry(kronaCountries, "SEK")
	}
	return codes[0]
}

// countryHint tells which currency a shared symbol ("$", "kr") is: the
// code written somewhere in the document, a country or a tax (as words),
// or a web or mail domain.
type countryHint struct {
	code string
	re   *regexp.Regexp
}

func hint(code, words, domains string) countryHint {
	return countryHint{code: code, re: regexp.MustCompile(`(?i)\b(?:` + words + `)\b|\.(?:` + domains + `)\b`)}
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

// byCountry returns the first hint's code found in the document, else def.
// A code written in the document wins over a country.
func (e *evidence) byCountry(list []countryHint, def string) string {
	for _, h := range list {
		if e.currencies[h.code] > 0 {
			return h.code
		}
	}
	text := e.text.String()
	for _, h := range list {
		if h.re.MatchString(text) {
			return h.code
		}
	}
	return def
}

// format returns the document's number format for a currency.
func (e *evidence) format(currency string) numberFormat {
	minor, ok := currencyMinor[currency]
	if !ok {
		minor = 2
	}
	return e.votes.decide(minor)
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
