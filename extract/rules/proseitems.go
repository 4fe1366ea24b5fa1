package rules

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/relayops/relayops/extract"
)

// enumerationRe introduces the items of a sentence: "This covers the
// customs clearance at ¥19,990, … and 30 x warehousing at ¥610 each
// (¥18,300).", "for the Rossi wedding: the full-day shoot at €1,800.00, …".
var enumerationRe = regexp.MustCompile(`(?i)\b(?:covers|covering|includes|including|comprises|comprising|consists\s+of|is\s+for|are\s+for|as\s+follows|billed|charged)\b:?|:\s`)

// findProseItems reads the items enumerated in a sentence, when nothing
// else gave items. Each item is priced with "at":
// "the hull inspection at €623.00" (one), "4 x antifouling paint at €39.00
// each (€156.00)", "21.75 hours of diver hours at €93.80 per hour
// (€2,040.15)". A sentence is read whole or not at all.
func findProseItems(d *document, f numberFormat, it *items) {
	for _, p := range paragraphs(d) {
		if lines, ok := proseItems(p.text, f); ok {
			for _, x := range lines {
				it.add(x, p.first)
			}
			return
		}
	}
}

// proseItem is a price found in a sentence of items.
type proseItem struct {
	price numTok
	at    int // where " at" starts
}

func proseItems(text string, f numberFormat) ([]extract.ExtractedLine, bool) {
	toks := moneyTokens(text, f)
	prices := pricedAt(text, toks, f)
	if len(prices) == 0 {
		return nil, false
	}
	m := enumerationRe.FindAllStringIndex(text[:prices[0].at], -1)
	if m == nil {
		return nil, false
	}
	start := m[len(m)-1][1]
	if text[m[len(m)-1][0]] == ':' && len(prices) < 2 {
		return nil, false // "Note: the deposit at €500 …" lists no items
	}
	var out []extract.ExtractedLine
	for _, pr := range prices {
		seg := text[start:pr.at]
		if hasMoneyTok(text, toksIn(toks, start, pr.at)) {
			return nil, false // an amount the grammar does not explain
		}
		pq, ok := proseQuantity(seg, f)
		if !ok {
			return nil, false
		}
		price, amount, end := priceAndAmount(text, pr.price, toksIn(toks, pr.price.end, pr.price.end+64), f)
		if price == "" {
			return nil, false
		}
		x := pq.settle(price, amount)
		x.UnitPrice, x.Amount = price, amount
		out = append(out, x)
		start = end
	}
	return out, true
}

// pricedAt returns the numbers written right after "at" (not a time, "at
// 10:12", or a count: "at 3 hours").
func pricedAt(text string, toks []numTok, f numberFormat) []proseItem {
	var out []proseItem
	for _, t := range toks {
		if isPricedAt(text, t) && !countWords[strings.ToLower(firstWord(text[t.end:]))] && !t.neg && !timeFollows(text, t.end) {
			out = append(out, proseItem{price: t, at: len(strings.TrimRight(text[:t.start], " ")) - 3})
		}
	}
	return out
}

// afterEach: "each (A)", "per hour (A)".
func afterEach(text string, t numTok) bool {
	f := strings.Fields(strings.ToLower(text[max(0, t.start-16):t.start]))
	return len(f) > 0 && (f[len(f)-1] == "each" || len(f) > 1 && f[len(f)-2] == "per")
}

func isPricedAt(text string, t numTok) bool { return endsWithWord(text[:t.start], "at") }

// hasMoneyTok reports an amount between from and to: one with a
// currency, priced with "at", or in brackets after "each" (a quantity,
// even "29,75", is none of these, nor "a5 flyers (1,000)").
func hasMoneyTok(text string, toks []numTok) bool {
	for _, t := range toks {
		if t.cur != "" || t.neg && afterEach(text, t) || isPricedAt(text, t) {
			return true
		}
	}
	return false
}

// toksIn returns the tokens (in order of position) that lie within
// [from, to), found by binary search so that long sentences stay linear.
func toksIn(toks []numTok, from, to int) []numTok {
	i := sort.Search(len(toks), func(k int) bool { return toks[k].start >= from })
	j := i
	for j < len(toks) && toks[j].end <= to {
		j++
	}
	return toks[i:j]
}

// proseQty is an item's text before "at": its description and quantity.
// A leading count ("3 design concepts", "two site visits") is the
// quantity unless the amount the sentence states says the price is for the
// lot: lot is then the reading as one item of the whole text.
type proseQty struct {
	line extract.ExtractedLine
	lot  *extract.ExtractedLine // nil unless the count is an unmarked leading count
	// counts are the other numbers of the item's words ("translating
	// 4,200 words"): one of them is the quantity when the stated amount
	// says so.
	counts []string
}

// countNames are the counts written as words; "a", "an" and "the" are
// dropped before, so they read as one.
var countNames = map[string]string{
	"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
	"eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
}

