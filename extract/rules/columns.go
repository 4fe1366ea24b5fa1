package rules

import (
	"strings"
)

// colRole is what an item table column holds.
type colRole uint8

const (
	colOther colRole = iota
	colIndex
	colCode
	colDesc
	colQty
	colUOM
	colPrice
	colAmount
	colTax
	colDiscount
	colGross
	colDate
)

// numeric reports a column of numbers.
func (r colRole) numeric() bool {
	switch r {
	case colIndex, colQty, colPrice, colAmount, colTax, colDiscount, colGross:
		return true
	}
	return false
}

// columnWords maps a normalised header phrase to its role.
var columnWords = buildColumns(map[colRole]string{
	colDesc: `description|item description|items|item|product|products|service|services|details|
		particulars|article|designation|bezeichnung|beschreibung|leistung|task|work|activity|
		product service|description of goods|goods|name|item name|product name|
		service description|libelle|descripcion|descrizione|line item|expense|deliverable|
		description of services|artikel|item details|service details|work description|
		description of service|description of work|particulars of service|nature of service|
		beskrivelse|beskrivning|varebeskrivelse|vare|tjeneste|element|omschrijving|artikel omschrijving|descrizione articolo|denominazione|concepto|descrição|designação|nazwa towaru lub usługi|nazwa towaru|nazwa|popis|označení|položka|kuvaus|tuote`,
	colQty: `qty|quantity|hours|hrs|units|menge|anzahl|anz|days|pcs|no of units|quantite|cantidad|
		quantita|qty hrs|hours qty|qty hours|count|hour|nos|qte|quant|stk|stuck|time|no of hours|
		antall|mengde|fakturamengde|antal|aantal|qtà|quantità|quantidade|qtd|ilość|ilosc|množství|mnozstvi|määrä|kpl`,
	colUOM: `uom|unit of measure|um|einheit|me|unite|unit type|
		enhet|eenheid|jm|mj|j m|unidade|unid|yks`,
	colPrice: `unit price|price|rate|unit cost|price unit|each|unit price excl vat|price each|hourly rate|
		rate hr|rate per hour|day rate|cost|unit amount|einzelpreis|ep|prix unitaire|pu|precio|
		prezzo|price per unit|unit net price|net price|list price|unit rate|fee|rate per day|
		daily rate|price excl vat|unit price excl tax|precio unitario|prezzo unitario|
		price unit excl vat|unit price net|unit|per unit|cost per unit|rate per unit|
		enhetspris|stykkpris|á pris|à pris|a pris|styckpris|stk pris|prijs|eenheidsprijs|prijs per stuk|prezzo unit|precio unit|preço unitário|preco unitario|preço|cena jedn|cena jednostkowa|cena netto|jedn cena|cena za mj|cena|yksikköhinta|hinta`,
	colAmount: `amount|total|line total|net|net amount|value|gesamt|betrag|montant|sum|ext price|
		extended|extended price|line amount|subtotal|gesamtpreis|gp|importe|importo|total price|
		amount excl vat|total net|net total|line net|charge|net value|amount net|total excl vat|
		nettobetrag|montant ht|total ht|line value|ext amount|amount excl tax|total excl tax|
		ext|extension|ext total|ext cost|extended amount|extended total|
		beløp|belopp|beløb|verdi|summa|bedrag|totaal|importo totale|valor|total linha|wartość netto|wartosc netto|wartość|celkem|cena celkem|summa yhteensä|yhteensä`,
	colIndex: `#|no|pos|position|line|item no|s no|sr no|sl no|ln|line no|pos no`,
	colCode: `sku|code|item code|product code|part no|part number|article no|ref|reference|art no|
		item id|ean|product id|model|catalog no|artikelnummer`,
	colTax: `vat|vat %|tax|tax %|vat rate|tax rate|gst|mwst|ust|tva|iva|vat amount|tax amount|gst amount|
		vat percent|tax percent|
		mva|moms|btw|stawka vat|sazba dph|dph|alv|iva %`,
	colDiscount: `disc|discount|disc %|rabatt|remise|descuento`,
	colGross: `gross|gross amount|total incl vat|amount incl vat|brutto|total gross|total incl tax|
		gross value|total inc vat|incl vat|amount incl tax|gross total`,
	colDate: `date|service date|delivery date|datum|day|period`,
})

