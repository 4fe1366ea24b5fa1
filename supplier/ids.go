package supplier

import (
	"math/big"
	"regexp"
	"strings"
	"unicode"
)

// The identifiers a supplier prints, each normalised to one canonical
// form (so the same id printed "DE 123 456 789" and "DE123456789" is one
// key) and checked where its scheme has a check digit, so a number that
// merely looks like one is not taken.

// vatFormats are the VAT identifier formats after the country prefix,
// upper case without separators (EU member states, the United Kingdom,
// Switzerland and Norway).
var vatFormats = map[string]*regexp.Regexp{
	"AT":  regexp.MustCompile(`^U[0-9]{8}$`),
	"BE":  regexp.MustCompile(`^[01][0-9]{9}$`),
	"BG":  regexp.MustCompile(`^[0-9]{9,10}$`),
	"CY":  regexp.MustCompile(`^[0-9]{8}[A-Z]$`),
	"CZ":  regexp.MustCompile(`^[0-9]{8,10}$`),
	"DE":  regexp.MustCompile(`^[0-9]{9}$`),
	"DK":  regexp.MustCompile(`^[0-9]{8}$`),
	"EE":  regexp.MustCompile(`^[0-9]{9}$`),
	"EL":  regexp.MustCompile(`^[0-9]{9}$`),
	"ES":  regexp.MustCompile(`^[0-9A-Z][0-9]{7}[0-9A-Z]$`),
	"FI":  regexp.MustCompile(`^[0-9]{8}$`),
	"FR":  regexp.MustCompile(`^[0-9A-HJ-NP-Z]{2}[0-9]{9}$`),
	"HR":  regexp.MustCompile(`^[0-9]{11}$`),
	"HU":  regexp.MustCompile(`^[0-9]{8}$`),
	"IE":  regexp.MustCompile(`^[0-9][0-9A-Z+*][0-9]{5}[A-Z]{1,2}$`),
	"IT":  regexp.MustCompile(`^[0-9]{11}$`),
	"LT":  regexp.MustCompile(`^([0-9]{9}|[0-9]{12})$`),
	"LU":  regexp.MustCompile(`^[0-9]{8}$`),
	"LV":  regexp.MustCompile(`^[0-9]{11}$`),
	"MT":  regexp.MustCompile(`^[0-9]{8}$`),
	"NL":  regexp.MustCompile(`^[0-9]{9}B[0-9]{2}$`),
	"PL":  regexp.MustCompile(`^[0-9]{10}$`),
	"PT":  regexp.MustCompile(`^[0-9]{9}$`),
	"RO":  regexp.MustCompile(`^[0-9]{2,10}$`),
	"SE":  regexp.MustCompile(`^[0-9]{10}01$`),
	"SI":  regexp.MustCompile(`^[0-9]{8}$`),
	"SK":  regexp.MustCompile(`^[0-9]{10}$`),
	"GB":  regexp.MustCompile(`^([0-9]{9}|[0-9]{12}|GD[0-9]{3}|HA[0-9]{3})$`),
	"XI":  regexp.MustCompile(`^[0-9]{9}$`),
	"CHE": regexp.MustCompile(`^[0-9]{9}(MWST|TVA|IVA)?$`),
	"NO":  regexp.MustCompile(`^[0-9]{9}(MVA)?$`),
}

// vatCheck are the check digit rules of the countries whose rule is short
// and public; a country without one is taken on its format.
var vatCheck = map[string]func(string) bool{
	"DE": checkDE, "AT": checkAT, "BE": checkBE, "IT": checkIT, "NL": checkNL, "PL": checkPL,
}

