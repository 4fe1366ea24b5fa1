package rules

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of what the rules extractor reads. Documents come through the API
// whose request bodies are at most 1 MiB; anything longer is not an invoice.
const (
	// MaxDocumentBytes is the largest document the rules extractor reads.
	MaxDocumentBytes = 1 << 20
	// maxLineRunes: a longer line is cut; no invoice field needs more.
	maxLineRunes = 2000
	// maxCells: cells past this on one line are ignored.
	maxCells = 32
)

// document is the content as lines, each cleaned of markup and cut into
// cells.
type document struct {
	lines []line
	// mail: the document opens with e-mail headers (From:, Subject:, …);
	// mailEnd is the index of the blank line that ends them.
	mail    bool
	mailEnd int
	// pageStarts are the indexes of the lines that open a page after the
	// first: pdftotext ends each page with a form feed.
	pageStarts []int
}

// pageOf returns the 1-based page of line i.
func (d *document) pageOf(i int) int {
	p := 1
	for _, s := range d.pageStarts {
		if s <= i {
			p++
		}
	}
	return p
}

// line is one line of the document.
type line struct {
	// text is the line with tabs expanded, markdown emphasis, heading and
	// quote markers and a leading bullet removed, trailing spaces trimmed.
	text string
	// cells are the runs of text separated by two or more spaces, a tab or
	// a '|'.
	cells []cell
	// sep is the cell separator of a delimited row ('|' or ';'), else 0.
	sep rune
	// pipe: a delimited row ("| … |" or "a;b;c"); rule: a separator such
	// as "-----" or "|---|:--:|".
	pipe, rule bool
	// heading: a markdown heading ("# …").
	heading bool
	// bullet: the line started with "-", "*", "•" or "·".
	bullet bool
	// used: taken by the line-item table; field scans skip it.
	used bool
	// role says what the line was found to be, for the later scans.
	role lineRole
}

// lineRole marks lines the scans must treat apart.
type lineRole uint8

const (
	roleNone lineRole = iota
	roleItemHeader
	roleItem
	roleSummary
	roleCustomer // inside a "Bill to" or "Ship to" block
	roleFieldHeader
)

// cell is a run of text on a line with its rune columns [start, end).
type cell struct {
	text       string
	start, end int
	// label, labelOK cache matchLabel(text) once labelDone: most scans
	// ask a cell for its label, several times per document.
	label              labelMatch
	labelOK, labelDone bool
	// customer: the cell is part of a "Bill to" or "Ship to" block.
	customer bool
}

// labelOf returns matchLabel(c.text), computed once per cell.
func (c *cell) labelOf() (labelMatch, bool) {
	if !c.labelDone {
		c.label, c.labelOK = matchLabel(c.text)
		c.labelDone = true
	}
	return c.label, c.labelOK
}

func (l *line) blank() bool { return l.text == "" }

// parseDocument splits content into lines. Content past MaxDocumentBytes is
// ignored (Classify rejects such a document before).
func parseDocument(content string) *document {
	if len(content) > MaxDocumentBytes {
		content = content[:MaxDocumentBytes]
	}
	n := strings.Count(content, "\n") + 1
	d := &document{lines: make([]line, 0, n)}
	cs := cellStore{chunk: make([]cell, 0, n)}
	for raw := range strings.Lines(content) {
		if strings.IndexByte(raw, '\f') >= 0 && len(d.lines) > 0 {
			d.pageStarts = append(d.pageStarts, len(d.lines))
		}
		d.lines = append(d.lines, parseLine(raw, &cs))
	}
	d.mail = detectMail(d.lines)
	if d.mail {
		d.mailEnd = len(d.lines)
		for i := range d.lines {
			if d.lines[i].blank() && i > 0 && !d.lines[i-1].blank() {
				d.mailEnd = i
				break
			}
		}
	}
	return d
}