func buildColumns(src map[colRole]string) map[string]colRole {
	m := map[string]colRole{}
	for role, list := range src {
		for _, p := range strings.Split(list, "|") {
			p = normPhrase(p) // as headerWords reads a header: "Množství" is "množstvi"
			if r, dup := m[p]; dup && r != role {
				panic("extract: column word listed with two roles: " + p)
			}
			m[p] = role
		}
	}
	return m
}

// normPhrase normalises each word of a column phrase as headerWords does.
func normPhrase(p string) string {
	f := strings.Fields(p)
	for i, w := range f {
		f[i] = string(appendNormWord(nil, w))
	}
	return strings.Join(f, " ")
}

// columnVocabulary maps each word of the column phrases to itself:
// headerWords takes a known word's normal form from it instead of making a
// new string.
var columnVocabulary = func() map[string]string {
	m := map[string]string{}
	for p := range columnWords {
		for _, w := range strings.Fields(p) {
			m[w] = w
		}
	}
	return m
}()

// column is one column of an item table header.
type column struct {
	role       colRole
	phrase     string // the normalised header phrase
	start, end int    // rune columns of the header text
}

// headerWord is a word of a header line with its rune columns.
type headerWord struct {
	norm       string
	start, end int
}

// parseHeader reads l as an item table header: every word belongs to a
// column phrase (currency codes and bracketed notes such as "(EUR)" or
// "excl. VAT" aside), there are at least two columns, a description or a
// quantity, and an amount or a price. It returns the columns left to right.
func parseHeader(l *line) ([]column, bool) {
	if len(l.cells) < 2 || len(l.cells) > 16 {
		return nil, false
	}
	var cols []column
	for _, c := range l.cells {
		cc, ok := cellColumns(c, l.pipe)
		if !ok {
			return nil, false
		}
		cols = append(cols, cc...)
	}
	if !headerComplete(cols) {
		return nil, false
	}
	resolveColumns(cols)
	return cols, true
}

// cellColumns reads one header cell as one or more column phrases. In a
// pipe row the whole cell is one column.
func cellColumns(c cell, pipe bool) ([]column, bool) {
	words := headerWords(c)
	if len(words) == 0 {
		return []column{{role: colOther, start: c.start, end: c.end}}, pipe || c.text == "#"
	}
	var buf [64]byte
	if joined := appendJoinedWords(buf[:0], words); columnWords[string(joined)] != colOther || len(joined) == 0 {
		phrase := joinWords(words)
		return []column{{role: columnWords[phrase], phrase: phrase, start: c.start, end: c.end}}, true
	}
	if pipe {
		return []column{{role: colOther, start: c.start, end: c.end}}, true
	}
	var out []column
	for i := 0; i < len(words); {
		n, role := longestColumn(words[i:])
		if n == 0 && len(words) == 1 && len(words[0].norm) <= 8 {
			// one unknown short column ("SAC", "HSN"): headerComplete
			// allows one
			return []column{{role: colOther, phrase: words[0].norm, start: c.start, end: c.end}}, true
		}
		if n == 0 {
			return nil, false
		}
		out = append(out, column{role: role, phrase: joinWords(words[i : i+n]), start: words[i].start, end: words[i+n-1].end})
		i += n
	}
	return out, true
}

// longestColumn returns the length and role of the longest column phrase
// that starts words.
func longestColumn(words []headerWord) (int, colRole) {
	var buf [64]byte
	for n := min(len(words), 5); n > 0; n-- {
		if role, ok := columnWords[string(appendJoinedWords(buf[:0], words[:n]))]; ok {
			return n, role
		}
	}
	return 0, colOther
}

// appendJoinedWords appends joinWords(ws) to dst: looked up in a map
// straight from a buffer on the caller's stack, a phrase that is no column
// costs no allocation.
func appendJoinedWords(dst []byte, ws []headerWord) []byte {
	for i, w := range ws {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, w.norm...)
	}
	return dst
}

func joinWords(ws []headerWord) string {
	if len(ws) == 1 {
		return ws[0].norm
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.norm
	}
	return strings.Join(parts, " ")
}