// proseQuantity reads an item's text before "at": "the hull inspection"
// (one), "30 x warehousing", "21.75 hours of diver hours", "3 design
// concepts", "two site visits".
func proseQuantity(seg string, f numberFormat) (proseQty, bool) {
	s := strings.TrimSpace(seg)
	for _, p := range []string{",", "and ", "the ", "a ", "an "} {
		s = strings.TrimSpace(strings.TrimPrefix(s, p))
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		return proseQty{}, false
	}
	one := extract.ExtractedLine{Description: s, Quantity: "1"}
	q, marked, ok := leadingCount(words, f)
	if !ok {
		return proseQty{line: one, counts: countsIn(s, f)}, true
	}
	if q == "" {
		return proseQty{}, false // a count in no consistent format
	}
	rest := words[1:]
	switch {
	case len(rest) > 1 && isMulSign(rest[0]):
		rest, marked = rest[1:], true
	case len(rest) > 2 && unitWords[strings.ToLower(rest[0])] && rest[1] == "of":
		rest, marked = rest[2:], true
	}
	x := proseQty{line: extract.ExtractedLine{Description: strings.Join(rest, " "), Quantity: q}}
	if !marked {
		x.lot = &one
	}
	return x, true
}

// leadingCount reads the count that opens an item's words: a number (with
// a glued "x": "3x"), or a number word. A year ("2026 retainer") is no
// count. marked says the count was written as one ("3x"). ok is false when
// the words open with no count; q is empty when the number is in no
// consistent format.
func leadingCount(words []string, f numberFormat) (q string, marked, ok bool) {
	if len(words) < 2 {
		return "", false, false
	}
	if n, isName := countNames[strings.ToLower(words[0])]; isName {
		return n, false, true
	}
	toks := scanNumbers(words[0], false)
	if len(toks) != 1 || toks[0].start != 0 || toks[0].end != len(words[0]) || toks[0].cur != "" ||
		toks[0].neg || toks[0].pct || toks[0].unit != "" && toks[0].unit != "x" {
		return "", false, false
	}
	q, bad := canonicalTok(toks[0], f)
	if bad {
		return "", false, true
	}
	if toks[0].unit != "x" && isYear(q) && !isMulSign(words[1]) {
		return "", false, false
	}
	return q, toks[0].unit == "x", true
}

// isYear: a whole number from 1900 to 2099.
func isYear(q string) bool {
	n, err := strconv.Atoi(q)
	return err == nil && len(q) == 4 && n >= 1900 && n <= 2099
}

// settle chooses the quantity of an item whose amount the sentence
// states: "500 flyers at €45.00 (€45.00)" is one lot, "3 design concepts at
// ¥45,000 each (¥135,000)" three concepts, "translating 4,200 words at
// €0.12 per word (€504.00)" 4,200 words. When no reading adds up, the first
// stays and validation says so.
func (x proseQty) settle(price, amount string) extract.ExtractedLine {
	if amount == "" || timesEquals(x.line.Quantity, price, amount) {
		return x.line
	}
	if x.lot != nil && timesEquals("1", price, amount) {
		return *x.lot
	}
	for _, n := range x.counts {
		if timesEquals(n, price, amount) {
			l := x.line
			l.Quantity = n // "translating 4,200 words at €0.12 per word (€504.00)"
			return l
		}
	}
	return x.line
}

// countsIn returns the plain numbers of an item's words (no currency, no
// rate, not glued to letters).
func countsIn(s string, f numberFormat) []string {
	var out []string
	for _, t := range scanNumbers(s, f.spaces()) {
		if t.cur != "" || t.pct || t.neg || t.garbled || t.unit != "" && !unitWords[t.unit] {
			continue
		}
		if v, bad := canonicalTok(t, f); !bad {
			out = append(out, v)
		}
	}
	return out
}

// timesEquals reports whether qty × price is amount to within half of the
// amount's last written digit.
func timesEquals(qty, price, amount string) bool { return extract.ProductMatches(qty, price, amount) }

// priceAndAmount reads the price token and what follows it: "each" or
// "per hour", then an optional "(amount)". It returns where the item ends.
func priceAndAmount(text string, price numTok, toks []numTok, f numberFormat) (string, string, int) {
	p, bad := canonicalTok(price, f)
	if bad {
		return "", "", 0
	}
	end := price.end
	rest := text[end:]
	trimmed := strings.TrimLeft(rest, " ")
	for _, w := range []string{"each", "per "} {
		if strings.HasPrefix(strings.ToLower(trimmed), w) {
			adv := len(w)
			if w == "per " {
				adv += len(firstWord(trimmed[len(w):]))
			}
			end += len(rest) - len(trimmed) + adv
			break
		}
	}
	for _, t := range toks {
		if t.start >= end && t.neg && strings.TrimSpace(text[end:t.start]) == "" {
			a, bad := canonicalTok(numTok{raw: t.raw}, f) // "(¥18,300)": brackets, not a sign
			if !bad {
				return p, a, t.end
			}
		}
	}
	return p, "", end
}
