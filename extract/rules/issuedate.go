package rules

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/relayops/relayops/extract"
)

// proseDateRe finds the words that introduce an issue date in running
// text: "dated 3 March 2026", "issued on March 3, 2026", and the place
// and date a German letter is written on ("München, den 01.11.2024").
var proseDateRe = regexp.MustCompile(`(?i)(?:\b(?:dated|issued(?:\s+on)?|date\s+of\s+issue|invoice\s+date)\b|\p{L},\s*den\b)[\s:,]*`)

// printStamp reports the line a printing system stamps on a page: a date
// with the time of day and the page number ("Datum: 30.10.2024  Zeit:
// 04:59:13  Seite: 1"). Its date is when the page was printed, not when
// the invoice was issued.
func printStamp(text string) bool {
	return timeOfDayRe.MatchString(text) && pageWordRe.MatchString(text)
}

var (
	timeOfDayRe = regexp.MustCompile(`\b\d{1,2}:\d{2}(?::\d{2})?\b`)
	pageWordRe  = regexp.MustCompile(`(?i)\b(?:seite|page|pagina|página|strona|side|sida|sivu|blad|stránka|strana|lehekülg)\b`)
)

// paidAfterRe is a date followed by words saying it is the day of a
// payment ("18/08/2022: The bill is paid."), not of the invoice.
var paidAfterRe = regexp.MustCompile(`(?i)\b(?:paid|payé|payée|bezahlt|pagato|pagado|betaald|zapłacono|zaplaceno|received)\b`)

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
		if printStamp(d.lines[h.line].text) {
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

// resolveDueDate returns the due date as YYYY-MM-DD from the first due
// date label whose value is a date ("Due date: 20/08/2022", "Fällig am:
// 22.04.2024"), or "". It is not required, so a date that stays ambiguous,
// or falls before the issue date, is left out rather than guessed.
func resolveDueDate(d *document, hits []hit, order dateOrder, issued string) string {
	for _, h := range byRank(hits, lkDueDate) {
		if h.rank > rankBelow || printStamp(d.lines[h.line].text) {
			continue
		}
		ds := findDates(h.value())
		if len(ds) == 0 {
			continue
		}
		if s, ok := ds[0].iso(order); ok && (issued == "" || s >= issued) {
			return s
		}
		return ""
	}
	if dt, ok := proseDueDate(d); ok {
		if s, ok := dt.iso(order); ok && (issued == "" || s >= issued) {
			return s
		}
	}
	return ""
}

// dueBy and payWords are the due phrases and paying stems of every
// language table.
var dueBy, payWords = func() (by, pay []string) {
	for _, l := range languages {
		by = append(by, strings.Split(l.dueBy, "|")...)
		pay = append(pay, strings.Split(l.payWords, "|")...)
	}
	slices.SortFunc(by, func(a, b string) int { return len(b) - len(a) }) // "bis zum" before "bis"
	return by, pay
}()

// proseDueDate finds the deadline a sentence about paying names: a date
// right after a due phrase on a line that speaks of paying ("Please
// transfer the money … due to 2024-03-22:", "Bitte überweise den Betrag
// bis 2024-02-26", "Prosimy o przelew do dnia 2024-03-25"). A period's end
// ("Leistungszeitraum 01.02. bis 29.02.2024") speaks of no paying.
func proseDueDate(d *document) (dateTok, bool) {
	for i := range d.lines {
		l := &d.lines[i]
		if l.used || l.blank() {
			continue
		}
		lower := strings.ToLower(l.text)
		if !slices.ContainsFunc(payWords, func(w string) bool { return w != "" && strings.Contains(lower, w) }) {
			continue
		}
		for _, dt := range findDates(l.text) {
			before := strings.TrimRight(strings.ToLower(l.text[:dt.start]), " ")
			for _, p := range dueBy {
				if p != "" && strings.HasSuffix(before, p) && (len(before) == len(p) || !isLetterByte(before[len(before)-len(p)-1]) && before[len(before)-len(p)-1] < utf8.RuneSelf) {
					return dt, true
				}
			}
		}
	}
	return dateTok{}, false
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
// item rows, print stamps and labelled other dates, with no due or period
// word before it on its line. A date that is the value of another label
// is that label's, known ("Due date:   20/08/2022", "Delivery
// 6/12/2024") or not ("Delv. Date: 5/16/2024"), and a date that a payment
// follows is the payment's ("18/08/2022: The bill is paid.").
func freeDate(d *document) (dateTok, bool) {
	for i := range d.lines {
		l := &d.lines[i]
		if l.used || (d.mail && i < d.mailEnd) || l.blank() || printStamp(l.text) {
			continue
		}
		for k := range l.cells {
			c := &l.cells[k]
			m, ok := c.labelOf()
			if ok && m.kind != lkIssueDate && m.kind != lkInvoiceNo || !ok && otherLabelBefore(l, k) {
				continue // another field's date; a title's is the issue date ("Invoice 2041 | 30 November 2026")
			}
			for _, dt := range findDates(c.text) {
				before := c.text[:dt.start]
				if !notIssueBefore(before) && !(!ok && unknownLabel(before)) && !paidAfterRe.MatchString(c.text[dt.end:]) {
					return dt, true
				}
			}
		}
	}
	return dateTok{}, false
}

// otherLabelBefore reports a cell whose nearest non-empty cell to its
// left on its line is a label of another field than the issue date or
// the number: the cell is that label's value.
func otherLabelBefore(l *line, k int) bool {
	for j := k - 1; j >= 0; j-- {
		c := &l.cells[j]
		if strings.TrimSpace(c.text) == "" {
			continue
		}
		m, ok := c.labelOf()
		return ok && m.kind != lkIssueDate && m.kind != lkInvoiceNo && labelValue(c.text, m) == ""
	}
	return false
}

// unknownLabel reports text that ends as a label does, with a colon after
// words ("Delv. Date:", "Coll. Date:"): a label the tables do not know,
// whose date is another field's.
func unknownLabel(before string) bool {
	t := strings.TrimSpace(before)
	return strings.HasSuffix(t, ":") && hasLetter(t)
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