// headerWords splits a header cell into normalised words with columns,
// dropping bracketed notes, currency codes and symbols, and '%' (kept as a
// word only after "vat"/"tax"/"disc", where "vat %" is a phrase).
func headerWords(c cell) []headerWord {
	var out []headerWord
	text := c.text
	col := c.start
	depth := 0
	for pos := 0; pos < len(text); {
		w, start, end := nextWord(text, pos)
		if w == "" {
			if end >= len(text) {
				break
			}
			pos = end + 1
			continue
		}
		depth += strings.Count(text[pos:start], "(") - strings.Count(text[pos:start], ")")
		pos = end
		if depth > 0 || isCurrencyWord(w) || isNoteWordFold(w) || nonLatin(w) {
			continue
		}
		out = append(out, headerWord{norm: normWord(w), start: col + runeCount(text[:start]), end: col + runeCount(text[:end])})
	}
	return out
}

// normWord is string(appendNormWord(nil, w)), from columnVocabulary when
// the word is a column's.
func normWord(w string) string {
	var buf [32]byte
	norm := appendNormWord(buf[:0], w)
	if v, ok := columnVocabulary[string(norm)]; ok {
		return v
	}
	return string(norm)
}

// isNoteWord: words of a header that qualify a column without naming one
// ("Amount excl. VAT" is "Amount"; "in EUR" is nothing).
func isNoteWord(w string) bool {
	switch w {
	case "in", "eur", "usd", "gbp":
		return true
	}
	return false
}

// isNoteWordFold is isNoteWord(strings.ToLower(w)) without a new string:
// an ASCII word keeps its length in lower case, and no note word is longer
// than three letters.
func isNoteWordFold(w string) bool {
	if !isASCII(w) {
		return isNoteWord(strings.ToLower(w))
	}
	if len(w) > 3 {
		return false
	}
	var buf [3]byte
	for i := 0; i < len(w); i++ {
		buf[i] = lowerByte(w[i])
	}
	return isNoteWord(string(buf[:len(w)]))
}

func runeCount(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

// headerComplete: two known columns or more and at most one unknown, a
// description or a quantity, and an amount or a price.
func headerComplete(cols []column) bool {
	var desc, money bool
	known := 0
	unknown := countRole(cols, colOther)
	if unknown > 1 || unknown == 1 && len(cols) < 4 {
		return false
	}
	for _, c := range cols {
		switch c.role {
		case colDesc, colQty:
			desc = true
		case colAmount, colPrice, colGross:
			money = true
		}
		if c.role != colOther {
			known++
		}
	}
	return known >= 2 && desc && money
}

// resolveColumns settles roles that depend on the others: "Item" is an
// index when a description column exists, "Unit" a unit of measure when a
// price column exists, the amount is the net column when several money
// columns follow the price (Net / VAT / Gross), and a gross column is the
// amount when there is no other.
func resolveColumns(cols []column) {
	has := func(r colRole) bool {
		for _, c := range cols {
			if c.role == r {
				return true
			}
		}
		return false
	}
	for i := range cols {
		switch {
		case cols[i].phrase == "unit" && countRole(cols, colPrice) > 1:
			cols[i].role = colUOM
		case (cols[i].phrase == "item" || cols[i].phrase == "items") && countRole(cols, colDesc) > 1:
			cols[i].role = colIndex
		}
	}
	// "Amount  Product  VAT  Price  Total": an amount column before the
	// description, with no quantity column and another amount after it,
	// is the quantity (an amount of goods).
	if !has(colQty) && countRole(cols, colAmount) > 1 {
		desc := -1
		for i := range cols {
			if cols[i].role == colDesc {
				desc = i
				break
			}
		}
		for i := 0; i < desc; i++ {
			if cols[i].role == colAmount && cols[i].phrase == "amount" {
				cols[i].role = colQty
				break
			}
		}
	}
	// "Unit Price … Price": with no amount column, the last of two price
	// columns is the line's amount.
	if !has(colAmount) && countRole(cols, colPrice) > 1 {
		for i := len(cols) - 1; i >= 0; i-- {
			if cols[i].role == colPrice {
				if cols[i].phrase == "price" || cols[i].phrase == "total price" {
					cols[i].role = colAmount
				}
				break
			}
		}
	}
	if !has(colAmount) {
		for i := range cols {
			if cols[i].role == colGross {
				cols[i].role = colAmount
			}
		}
	}
	keepFirstAmount(cols)
}

func countRole(cols []column, r colRole) int {
	n := 0
	for _, c := range cols {
		if c.role == r {
			n++
		}
	}
	return n
}

// keepFirstAmount leaves one amount column, the first; the others become
// gross (ignored).
func keepFirstAmount(cols []column) {
	seen := false
	for i := range cols {
		if cols[i].role == colAmount {
			if seen {
				cols[i].role = colGross
			}
			seen = true
		}
	}
}
