package rules

import (
	"regexp"
	"sort"
	"strings"
)

// amountClass groups the amount labels for the prose scan: a class found
// as a labelled row is not looked for again in running text.
func amountClass(k labelKind) labelKind {
	switch k {
	case lkAmountDue, lkTotal:
		return lkTotal
	case lkTaxIncluded:
		return lkTax
	case lkShipping, lkDiscount, lkFee, lkRounding:
		return lkShipping
	}
	return k
}

// paragraph is running text joined from consecutive lines, with the line
// each byte came from.
type paragraph struct {
	text   string
	starts []int // byte offset where each joined line starts
	first  int   // index of its first line
	// prose: a line of it is a sentence (ten words or more in one cell),
	// so its labels are read as prose, not as rows.
	prose bool
}

// last returns the index of the paragraph's last line.
func (p paragraph) last() int { return p.first + len(p.starts) - 1 }

func (p paragraph) lineAt(pos int) int {
	k := sort.Search(len(p.starts), func(i int) bool { return p.starts[i] > pos }) - 1
	return p.first + max(k, 0)
}

// paragraphs joins the lines of d that no table, item or e-mail header
// took into paragraphs (a blank line ends one).
func paragraphs(d *document) []paragraph {
	var out []paragraph
	var cur paragraph
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			cur.text = b.String()
			out = append(out, cur)
		}
		b.Reset()
		cur = paragraph{}
	}
	for i := range d.lines {
		l := &d.lines[i]
		if l.blank() || l.rule || l.used || (d.mail && i < d.mailEnd) {
			flush()
			continue
		}
		if b.Len() == 0 {
			cur.first = i
		} else {
			b.WriteByte(' ')
		}
		cur.starts = append(cur.starts, b.Len())
		b.WriteString(strings.TrimSpace(l.text))
		cur.prose = cur.prose || len(l.cells) == 1 && countFields(l.text) >= 10 && !labelledField(l.text)
	}
	flush()
	return out
}

// labelledField reports a line that opens with a label and a colon ("Bill
// to: Meridian Dental, 4 Park Row, Bristol BS1 5LJ"): a field, however many
// words its value has, not a sentence.
func labelledField(text string) bool {
	m, ok := matchLabel(text)
	return ok && m.colon
}

// proseLines returns the running-text lines of prose paragraphs: one cell,
// not a delimited row.
func proseLines(d *document, ps []paragraph) map[int]bool {
	out := map[int]bool{}
	for _, p := range ps {
		for i := p.first; p.prose && i <= p.last(); i++ {
			if l := &d.lines[i]; len(l.cells) == 1 && !l.pipe {
				out[i] = true
			}
		}
	}
	return out
}

// proseRows reads amounts written in sentences ("The subtotal is
// ¥359,860, less discount 2.5% (¥8,997), plus freight of ¥1,350 … so the
// total due is ¥387,434"): every amount of a prose paragraph, and in other
// text the classes of amount no labelled row gave.
func proseRows(ps []paragraph, f numberFormat, labelled []amountRow) []amountRow {
	have := map[labelKind]bool{}
	for _, r := range labelled {
		have[amountClass(r.kind)] = true
	}
	var rows []amountRow
	for _, p := range ps {
		if p.prose {
			rows = append(rows, paragraphRows(p, f, nil)...)
		} else {
			rows = append(rows, paragraphRows(p, f, have)...)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].line < rows[j].line })
	return rows
}

