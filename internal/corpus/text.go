package corpus

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// page accumulates the lines of a document.
type page struct{ lines []string }

func (p *page) add(lines ...string) { p.lines = append(p.lines, lines...) }

// blank adds an empty line unless the page is empty or already ends with one.
func (p *page) blank() {
	if n := len(p.lines); n > 0 && p.lines[n-1] != "" {
		p.lines = append(p.lines, "")
	}
}

func (p *page) String() string {
	for len(p.lines) > 0 && p.lines[len(p.lines)-1] == "" {
		p.lines = p.lines[:len(p.lines)-1]
	}
	out := make([]string, len(p.lines))
	for i, l := range p.lines {
		out[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(out, "\n") + "\n"
}

func width(s string) int { return utf8.RuneCountInString(s) }

// padRight pads s with spaces to w runes.
func padRight(s string, w int) string {
	if n := width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// padLeft right-aligns s in w runes.
func padLeft(s string, w int) string {
	if n := width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// center centres s in w runes.
func center(s string, w int) string {
	if n := width(s); n < w {
		return strings.Repeat(" ", (w-n)/2) + s
	}
	return s
}

// column of an aligned table.
type column struct {
	head  string
	right bool
}

// tableStyle is how a plain-text table is drawn.
type tableStyle struct {
	gap  string // between columns
	rule string // "" for none, else the character repeated under the header
	// ruleSpan: one rule across the whole table instead of one per column.
	ruleSpan bool
	upper    bool // header in capitals
}

// table writes rows under a header row, every column as wide as its widest
// cell.
func table(cols []column, rows [][]string, st tableStyle) []string {
	widths := make([]int, len(cols))
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = c.head
		if st.upper {
			head[i] = strings.ToUpper(c.head)
		}
		widths[i] = width(head[i])
	}
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], width(cell))
		}
	}
	format := func(cells []string) string {
		parts := make([]string, len(cells))
		for i, cell := range cells {
			if cols[i].right {
				parts[i] = padLeft(cell, widths[i])
			} else {
				parts[i] = padRight(cell, widths[i])
			}
		}
		return strings.Join(parts, st.gap)
	}
	out := []string{format(head)}
	if st.rule != "" {
		if st.ruleSpan {
			out = append(out, strings.Repeat(st.rule, width(format(head))))
		} else {
			rules := make([]string, len(cols))
			for i := range cols {
				rules[i] = strings.Repeat(st.rule, widths[i])
			}
			out = append(out, strings.Join(rules, st.gap))
		}
	}
	for _, row := range rows {
		out = append(out, format(row))
	}
	return out
}

// tableWidth is the width of the widest line of a table.
func tableWidth(lines []string) int {
	w := 0
	for _, l := range lines {
		w = max(w, width(l))
	}
	return w
}

// fieldStyle is how a block of "label value" fields is written.
type fieldStyle int

const (
	fieldColon        fieldStyle = iota // Label: value
	fieldColonAligned                   // Label:      value
	fieldAligned                        // Label       value
	fieldUpper                          // LABEL: value
)

// fields writes label/value pairs in one style.
func fields(style fieldStyle, pairs [][2]string) []string {
	w := 0
	for _, p := range pairs {
		w = max(w, width(p[0]))
	}
	out := make([]string, len(pairs))
	for i, p := range pairs {
		switch style {
		case fieldColonAligned:
			out[i] = padRight(p[0]+":", w+2) + " " + p[1]
		case fieldAligned:
			out[i] = padRight(p[0], w+3) + p[1]
		case fieldUpper:
			out[i] = strings.ToUpper(p[0]) + ": " + p[1]
		default:
			out[i] = p[0] + ": " + p[1]
		}
	}
	return out
}

func pickFieldStyle(r *rand.Rand) fieldStyle { return fieldStyle(r.IntN(4)) }

// sideBySide writes left and right blocks on the same lines, the right one
// starting at column at.
func sideBySide(left, right []string, at int) []string {
	n := max(len(left), len(right))
	out := make([]string, n)
	for i := range n {
		l, rt := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			rt = right[i]
		}
		out[i] = padRight(l, at) + rt
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }
