package rules

import "strings"

// language is the vocabulary of one language: what its documents write
// for each field label, the titles that name a kind of document, the
// markers of a document that is not an invoice, and its month names.
// Adding a language is one table (a lang_xx.go file) and its tests.
//
// Label phrases are normalised as matchLabel reads them: lower case,
// diacritics folded, words joined by one space, and "number", "nr", "#",
// "nº", "n°", "nummer" … written "no". Titles and markers are lower case
// and keep their diacritics; a title word is matched whole.
type language struct {
	code   string
	labels map[labelKind]string // "|"-separated phrases per kind
	// titles name a kind of document that is not an invoice, in the order
	// ties are decided; invoiceTitles name an invoice.
	titles, invoiceTitles []docKeyword
	// compounds are endings of one title word that name its kind: German
	// joins words ("Handelsrechnung", "Teilrechnung", "Stornorechnung").
	// The first ending that fits decides.
	compounds []docKeyword
	markers   []docKeyword
	// preceding introduce the invoice a credit note or corrective invoice
	// refers to ("zur Rechnung", "Original invoice", "rif. fattura"),
	// "|"-separated normalised phrases found anywhere in a line: the
	// number after one is that invoice's (BT-25), never the document's own.
	preceding string
	// references open a mention of another document, not a title: "Ihre
	// Bestellung vom 01.03.2024", "Your order", "as per quote Q-7";
	// "|"-separated normalised words or phrases.
	references string
	// dueBy are the words right before the payment's deadline in a
	// sentence ("due to 2024-03-22", "bis 2024-02-26", "do dnia …"), and
	// payWords the stems of paying that such a sentence holds ("transfer",
	// "überweis", "przelew"), "|"-separated, lower case.
	dueBy, payWords string
	// taxTotals name a row that sums the tax rows above it ("Total VAT",
	// "Steuerbetrag"), "|"-separated normalised label phrases.
	taxTotals string
	// months holds, per month, its names and abbreviations, space-separated.
	months [12]string
}

// docKeyword is a phrase that names a kind of document.
type docKeyword struct {
	phrase  string
	docType string
}

// languages are the vocabularies the rules read, English first.
var languages = []*language{&english, &german, &french, &dutch, &spanish, &italian, &nordic, &polish, &czech, &portuguese, &estonian}

func languageLabels() []map[labelKind]string {
	out := make([]map[labelKind]string, len(languages))
	for i, l := range languages {
		out[i] = l.labels
	}
	return out
}

// languageTitles lists every language's titles of other kinds, then every
// language's invoice titles.
func languageTitles() []docKeyword {
	var out []docKeyword
	for _, l := range languages {
		out = append(out, l.titles...)
	}
	for _, l := range languages {
		out = append(out, l.invoiceTitles...)
	}
	return out
}

func languageTaxTotals() map[string]bool {
	m := map[string]bool{}
	for _, l := range languages {
		for _, p := range strings.Split(l.taxTotals, "|") {
			if p = foldPhrase(strings.Join(strings.Fields(p), " ")); p != "" {
				m[p] = true
			}
		}
	}
	return m
}

func languageMarkers() []docKeyword {
	var out []docKeyword
	for _, l := range languages {
		out = append(out, l.markers...)
	}
	return out
}

// compoundType returns the kind a compound title word names ("Teilrechnung"
// → invoice), or "". The word must be longer than its ending: the ending
// alone is a title keyword already.
func compoundType(word string) string {
	w := strings.ToLower(word)
	for _, l := range languages {
		for _, c := range l.compounds {
			if len(w) > len(c.phrase) && strings.HasSuffix(w, c.phrase) {
				return c.docType
			}
		}
	}
	return ""
}

// monthNames maps every language's month names and abbreviations to the
// month's number.
func monthNames() map[string]int {
	m := map[string]int{}
	for _, l := range languages {
		for i, names := range l.months {
			for _, n := range strings.Fields(names) {
				m[n] = i + 1
			}
		}
	}
	return m
}
