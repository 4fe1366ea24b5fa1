package corpus

import (
	"math/rand/v2"
	"strings"
)

// render writes inv in its layout.
func render(r *rand.Rand, inv *invoice) string {
	switch inv.layout {
	case LayoutTwoColumn:
		return renderTwoColumn(r, inv)
	case LayoutLabelRow:
		return renderLabelRow(r, inv)
	case LayoutMarkdown:
		return renderMarkdown(r, inv)
	case LayoutEmail:
		return renderEmail(r, inv)
	case LayoutContinental:
		return renderContinental(r, inv)
	case LayoutNumbered:
		return renderNumbered(r, inv)
	case LayoutBullets:
		return renderBullets(r, inv)
	case LayoutUSSalesTax:
		return renderUSSalesTax(r, inv)
	case LayoutBoxed:
		return renderBoxed(r, inv)
	default:
		return renderVendorBlock(r, inv)
	}
}

// fieldPairs are the invoice's labelled fields: number, date and, for some
// documents, the due date, order and customer references and the currency.
func (inv *invoice) fieldPairs(r *rand.Rand) [][2]string {
	var ps [][2]string
	if inv.showNumber {
		ps = append(ps, [2]string{inv.labels.number, inv.number})
	}
	ps = append(ps, [2]string{inv.labels.date, inv.dateText(inv.date)})
	if chance(r, 55) {
		ps = append(ps, [2]string{inv.labels.due, inv.dateText(inv.due)})
	}
	if inv.po != "" {
		ps = append(ps, [2]string{pick(r, []string{"PO Number", "Your Ref.", "Order No.", "Purchase Order", "Your order"}), inv.po})
	}
	if inv.customerNo != "" {
		ps = append(ps, [2]string{pick(r, []string{"Customer No.", "Account No.", "Customer ID", "Account"}), inv.customerNo})
	}
	if inv.needsCurrencyCode() || chance(r, 15) {
		ps = append(ps, [2]string{"Currency", inv.cur.code})
	}
	return ps
}

// vendorHeader is the supplier's letterhead: name, address and some of its
// phone, e-mail, web site, tax and registration numbers.
func (inv *invoice) vendorHeader(r *rand.Rand, upper bool) []string {
	v := inv.vendor
	name := v.name
	if upper {
		name = strings.ToUpper(name)
	}
	out := []string{name}
	if chance(r, 25) {
		out = append(out, strings.Join(v.address, ", "))
	} else {
		out = append(out, v.address...)
	}
	var contact []string
	if chance(r, 60) {
		contact = append(contact, pick(r, []string{"Tel: ", "Tel. ", "Phone: ", "T: ", ""})+v.phone)
	}
	if chance(r, 50) {
		contact = append(contact, v.email)
	}
	if chance(r, 25) {
		contact = append(contact, v.web)
	}
	if len(contact) > 0 {
		if chance(r, 50) {
			out = append(out, strings.Join(contact, " | "))
		} else {
			out = append(out, contact...)
		}
	}
	if v.taxID != "" && chance(r, 70) {
		out = append(out, v.taxID)
	}
	return out
}

// customerBlock is the bill-to address.
func (inv *invoice) customerBlock(r *rand.Rand) []string {
	c := inv.customer
	out := []string{c.name}
	if chance(r, 35) {
		out = append(out, pick(r, []string{"Attn: ", "FAO: ", "Attention: ", "c/o "})+c.contact)
	}
	return append(out, c.address...)
}

// summaryRows are the lines between the items and the end: subtotal,
// charges, taxes and total, as label and amount.
func (inv *invoice) summaryRows(r *rand.Rand, m money) [][2]string {
	var rows [][2]string
	if inv.showSubtotal {
		rows = append(rows, [2]string{inv.labels.subtotal, m.format(inv.subtotal)})
	}
	for _, c := range inv.charges {
		if c.kind != "rounding" {
			rows = append(rows, [2]string{c.label, m.format(c.amount)})
		}
	}
	onBase := chance(r, 12) || len(inv.taxes) > 1 && chance(r, 50)
	for _, t := range inv.taxes {
		label := t.label
		if onBase {
			label += " on " + m.bare(t.base)
		}
		rows = append(rows, [2]string{label, m.format(t.amount)})
	}
	for _, c := range inv.charges {
		if c.kind == "rounding" {
			rows = append(rows, [2]string{c.label, m.format(c.amount)})
		}
	}
	if inv.showTotal {
		rows = append(rows, [2]string{inv.labels.total, m.format(inv.total)})
	}
	return rows
}

// summaryLines writes the summary rows right-aligned so that the amounts end
// at column end, the labels before them, with or without colons.
func summaryLines(rows [][2]string, end int, colon bool) []string {
	aw, lw := 0, 0
	for _, row := range rows {
		aw = max(aw, width(row[1]))
		lw = max(lw, width(row[0])+1)
	}
	aw = max(aw, 10)
	out := make([]string, len(rows))
	for i, row := range rows {
		label := row[0]
		if colon {
			label += ":"
		}
		s := padLeft(label, lw) + "  " + padLeft(row[1], aw)
		out[i] = padLeft(s, end)
	}
	return out
}

// colKind is a column of an item table.
type colKind int

const (
	colNo colKind = iota
	colSKU
	colDesc
	colQty
	colUOM
	colPrice
	colAmount
)