// paragraphRows finds amount labels anywhere in a paragraph, each followed
// (after at most a rate, a base and small words) by its amount. A tax or a
// charge must be introduced as one ("plus freight of", "less discount"),
// so that an item ("the berth fee at €52.09") is not read as a charge.
func paragraphRows(p paragraph, f numberFormat, have map[labelKind]bool) []amountRow {
	rows := append(summingRows(p, f, have), inTotalRows(p, f, have)...)
	s := p.text
	for pos := 0; pos < len(s); pos++ {
		if !wordStart(s, pos) || !labelInitials[lowerByte(s[pos])] {
			continue
		}
		m, ok := matchLabel(s[pos:])
		if !ok {
			continue
		}
		start := pos
		pos += m.end - 1 // the words of a label are not labels themselves ("Net Total")
		if !m.kind.isAmount() || have[amountClass(m.kind)] || m.kind == lkPaid {
			continue
		}
		if needsIntroduction(m.kind) && !introduced(s[:start]) && !selfIntroduced(m.phrase) {
			continue
		}
		rest := s[start+m.end:]
		tok, ok := proseValue(rest, f)
		if !ok || !moneyShaped(tok, f) && !ratedWhole(rest[:tok.start], f) {
			continue
		}
		if tok.neg && m.kind == lkTax && strings.HasPrefix(rest[tok.start:], "(") {
			tok.neg = false // "plus VAT (£270.00)": brackets around an aside, not a sign
		}
		v, bad := canonicalTok(tok, f)
		rows = append(rows, amountRow{kind: m.kind, phrase: m.phrase, raw: s[start : start+m.end],
			amount: v, bad: bad, line: p.lineAt(start)})
	}
	return rows
}

// summingRe finds a sentence that sums the items without naming the
// amount: "That comes to 396,750, plus Tax 10% of 39,675".
var summingRe = regexp.MustCompile(`(?i)\b(?:that|this|which|it)\s+(?:comes|amounts|adds\s+up)\s+to\b`)

// summingRows reads "That comes to X": the subtotal when tax or a charge
// follows in the sentence ("plus", "less"), else the total.
func summingRows(p paragraph, f numberFormat, have map[labelKind]bool) []amountRow {
	var rows []amountRow
	if !strings.Contains(p.text, " to ") {
		return nil
	}
	for _, m := range summingRe.FindAllStringIndex(p.text, -1) {
		tok, ok := proseValue(p.text[m[1]:], f)
		if !ok {
			continue
		}
		kind, sentence := lkTotal, p.text[m[1]:]
		if end := strings.Index(sentence, ". "); end >= 0 {
			sentence = sentence[:end]
		}
		if strings.Contains(sentence, "plus") || strings.Contains(sentence, "less") {
			kind = lkSubtotal
		}
		if have[amountClass(kind)] {
			continue
		}
		v, bad := canonicalTok(tok, f)
		rows = append(rows, amountRow{kind: kind, phrase: "sum", amount: v, bad: bad, line: p.lineAt(m[0])})
	}
	return rows
}

// inTotalRe finds an amount named after it: "so £1,620.00 in total".
var inTotalRe = regexp.MustCompile(`(?i)\s(?:in\s+total|all\s+in|in\s+all)\b`)

// inTotalRows reads "£1,620.00 in total": the amount right before the
// words is the total.
func inTotalRows(p paragraph, f numberFormat, have map[labelKind]bool) []amountRow {
	if have[lkTotal] || !strings.Contains(p.text, " in") && !strings.Contains(p.text, " IN") && !strings.Contains(p.text, " In") {
		return nil
	}
	var rows []amountRow
	for _, m := range inTotalRe.FindAllStringIndex(p.text, -1) {
		toks := amountTokens(p.text[:m[0]], f)
		if len(toks) == 0 {
			continue
		}
		t := toks[len(toks)-1]
		if strings.TrimSpace(p.text[t.end:m[0]]) != "" || !moneyShaped(t, f) {
			continue
		}
		v, bad := canonicalTok(t, f)
		rows = append(rows, amountRow{kind: lkTotal, phrase: "in total", amount: v, bad: bad, line: p.lineAt(t.start)})
	}
	return rows
}

