package rules

import (
	"regexp"
	"strings"

	"github.com/relayops/relayops/extract"
)

// proseDateRe finds the words that introduce an issue date in running
// text: "dated 3 March 2026", "issued on March 3, 2026".
var proseDateRe = regexp.MustCompile(`(?i)\b(?:dated|issued(?:\s+on)?|date\s+of\s+issue|invoice\s+date)\b[\s:,]*`)

// notIssueWords before a date on its line make it another date: a due
// date, a period, a delivery.
var notIssueWords = []string{"due", " by", "until", "before", "payable", "period", "from", "through",
	"deliver", "valid", "expir", "paid", "ship", "order", "service", "between", " to ", " -", "–", "pay "}

// resolveIssueDate returns the issue date as YYYY-MM-DD: from a date label,
// else running text ("dated …"), else a title line, else the first date
// that is not a due date or period, else the e-mail's Date header. An
// ambiguous date (03/04/2026 with no evidence of the order) is a problem.
func resolveIssueDate(d *document, hits []hit, order dateOrder) (string, string) {
	var mail []hit
	for _, h := range byRank(hits, lkIssueDate) {
		if h.rank == rankMail {
			mail = append(mail, h)
			continue
		}
		if ds := findDates(h.value()); len(ds) > 0 {
			return isoOrProblem(ds[0], order)
		}
	}
	if dt, ok := titleDate(d); ok {
		return isoOrProblem(dt, order)
	}
	if dt, ok := proseDate(d); ok {
		return isoOrProblem(dt, order)
	}
	if dt, ok := freeDate(d); ok {
		return isoOrProblem(dt, order)
	}
	for _, h := range mail {
		if ds := findDates(h.value()); len(ds) > 0 {
			return isoOrProblem(ds[0], order)
		}
	}
	return "", ""
}

func isoOrProblem(dt dateTok, order dateOrder) (string, string) {
	if s, ok := dt.iso(order); ok {
		return s, ""
	}
	return "", extract.ReasonAmbiguousDate
}

// titleDate finds the date of a title that names the invoice and its
// number: "HANDELSRECHNUNG (380) Nr. 471102 vom 05.03.2018".
func titleDate(d *document) (dateTok, bool) {
	for _, text := range titleTexts(d) {
		if numberAfterInvoiceWord(text) == "" {
			continue
		}
		for _, dt := range findDates(text) {
			if !notIssueBefore(text[:dt.start]) {
				return dt, true
			}
		}
	}
	return dateTok{}, false
}

// proseDate finds a date introduced by "dated" or "issued on".
func proseDate(d *document) (dateTok, bool) {
	for i := range d.lines {
		l := &d.lines[i]
		if l.used || (d.mail && i < d.mailEnd) {
			continue
		}
		for _, m := range proseDateRe.FindAllStringIndex(l.text, -1) {
			if ds := findDates(l.text[m[1]:]); len(ds) > 0 && ds[0].start == 0 {
				return ds[0], true
			}
		}
	}
	return dateTok{}, false
}

// freeDate returns the first date of the document outside e-mail headers,
// item rows and labelled other dates, with no due or period word before it
// on its line.
func freeDate(d *document) (dateTok, bool) {
	for i := range d.lines {
		l := &d.lines[i]
		if l.used || (d.mail && i < d.mailEnd) || l.blank() {
			continue
		}
		for k := range l.cells {
			c := &l.cells[k]
			if m, ok := c.labelOf(); ok && m.kind != lkIssueDate && m.kind != lkInvoiceNo {
				continue // another field's date; a title's is the issue date ("Invoice 2041 | 30 November 2026")
			}
			for _, dt := range findDates(c.text) {
				if !notIssueBefore(c.text[:dt.start]) {
					return dt, true
				}
			}
		}
	}
	return dateTok{}, false
}

func notIssueBefore(before string) bool {
	b := " " + strings.ToLower(before)
	for _, w := range notIssueWords {
		if strings.Contains(b, w) {
			return true
		}
	}
	return false
}
