package rules

import (
	"strings"

	"github.com/relayops/relayops/extract"
)

// arithmeticRow reads an item row whose columns are one space apart, as
// text taken from a PDF often is: a description and three numbers that
// multiply out, quantity × price = amount, the amount last and the
// quantity first or right before the price ("3 Ergonomic office chair
// 149.99 449.97", "Logo design 10.0 80.00 800.00"). The arithmetic is the
// evidence: numbers that do not multiply out are no item.
func arithmeticRow(text string, f numberFormat) (extract.ExtractedLine, bool) {
	toks := moneyTokens(text, f)
	n := len(toks)
	if n < 3 || strings.TrimSpace(text[toks[n-1].end:]) != "" {
		return extract.ExtractedLine{}, false
	}
	p, a := toks[n-2], toks[n-1]
	for _, q := range []numTok{toks[0], toks[n-3]} {
		var desc string
		switch {
		case q.start == toks[0].start && strings.TrimSpace(text[:q.start]) == "" && n == 3:
			desc = text[q.end:p.start] // "3 Ergonomic office chair 149.99 449.97"
		case q.start == toks[n-3].start && strings.TrimSpace(text[q.end:p.start]) == "":
			desc = text[:q.start] // "Ergonomic office chair 3 149.99 449.97"
		default:
			continue
		}
		if x, ok := multipliedRow(desc, q, p, a, f); ok {
			return x, true
		}
	}
	return extract.ExtractedLine{}, false
}

func multipliedRow(desc string, q, p, a numTok, f numberFormat) (extract.ExtractedLine, bool) {
	desc = strings.TrimSpace(desc)
	if !hasLetter(desc) || q.cur != "" || q.neg || q.garbled || p.neg || a.garbled || p.garbled {
		return extract.ExtractedLine{}, false
	}
	qs, bad1 := canonicalTok(q, f)
	ps, bad2 := canonicalTok(p, f)
	as, bad3 := canonicalTok(a, f)
	if bad1 || bad2 || bad3 || strings.Trim(qs, "0.") == "" || !timesEquals(qs, ps, as) {
		return extract.ExtractedLine{}, false
	}
	return extract.ExtractedLine{Description: desc, Quantity: qs, UnitPrice: ps, Amount: as}, true
}