var columnOrders = [][]colKind{
	{colQty, colDesc, colPrice, colAmount},
	{colDesc, colQty, colPrice, colAmount},
	{colDesc, colQty, colPrice, colAmount},
	{colNo, colDesc, colQty, colPrice, colAmount},
	{colSKU, colDesc, colQty, colPrice, colAmount},
	{colDesc, colPrice, colQty, colAmount},
	{colNo, colQty, colDesc, colPrice, colAmount},
	{colNo, colSKU, colDesc, colQty, colUOM, colPrice, colAmount},
}

var columnHeads = map[colKind][]string{
	colNo:     {"#", "Pos", "No.", "Pos.", "Line"},
	colSKU:    {"Item #", "SKU", "Code", "Art. No.", "Product Code"},
	colDesc:   {"Description", "Description", "Details", "Service", "Product", "Description of services"},
	colQty:    {"Qty", "Quantity", "QTY", "Units", "Qty."},
	colUOM:    {"Unit", "UoM"},
	colPrice:  {"Unit Price", "Price", "Rate", "Unit Cost", "Each", "Price/Unit", "Unit price"},
	colAmount: {"Amount", "Line Total", "Total", "Net", "Amount", "Ext. Price", "Net amount"},
}

// itemTable is an item table's columns and rows.
type itemTable struct {
	cols  []column
	kinds []colKind
	rows  [][]string
}

// items draws the columns of the document's item table and writes a row per
// line with cell amounts in m.
func (inv *invoice) items(r *rand.Rand, order []colKind, m money) itemTable {
	var t itemTable
	used := map[string]bool{}
	withUnit := !contains(order, colUOM) && chance(r, 25)
	for _, k := range order {
		head := pick(r, columnHeads[k])
		for used[head] {
			head = pick(r, columnHeads[k])
		}
		if k == colDesc && used["Item"] && head == "Item" {
			head = "Description"
		}
		used[head] = true
		if (k == colAmount || k == colPrice) && !m.showsCurrency() && chance(r, 30) {
			head += " (" + inv.cur.code + ")"
		}
		t.cols = append(t.cols, column{head: head, right: k == colQty || k == colPrice || k == colAmount || k == colNo})
		t.kinds = append(t.kinds, k)
	}
	for i, l := range inv.lines {
		row := make([]string, len(order))
		for j, k := range order {
			row[j] = inv.cellText(k, i, l, m, withUnit)
		}
		t.rows = append(t.rows, row)
	}
	return t
}

// cellText writes one cell of line l (the i-th).
func (inv *invoice) cellText(k colKind, i int, l line, m money, withUnit bool) string {
	switch k {
	case colNo:
		return itoa(i + 1)
	case colSKU:
		return l.sku
	case colDesc:
		return l.desc
	case colQty:
		q := inv.num.qty(l.qty)
		if withUnit && l.unit != "" {
			q += " " + l.unit
		}
		return q
	case colUOM:
		if l.unit == "" {
			return "pcs"
		}
		return l.unit
	case colPrice:
		return m.format(l.price)
	default:
		return m.format(l.amount)
	}
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// paymentFooter is the small print at the end: terms, bank details, thanks.
func (inv *invoice) paymentFooter(r *rand.Rand) []string {
	var out []string
	switch r.IntN(3) {
	case 0:
		out = append(out, "Payment terms: "+itoa(inv.termsDays)+" days")
	case 1:
		out = append(out, "Please pay within "+itoa(inv.termsDays)+" days of the invoice date.")
	}
	if chance(r, 60) {
		out = append(out, digits(r, bankDetails[inv.loc.name]))
	}
	if inv.vendor.regNo != "" && chance(r, 60) {
		out = append(out, inv.vendor.regNo)
	}
	if chance(r, 40) {
		out = append(out, pick(r, []string{"Thank you for your business!", "Thank you for your custom.", "Many thanks.", "We appreciate your business."}))
	}
	return out
}

// bankDetails are patterns of payment details by locale, each # a digit.
var bankDetails = map[string]string{
	"uk": "Bank: Barclays  Sort code: ##-##-##  Account: ########",
	"ie": "IBAN: IE## AIBK #### #### #### ##  BIC: AIBKIE2D",
	"us": "Remit to: ACH routing 0########, account ##########",
	"ca": "Transit #####, Institution 004, Account #######",
	"au": "BSB ###-### Account #### ####",
	"sg": "DBS Bank, Account 0##-######-#",
	"de": "IBAN: DE## #### #### #### #### ##  BIC: COBADEFFXXX",
	"at": "IBAN: AT## #### #### #### ####  BIC: BKAUATWW",
	"fr": "IBAN: FR76 #### #### #### #### #### ###  BIC: BNPAFRPP",
	"nl": "IBAN: NL## INGB #### #### ##  BIC: INGBNL2A",
	"se": "Bankgiro ###-####",
	"ch": "IBAN: CH## #### #### #### #### #",
	"dk": "Reg. no. #### Account no. ##########",
	"pl": "Account: ## #### #### #### #### #### ####",
	"jp": "Bank: MUFG Bank, Shibuya Branch, Ordinary #######",
	"bh": "IBAN: BH## NBOB ##############",
	"kw": "IBAN: KW## NBOK ######################",
}