// NormalizeVAT returns a VAT identifier's canonical form ("DE123456789",
// "ATU12345678", "CHE123456789") or "" when s is not one: a known country
// prefix (GR's EL included) and that country's format and check digit.
func NormalizeVAT(s string) string {
	v := strings.ToUpper(strings.Map(func(r rune) rune {
		if r == ' ' || r == '.' || r == '-' || r == '/' || r == '\u00a0' {
			return -1
		}
		return r
	}, s))
	v = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(v, "MWST"), "TVA"), "IVA")
	country := v[:min(2, len(v))]
	if strings.HasPrefix(v, "CHE") {
		country = "CHE"
	}
	if country == "GR" {
		v, country = "EL"+v[2:], "EL"
	}
	re, ok := vatFormats[country]
	rest := strings.TrimPrefix(v, country)
	if !ok || !re.MatchString(rest) {
		return ""
	}
	if check := vatCheck[country]; check != nil && !check(rest) {
		return ""
	}
	if country == "NO" {
		rest = strings.TrimSuffix(rest, "MVA")
	}
	return country + rest
}

func digits(s string) []int {
	out := make([]int, 0, len(s))
	for _, r := range s {
		out = append(out, int(r-'0'))
	}
	return out
}

// checkDE: ISO 7064 MOD 11,10 over the first eight digits.
func checkDE(s string) bool {
	d := digits(s)
	p := 10
	for _, x := range d[:8] {
		sum := (x + p) % 10
		if sum == 0 {
			sum = 10
		}
		p = (2 * sum) % 11
	}
	c := 11 - p
	if c == 10 {
		c = 0
	}
	return c == d[8]
}

// checkAT: the Austrian UID's weighted sum ("U" then eight digits).
func checkAT(s string) bool {
	d := digits(s[1:])
	sum := 0
	for i, x := range d[:7] {
		if i%2 == 1 {
			x *= 2
			x = x/10 + x%10
		}
		sum += x
	}
	c := (10 - (sum+4)%10) % 10
	return c == d[7]
}

// checkBE: 97 − (the first eight digits mod 97) is the last two.
func checkBE(s string) bool {
	n := new(big.Int)
	n.SetString(s[:8], 10)
	m := new(big.Int).Mod(n, big.NewInt(97)).Int64()
	last := int64(digits(s[8:])[0]*10 + digits(s[8:])[1])
	return 97-m == last
}

// checkIT: the Luhn algorithm over the eleven digits.
func checkIT(s string) bool { return luhn(s) }

// checkNL: the "elfproef" with weights 9…2 and −1 over the nine digits;
// the sole-trader numbers since 2020 pass MOD 97 of "NL…B…" instead.
func checkNL(s string) bool {
	d := digits(s[:9])
	sum := 0
	for i, x := range d[:8] {
		sum += x * (9 - i)
	}
	sum -= d[8]
	if sum%11 == 0 {
		return true
	}
	return mod97("NL"+s) == 1
}

// checkPL: the NIP's weights over the first nine digits, mod 11.
func checkPL(s string) bool {
	d := digits(s)
	w := []int{6, 5, 7, 2, 3, 4, 5, 6, 7}
	sum := 0
	for i, x := range d[:9] {
		sum += x * w[i]
	}
	return sum%11 == d[9]
}

func luhn(s string) bool {
	sum := 0
	for i, x := range digits(s) {
		if i%2 == 1 {
			x *= 2
			if x > 9 {
				x -= 9
			}
		}
		sum += x
	}
	return sum%10 == 0
}

// mod97 is the ISO 7064 MOD 97-10 remainder of s with letters as 10…35
// (A=10), as IBANs use.
func mod97(s string) int {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteString(itoa(int(r-'A') + 10))
		default:
			return -1
		}
	}
	n, ok := new(big.Int).SetString(b.String(), 10)
	if !ok {
		return -1
	}
	return int(new(big.Int).Mod(n, big.NewInt(97)).Int64())
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// ibanLengths are the IBAN lengths of the countries of SEPA and a few
// more; an IBAN of another country is checked by its check digits only.
var ibanLengths = map[string]int{
	"AD": 24, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "EE": 20,
	"ES": 24, "FI": 18, "FR": 27, "GB": 22, "GI": 23, "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26,
	"IT": 27, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28,
	"PT": 25, "RO": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "VA": 22,
}

