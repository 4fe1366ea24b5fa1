package console

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/relayops/relayops/supplier"
)

// An anchor in words: where a profile finds a field's value on the
// supplier's documents and in which form it is printed, as a person
// checks it against a document ("right of 'Gesamtbetrag', on page 1,
// written 1.234,56").

// anchorWhere says where a's value is and how it is written.
func anchorWhere(a supplier.Anchor) string {
	parts := []string{relationWords(a)}
	if a.Occurrences > 1 && a.Occurrence > 0 {
		parts = append(parts, fmt.Sprintf("the %s of %d such rows", ordinal(a.Occurrence), a.Occurrences))
	}
	if a.Page > 0 {
		where := "on page " + strconv.Itoa(a.Page)
		if a.Region != "" {
			where += ", " + a.Region + " side"
		}
		parts = append(parts, where)
	}
	if f := formatWords(a.Format); f != "" {
		parts = append(parts, f)
	}
	return strings.Join(parts, ", ")
}

// relationWords says how a's value stands to its label.
func relationWords(a supplier.Anchor) string {
	switch a.Relation {
	case supplier.RelationRight:
		return "right of " + quoted(a.Label)
	case supplier.RelationBelow:
		s := "below " + quoted(a.Label) + " in its column"
		if a.Below > 1 {
			s += " (the " + ordinal(a.Below) + " cell under it)"
		}
		return s
	case supplier.RelationName:
		return "the issuer's name as printed anywhere on the page"
	case supplier.RelationIdentity:
		return "not printed (a logo): the name a person gave for the identifiers the page states"
	case supplier.RelationMarker:
		return "told by the marker " + quoted(a.Label) + " printed with the amounts"
	case supplier.RelationComputed:
		return "not printed: the validator computes it from the other amounts"
	}
	return "found by " + quoted(a.Relation)
}

// quoted is a label as printed, in quotes.
func quoted(s string) string { return "'" + s + "'" }

// formatWords shows the printed form of a value by a sample written in
// it: "written 1.234,56 €", "written 31.12.2024", "written like #A-9 (A
// letters, 9 digits)". Parts the learning did not know are left out.
func formatWords(f supplier.Format) string {
	switch f.Kind {
	case supplier.FormatAmount:
		return "written " + amountSample(f)
	case supplier.FormatDate:
		return dateWords(f)
	case supplier.FormatText:
		return textWords(f)
	}
	return ""
}

// amountSample writes 1234.56 in f's marks, with its currency marker;
// 234.56 when no amount it learned from showed the thousands separator.
func amountSample(f supplier.Format) string {
	s := "234"
	if f.Group != "" {
		s = "1" + f.Group + "234"
	}
	if f.Decimal != "" {
		s += f.Decimal + "56"
	}
	if f.Currency != "" {
		s += " " + f.Currency
	}
	if f.Group == "" {
		s += " (its thousands separator not seen yet)"
	}
	return s
}

// dateWords writes 31 December 2024 in f's order, separator, month and
// year form.
func dateWords(f supplier.Format) string {
	if len(f.Order) != 3 {
		return "written as a date whose day and month order the learning could not tell"
	}
	year := "2024"
	if f.YearDigits == 2 {
		year = "24"
	}
	month := "12"
	if f.MonthNames {
		month = "December"
	}
	sep := f.Separator
	if sep == "" && f.MonthNames {
		sep = " "
	}
	part := map[byte]string{'D': "31", 'M': month, 'Y': year}
	out := make([]string, 0, 3)
	for i := range 3 {
		out = append(out, part[f.Order[i]])
	}
	return "written " + strings.Join(out, sep) + " (" + orderWords[f.Order] + ")"
}

var orderWords = map[string]string{"DMY": "day, month, year", "MDY": "month, day, year", "YMD": "year, month, day"}

// textWords describes a text value's shape.
func textWords(f supplier.Format) string {
	if f.Shape == "" {
		if f.Words > 1 {
			return strconv.Itoa(f.Words) + " words"
		}
		return ""
	}
	s := "written like " + f.Prefix + f.Shape + f.Suffix
	var legend []string
	if strings.Contains(f.Shape, "A") {
		legend = append(legend, "A letters")
	}
	if strings.Contains(f.Shape, "9") {
		legend = append(legend, "9 digits")
	}
	if legend != nil {
		s += " (" + strings.Join(legend, ", ") + ")"
	}
	if f.Words > 1 {
		s += ", " + strconv.Itoa(f.Words) + " words"
	}
	return s
}

// ordinal is 1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st.
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}