// plainSpaces turns the no-break and thin spaces of text copied from a web
// page or a PDF into ordinary ones, so that they separate words and
// columns; between two digits one stays, grouping them ("1 234,56"), and
// a typographic apostrophe between two digits becomes the ASCII one that
// groups Swiss amounts ("1’756.05"). A soft hyphen that opens a number
// ("­5,15", as some PDF writers encode the minus sign) is a minus sign.
func plainSpaces(s string) string {
	if isASCII(s) || !strings.ContainsAny(s, "\u00a0\u202f\u2009\u2007\u2019\u00ad") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := rune(0)
	for i, r := range s {
		next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
		switch {
		case r == '\u00a0' || r == '\u202f' || r == '\u2009' || r == '\u2007':
			if !(unicode.IsDigit(prev) && unicode.IsDigit(next)) {
				r = ' '
			}
		case r == '\u2019' && unicode.IsDigit(prev) && unicode.IsDigit(next):
			r = '\'' // the Swiss "1’756.05": a typographic apostrophe groups digits
		case r == '\u00ad' && unicode.IsDigit(next) && !unicode.IsLetter(prev) && !unicode.IsDigit(prev):
			r = '-'
		}
		b.WriteRune(r)
		prev = r
	}
	return b.String()
}

func parseLine(raw string, cs *cellStore) line {
	raw = strings.TrimRight(raw, "\r\n")
	if !utf8.ValidString(raw) {
		raw = strings.ToValidUTF8(raw, " ")
	}
	text := expandTabs(plainSpaces(raw))
	var l line
	text, l.heading = stripHeading(text)
	text = stripLeaders(stripMarkdown(text))
	text = accountingFormat(text)
	text = joinSpacedLetters(text)
	if strings.Contains(text, ". ") {
		text = spacedDateRe.ReplaceAllString(text, "$1.$2.$3  ")
	}
	text, l.bullet = stripBullet(text)
	l.text = strings.TrimRight(text, " ")
	l.rule = isRule(l.text)
	l.sep = cellSeparator(l.text)
	l.pipe = !l.rule && l.sep != 0
	if !l.rule {
		l.cells = cs.split(l.text, l.sep)
	}
	return l
}

// spacedDateRe is a date written with a space after each dot, the Czech
// and Slovak standard form ("10. 02. 2015"); it is read as "10.02.2015",
// padded so that the columns right of it stay in place.
var spacedDateRe = regexp.MustCompile(`\b(\d{1,2})\. (\d{1,2})\. (\d{4})\b`)

// spacedLettersRe is a word written letter-spaced for emphasis: "T O T A
// A L", "W A R E N R E C H N U N G" (capitals, four at least).
var spacedLettersRe = regexp.MustCompile(`(?:^|\b)(?:\p{Lu} ){3,}\p{Lu}\b`)

// joinSpacedLetters writes a letter-spaced word as a word, padded after it
// with the spaces it loses so that the columns right of it stay in place.
func joinSpacedLetters(s string) string {
	if !hasSpacedCapitals(s) || !spacedLettersRe.MatchString(s) {
		return s
	}
	return spacedLettersRe.ReplaceAllStringFunc(s, func(m string) string {
		w := strings.ReplaceAll(m, " ", "")
		return w + strings.Repeat(" ", utf8.RuneCountInString(m)-utf8.RuneCountInString(w))
	})
}

// hasSpacedCapitals reports two ASCII capitals one space apart, "T O": the
// cheap test before spacedLettersRe (most lines have none). A word spaced
// in other capitals ("Ä Ö …") has at least one such pair too, unless every
// letter is outside ASCII, which is left as written.
func hasSpacedCapitals(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i+1] == ' ' && s[i] >= 'A' && s[i] <= 'Z' && s[i+2] >= 'A' && s[i+2] <= 'Z' {
			return true
		}
	}
	return false
}

// accountingGapRe is a currency symbol set apart from its amount, as a
// spreadsheet's accounting format prints it: "$            500,00", and
// "$              -" for nothing.
var accountingGapRe = regexp.MustCompile(`([$€£]) {2,}(-(?: |$)|\d)`)