var ibanShape = regexp.MustCompile(`^[A-Z]{2}[0-9]{2}[0-9A-Z]{10,30}$`)

// NormalizeIBAN returns an IBAN without spaces in upper case, or "" when
// s is not one: its country's length and its MOD 97 check.
func NormalizeIBAN(s string) string {
	v := strings.ToUpper(strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '-' {
			return -1
		}
		return r
	}, s))
	if !ibanShape.MatchString(v) {
		return ""
	}
	if n, ok := ibanLengths[v[:2]]; ok && len(v) != n {
		return ""
	}
	if mod97(v[4:]+v[:4]) != 1 {
		return ""
	}
	return v
}

// NormalizeGLN returns a GS1 global location number (13 digits with its
// check digit) or "".
func NormalizeGLN(s string) string {
	v := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		if r == ' ' || r == '-' {
			return -1
		}
		return 'x'
	}, s)
	if len(v) != 13 || strings.Contains(v, "x") {
		return ""
	}
	d := digits(v)
	sum := 0
	for i, x := range d[:12] {
		if i%2 == 1 {
			x *= 3
		}
		sum += x
	}
	if (10-sum%10)%10 != d[12] {
		return ""
	}
	return v
}

// freeMail are e-mail domains shared by many unrelated senders: an
// address there identifies its owner by the whole address, not the domain.
var freeMail = map[string]bool{
	"gmail.com": true, "googlemail.com": true, "outlook.com": true, "hotmail.com": true, "live.com": true,
	"yahoo.com": true, "icloud.com": true, "me.com": true, "gmx.de": true, "gmx.net": true, "web.de": true,
	"t-online.de": true, "orange.fr": true, "free.fr": true, "wanadoo.fr": true, "libero.it": true,
	"proton.me": true, "protonmail.com": true, "aol.com": true, "mail.com": true, "yandex.ru": true,
	"wp.pl": true, "o2.pl": true, "seznam.cz": true, "ziggo.nl": true, "kpnmail.nl": true,
}

var emailShape = regexp.MustCompile(`^[a-z0-9._%+-]+@([a-z0-9-]+\.)+[a-z]{2,24}$`)

// NormalizeEmail returns what identifies a sender by its e-mail address:
// the domain, or the whole address at a free-mail provider; "" when s is
// not an address.
func NormalizeEmail(s string) string {
	v := strings.ToLower(strings.TrimSpace(s))
	if !emailShape.MatchString(v) {
		return ""
	}
	_, domain, _ := strings.Cut(v, "@")
	if freeMail[domain] {
		return v
	}
	return domain
}

// legalForms are company-form words left out of a normalised name, so
// "Acme GmbH" and "ACME" are one name.
var legalForms = map[string]bool{
	"ltd": true, "limited": true, "llc": true, "inc": true, "incorporated": true, "corp": true,
	"corporation": true, "co": true, "company": true, "gmbh": true, "ag": true, "kg": true, "ohg": true,
	"ug": true, "se": true, "sa": true, "sas": true, "sarl": true, "srl": true, "spa": true, "bv": true,
	"nv": true, "plc": true, "llp": true, "lp": true, "pty": true, "pte": true, "oy": true, "ab": true,
	"as": true, "aps": true, "kk": true, "sl": true, "ek": true, "eu": true, "gbr": true, "sp": true,
	"zoo": true, "sro": true, "kft": true, "zrt": true, "doo": true, "oü": true, "asa": true, "uab": true,
	"sia": true, "eg": true, "ev": true, "mbh": true, "und": true, "&": true, "and": true, "the": true,
}

// NormalizeName returns a vendor name as a weak identity: lower case,
// letters and digits only, without company-form words; "" when nothing is
// left. It is used only when the page states no identifier.
func NormalizeName(s string) string {
	var words []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&'
	}) {
		if !legalForms[w] {
			words = append(words, w)
		}
	}
	return strings.Join(words, " ")
}