func wordStart(s string, pos int) bool {
	return isLetterByte(s[pos]) && (pos == 0 || !isLetterByte(s[pos-1]) && !isDigit(s[pos-1]))
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// labelInitials are the first letters of the amount labels: a cheap
// filter before matching at every word of a paragraph.
var labelInitials = func() map[byte]bool {
	m := map[byte]bool{}
	for phrase, k := range labels {
		if k.isAmount() {
			m[phrase[0]] = true
		}
	}
	return m
}()

func needsIntroduction(k labelKind) bool { return k == lkTax || k.isCharge() }

// selfIntroduced: a label that says it is added or taken off ("plus VAT",
// "less discount").
func selfIntroduced(phrase string) bool {
	return strings.HasPrefix(phrase, "plus ") || strings.HasPrefix(phrase, "less ") || strings.HasPrefix(phrase, "add ")
}

// introduced reports a tax or charge introduced by "plus", "less", "and",
// "incl." or a comma, or opening a sentence.
func introduced(before string) bool {
	t := strings.TrimRight(before, " ")
	if t == "" || strings.HasSuffix(t, ".") || strings.HasSuffix(t, ",") || strings.HasSuffix(t, ":") {
		return true
	}
	w := strings.ToLower(t[strings.LastIndexByte(t, ' ')+1:])
	switch strings.Trim(w, "(") {
	case "plus", "less", "minus", "and", "add", "incl", "incl.", "including", "with", "includes":
		return true
	}
	return false
}

// proseFillers may stand between an amount label and its amount in a
// sentence ("is", "of", "amounts to"); "at" may not: it prices an item.
var proseFillers = map[string]bool{
	"is": true, "of": true, "to": true, "amounts": true, "comes": true, "are": true, "was": true,
	"now": true, "due": true, "payable": true, "the": true, "on": true, "totals": true, "totalling": true,
	"totaling": true, "in": true, "amount": true,
}

// proseValue returns the amount that follows a label in a sentence, with
// only fillers, rates and their bases, brackets and currencies before it.
func proseValue(rest string, f numberFormat) (numTok, bool) {
	toks := amountTokens(rest, f)
	for i, t := range toks {
		gap := rest[:t.start]
		if i > 0 {
			gap = rest[toks[i-1].end:t.start]
		}
		if !proseGap(gap) {
			return numTok{}, false
		}
		if isBase(rest[:t.end], t) && i+1 < len(toks) {
			continue // "… 25% on 10 678,50: 2 669,63"
		}
		return t, true
	}
	return numTok{}, false
}

// gapRateRe finds a rate in the words between a label and its amount,
// decimal comma included ("less discount (2,5%) (35,42)").
var gapRateRe = regexp.MustCompile(`\d+(?:[.,]\d+)?\s?%`)

func proseGap(gap string) bool {
	if strings.IndexByte(gap, '%') >= 0 {
		gap = gapRateRe.ReplaceAllString(gap, " 1% ") // one word, its decimal comma no separator
	}
	words := strings.FieldsFunc(gap, func(r rune) bool { return strings.ContainsRune(" :()[]@=,", r) })
	for i, w := range words {
		w = strings.Trim(w, ".")
		if w == "" {
			continue
		}
		lw := strings.ToLower(w)
		rateNext := i+1 < len(words) && rateEnd(words[i+1], 0) > 0
		if !proseFillers[lw] && !isCurrencyWord(w) && rateEnd(w, 0) != len(w) && w != "%" && !(lw == "at" && rateNext) {
			return false
		}
	}
	return len(words) <= 6
}

// ratedWhole: in a currency without decimals, a bare whole number after
// the label's rate is its amount ("plus Tax (8%) of 496"): the rate says
// the label is a tax, not a term like "Net 60".
func ratedWhole(gap string, f numberFormat) bool {
	return f.minor == 0 && strings.Contains(gap, "%")
}

// moneyShaped: written as money, with a currency or the currency's
// decimals ("Net 60" is a payment term, "€ 60" or "60.00" an amount).
func moneyShaped(t numTok, f numberFormat) bool {
	if t.cur != "" {
		return true
	}
	i := strings.LastIndexAny(t.raw, ".,")
	if f.minor == 0 {
		return i >= 0
	}
	return i >= 0 && len(t.raw)-i-1 == f.minor
}