// accountingFormat moves the symbol next to its amount and blanks the dash
// that stands for no amount, keeping every column where it was: the
// amount's end, where aligned totals are read, does not move.
func accountingFormat(s string) string {
	if !strings.ContainsAny(s, "$€£") || !strings.Contains(s, "  ") {
		return s
	}
	return accountingGapRe.ReplaceAllStringFunc(s, func(m string) string {
		sym, _ := utf8.DecodeRuneInString(m)
		rest := strings.TrimLeft(m[utf8.RuneLen(sym):], " ")
		width := utf8.RuneCountInString(m)
		if strings.HasPrefix(rest, "-") {
			return strings.Repeat(" ", width-utf8.RuneCountInString(rest)) + strings.Replace(rest, "-", " ", 1)
		}
		return strings.Repeat(" ", width-1-utf8.RuneCountInString(rest)) + string(sym) + rest
	})
}

// cellSeparator returns '|' for a pipe row, ';' for a semicolon-delimited
// export row, else 0.
func cellSeparator(s string) rune {
	switch {
	case strings.Count(s, "|") >= 2:
		return '|'
	case strings.Count(s, ";") >= 2 && !strings.Contains(s, "  "):
		return ';'
	}
	return 0
}

// leaderRe matches dot leaders ("Labour ......... £270.00").
var leaderRe = regexp.MustCompile(`\.{3,}|…+`)

// stripLeaders turns dot leaders into spaces, keeping columns.
func stripLeaders(s string) string {
	if !strings.Contains(s, "...") && !strings.Contains(s, "…") {
		return s
	}
	return leaderRe.ReplaceAllStringFunc(s, func(m string) string {
		return strings.Repeat(" ", utf8.RuneCountInString(m)+1)
	})
}

// expandTabs turns tabs into spaces up to the next multiple of 8, at least
// two so that a tab always separates cells, and cuts the line at
// maxLineRunes.
func expandTabs(s string) string {
	if !strings.ContainsRune(s, '\t') && len(s) <= maxLineRunes {
		return s
	}
	var b strings.Builder
	col := 0
	for _, r := range s {
		if col >= maxLineRunes {
			break
		}
		if r != '\t' {
			b.WriteRune(r)
			col++
			continue
		}
		n := 8 - col%8
		if n < 2 {
			n += 8
		}
		b.WriteString(strings.Repeat(" ", n))
		col += n
	}
	return b.String()
}

// stripHeading removes a markdown heading marker or an e-mail quote marker.
func stripHeading(s string) (string, bool) {
	t := strings.TrimLeft(s, " ")
	for strings.HasPrefix(t, ">") {
		t = strings.TrimLeft(t[1:], " ")
		s = t
	}
	if !strings.HasPrefix(t, "#") {
		return s, false
	}
	h := strings.TrimLeft(t, "#")
	if len(t)-len(h) > 6 || (h != "" && h[0] != ' ') || strings.Contains(strings.TrimSpace(h), "  ") {
		return s, false // "#4471" is a number, "#   Qty   Description" a table header
	}
	return strings.TrimSpace(h), true
}

// stripMarkdown removes emphasis and code markers, keeping columns aligned
// by replacing them with nothing only when they hug text.
func stripMarkdown(s string) string {
	if !containsASCII(s, "*_`") {
		return s
	}
	return markdownReplacer.Replace(s)
}

var markdownReplacer = strings.NewReplacer("**", "", "__", "", "`", "")

// stripBullet removes a leading list bullet ("- ", "* ", "• ").
func stripBullet(s string) (string, bool) {
	t := strings.TrimLeft(s, " ")
	for _, b := range []string{"- ", "* ", "• ", "· ", "– "} {
		if strings.HasPrefix(t, b) {
			indent := len(s) - len(t)
			return strings.Repeat(" ", indent+len(b)) + t[len(b):], true
		}
	}
	return s, false
}

// isRule reports a separator line: at least three of - = _ ~ and nothing
// but those, '|', ':', '+' and spaces.
func isRule(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '-', '=', '_', '~', '*':
			n++
		case '|', ':', '+', ' ':
		default:
			return false
		}
	}
	return n >= 3
}

// cellStore holds the cells of a document's lines: a line is split into
// scratch, then its cells are copied into a shared chunk, so that a
// document costs a few allocations rather than one or more per line.
type cellStore struct {
	scratch, chunk []cell
}

// split cuts a line into cells at its separator ('|' or ';', empty cells
// kept so that cells keep their column) or at runs of two or more spaces.
// The cells are capped so that an append to them can never overwrite the
// next line's.
func (cs *cellStore) split(s string, sep rune) []cell {
	var cells []cell
	if sep != 0 {
		cs.scratch = splitPipes(s, sep, cs.scratch[:0])
		cells = trimEmptyEnds(cs.scratch)
	} else {
		cs.scratch = splitSpaces(s, cs.scratch[:0])
		cells = cs.scratch
	}
	if len(cells) > maxCells {
		cells = cells[:maxCells]
	}
	if len(cells) == 0 {
		return nil
	}
	if cap(cs.chunk)-len(cs.chunk) < len(cells) {
		cs.chunk = make([]cell, 0, max(len(cells), 2*cap(cs.chunk)))
	}
	start := len(cs.chunk)
	cs.chunk = append(cs.chunk, cells...)
	return cs.chunk[start:len(cs.chunk):len(cs.chunk)]
}

// splitPipes appends the cells of a delimited row to cells.
func splitPipes(s string, sep rune, cells []cell) []cell {
	col, startCol, startByte := 0, 0, 0
	for i, r := range s {
		if r == sep {
			cells = append(cells, trimmedCell(s[startByte:i], startCol))
			startCol, startByte = col+1, i+1
		}
		col++
	}
	return append(cells, trimmedCell(s[startByte:], startCol))
}

// trimEmptyEnds drops the empty cells outside the first and last
// delimiters ("| a | b |").
func trimEmptyEnds(cells []cell) []cell {
	if cells[0].text == "" {
		cells = cells[1:]
	}
	if len(cells) > 0 && cells[len(cells)-1].text == "" {
		cells = cells[:len(cells)-1]
	}
	return cells
}

// trimmedCell makes a cell of raw text that starts at rune column col.
func trimmedCell(raw string, col int) cell {
	lead := len(raw) - len(strings.TrimLeft(raw, " "))
	t := strings.TrimSpace(raw)
	start := col + lead
	return cell{text: t, start: start, end: start + runeCount(t)}
}

// splitSpaces appends the cells of s, cut at runs of two or more spaces, to
// cells.
func splitSpaces(s string, cells []cell) []cell {
	col, spaces := 0, 0
	startCol, startByte := -1, 0
	flush := func(endByte int) {
		if startCol >= 0 {
			cells = append(cells, trimmedCell(s[startByte:endByte], startCol))
		}
		startCol = -1
	}
	for i, r := range s {
		if r == ' ' {
			spaces++
			if spaces == 2 {
				flush(i - 1)
			}
		} else {
			if startCol < 0 {
				startCol, startByte = col, i
			}
			spaces = 0
		}
		col++
	}
	flush(len(s))
	return cells
}

// mailHeaders are the header names that make a document an e-mail.
var mailHeaders = []string{"from:", "to:", "subject:", "date:", "sent:", "cc:"}

// detectMail reports whether the document opens with a block of at least
// two e-mail headers, one of them Subject or From.
func detectMail(lines []line) bool {
	n, key := 0, false
	for i := range lines {
		t := strings.ToLower(strings.TrimSpace(lines[i].text))
		if t == "" && n == 0 {
			continue
		}
		h := mailHeaderName(t)
		if h == "" {
			break
		}
		n++
		key = key || h == "from:" || h == "subject:"
	}
	return n >= 2 && key
}

func mailHeaderName(lower string) string {
	for _, h := range mailHeaders {
		if strings.HasPrefix(lower, h) {
			return h
		}
	}
	return ""
}

// nextNonBlank returns the index of the first line after i, at most
// three lines down, that is neither blank nor a rule, or -1: every caller
// looks for a neighbour, and a bound keeps long runs of blank lines linear.
func (d *document) nextNonBlank(i int) int {
	for j := i + 1; j < len(d.lines) && j <= i+3; j++ {
		if !d.lines[j].blank() && !d.lines[j].rule {
			return j
		}
	}
	return -1
}
