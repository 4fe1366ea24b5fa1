package corpus

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// line is one item line of a generated invoice.
type line struct {
	desc   string
	unit   string
	sku    string
	qty    int64 // hundredths
	price  int64 // minor units
	amount int64 // minor units, as stated
	bp     int64 // tax rate of the line, basis points
	// shipping marks a shipping row inside the item table: a line, counted
	// in the subtotal.
	shipping bool
}

// charge is shipping, a discount or a rounding between subtotal and total.
type charge struct {
	kind   string
	label  string
	amount int64
}

// taxLine is one tax line of the summary.
type taxLine struct {
	label  string
	bp     int64
	base   int64
	amount int64
}

// labels are the words one document uses for its fields.
type labels struct {
	number, date, due, subtotal, total, billTo, title string
}

// invoice is a generated invoice before it is written in a layout. Stated
// values are what the document says, which for a broken invoice is not what
// the arithmetic says.
type invoice struct {
	layout     string
	loc        *locale
	cur        currency
	money      money // summary amounts
	cell       money // table cells
	num        numStyle
	dateStyle  dateStyle
	date, due  time.Time
	number     string
	vendor     party
	customer   party
	po         string
	customerNo string
	termsDays  int
	lines      []line
	charges    []charge
	taxes      []taxLine
	subtotal   int64
	total      int64
	labels     labels

	// Parameters compute() works from.
	shippingCharge int64 // 0: none
	shippingLabel  string
	discountBP     int64 // 0: none
	discountLabel  string
	swissRounding  bool
	perLineTax     bool
	taxBP          []int64 // the rates in use, standard first
	taxLabel       taxLabel
	subtotalFixed  bool // a broken invoice states a subtotal the lines do not make

	showSubtotal bool
	showTotal    bool
	showNumber   bool
	reason       string // the rejection a broken invoice expects
}

var (
	numberLabels   = []string{"Invoice No.", "Invoice #", "Invoice Number", "Inv. No", "Invoice ref", "Invoice No", "Invoice number", "Invoice no.", "Invoice Ref."}
	dateLabels     = []string{"Date", "Invoice Date", "Issued", "Date of issue", "Invoice date", "Issue date"}
	dueLabels      = []string{"Due Date", "Payment due", "Due", "Due date", "Payment Due Date"}
	subtotalLabels = []string{"Subtotal", "Sub-total", "Sub Total", "Net Total", "Net amount", "Total net", "Subtotal"}
	totalLabels    = []string{"Total", "Total Due", "Amount Due", "Balance Due", "Grand Total", "Invoice Total", "Total (%s)", "TOTAL", "Total amount due", "Total Due"}
	billToLabels   = []string{"Bill To:", "Bill to:", "Invoice To:", "Billed To:", "Customer:", "BILL TO"}
	titles         = []string{"INVOICE", "INVOICE", "Invoice", "I N V O I C E"}
)

// newInvoice draws a consistent invoice of the locale for the layout.
func newInvoice(r *rand.Rand, l *locale, layout string) *invoice {
	ind := pick(r, industries)
	inv := &invoice{layout: layout, loc: l, cur: currencies[pick(r, l.currencies)], showSubtotal: true, showTotal: true, showNumber: true}
	inv.num = pick(r, l.nums)
	inv.money = money{cur: inv.cur, num: inv.num, place: pick(r, l.places), parens: l.us && chance(r, 30)}
	inv.cell = inv.money
	if chance(r, 50) {
		inv.cell.place = placeBare
	}
	inv.vendor = l.vendor(r, ind)
	inv.customer = l.customer(r)
	inv.date = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(3*365))
	inv.termsDays = pick(r, []int{7, 14, 14, 30, 30, 30, 45, 60})
	inv.due = inv.date.AddDate(0, 0, inv.termsDays)
	inv.dateStyle = inv.pickDateStyle(r)
	inv.number = invoiceNumber(r, l, inv.date)
	inv.labels = pickLabels(r, l, inv.cur)
	if chance(r, 40) {
		inv.po = digits(r, pick(r, []string{"PO-####", "PO ######", "4500######", "P#####"}))
	}
	if chance(r, 40) {
		inv.customerNo = digits(r, pick(r, []string{"C-#####", "K-#####", "CUST####", "#####"}))
	}
	inv.drawLines(r, ind)
	inv.drawTax(r)
	inv.drawCharges(r)
	// Most invoices with tax or charges state the subtotal; some go from the
	// lines straight to the tax.
	// A discount is a share of a stated subtotal.
	inv.showSubtotal = chance(r, 60) || (len(inv.taxBP) > 0 || inv.shippingCharge > 0) && chance(r, 85) || inv.discountBP > 0
	inv.compute()
	return inv
}

// pickDateStyle draws how the document writes dates. A US date whose day
// and month could be swapped is written numerically only in layouts that
// print the supplier's US address (the evidence a reader needs).
func (inv *invoice) pickDateStyle(r *rand.Rand) dateStyle {
	s := pick(r, inv.loc.dates)
	ambiguous := inv.date.Day() <= 12 && inv.date.Day() != int(inv.date.Month())
	if s.dayMonth && ambiguous && inv.loc.us && !printsAddress(inv.layout) {
		return dateLongUS
	}
	return s
}

// printsAddress reports whether a layout always prints the supplier's
// address.
func printsAddress(layout string) bool {
	switch layout {
	case LayoutVendorBlock, LayoutTwoColumn, LayoutUSSalesTax, LayoutContinental, LayoutBoxed:
		return true
	}
	return false
}

// hasTable reports whether a layout lists items in a table with a row per
// item (where a shipping row can sit).
func hasTable(layout string) bool {
	switch layout {
	case LayoutVendorBlock, LayoutTwoColumn, LayoutLabelRow, LayoutMarkdown, LayoutContinental, LayoutUSSalesTax, LayoutBoxed:
		return true
	}
	return false
}

func pickLabels(r *rand.Rand, l *locale, cur currency) labels {
	ls := labels{
		number: pick(r, numberLabels), date: pick(r, dateLabels), due: pick(r, dueLabels),
		subtotal: pick(r, subtotalLabels), total: pick(r, totalLabels), billTo: pick(r, billToLabels),
		title: pick(r, titles),
	}
	if (l.name == "uk" || l.name == "ie") && chance(r, 15) {
		ls.date = "Tax point"
	}
	switch {
	case l.name == "au" || l.name == "sg":
		ls.title = pick(r, []string{"TAX INVOICE", "Tax Invoice"})
	case (l.name == "uk" || l.name == "bh" || l.name == "jp") && chance(r, 30):
		ls.title = pick(r, []string{"TAX INVOICE", "Tax Invoice", "VAT INVOICE"})
	}
	if ls.total == "Total (%s)" {
		ls.total = fmt.Sprintf(ls.total, cur.code)
	}
	return ls
}

// invoiceNumber draws an invoice number of one of the shapes suppliers use.
func invoiceNumber(r *rand.Rand, l *locale, d time.Time) string {
	y := d.Year()
	shapes := []func() string{
		func() string { return fmt.Sprintf("%d-%04d", between(r, 10, 99), r.IntN(10000)) },
		func() string { return fmt.Sprintf("INV-%d-%04d", y, between(r, 1, 2000)) },
		func() string { return fmt.Sprintf("%d", between(r, 1000, 99999)) },
		func() string { return fmt.Sprintf("%d/%04d", y, between(r, 1, 3000)) },
		func() string { return fmt.Sprintf("SI-%06d", between(r, 1, 99999)) },
		func() string { return fmt.Sprintf("INV%07d", between(r, 1, 999999)) },
		func() string { return fmt.Sprintf("A-%d/%02d", between(r, 1, 400), y%100) },
		func() string {
			return fmt.Sprintf("%s-%d", pick(r, []string{"TK", "MB", "HL", "NW", "QX"}), between(r, 1000, 9999))
		},
		func() string { return fmt.Sprintf("%02d%05d", y%100, between(r, 1, 99999)) },
	}
	switch l.name {
	case "de", "at", "ch":
		shapes = append(shapes, func() string { return fmt.Sprintf("RE-%d-%04d", y, between(r, 1, 3000)) }, func() string { return fmt.Sprintf("%d%04d", y, between(r, 1, 3000)) })
	case "fr":
		shapes = append(shapes, func() string { return fmt.Sprintf("F%d-%05d", y, between(r, 1, 3000)) })
	case "bh", "kw":
		shapes = append(shapes, func() string { return fmt.Sprintf("%s/INV/%d/%03d", strings.ToUpper(l.name), y, between(r, 1, 999)) })
	}
	return pick(r, shapes)()
}

// drawLines draws 1–7 distinct item lines of the industry.
func (inv *invoice) drawLines(r *rand.Rand, ind industry) {
	n := pick(r, []int{1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7})
	n = min(n, len(ind.items))
	order := r.Perm(len(ind.items))[:n]
	for _, i := range order {
		it := ind.items[i]
		ln := line{desc: it.desc, unit: it.unit, qty: it.quantity(r), price: it.price(r, inv.cur)}
		ln.sku = digits(r, pick(r, []string{"##-####", "A###", "100###", "SKU-####", "#####"}))
		inv.lines = append(inv.lines, ln)
	}
	for i := range inv.lines {
		inv.lines[i].amount = divRound(inv.lines[i].qty*inv.lines[i].price, 100)
	}
}

// drawCharges draws shipping (a charge, or a row of the item table) and a
// discount, each for some invoices only.
func (inv *invoice) drawCharges(r *rand.Rand) {
	goods := slices.ContainsFunc(inv.lines, func(l line) bool { return l.unit != "h" })
	if goods && chance(r, 22) {
		amount := item{lo: 495, hi: 4500}.price(r, inv.cur)
		label := pick(r, []string{"Shipping", "Shipping & Handling", "Delivery", "Carriage", "Freight", "Postage & packing"})
		if hasTable(inv.layout) && chance(r, 35) {
			ln := line{desc: label, qty: 100, price: amount, amount: amount, shipping: true, sku: "SHIP"}
			if len(inv.taxBP) > 0 {
				ln.bp = inv.taxBP[0] // shipping follows the standard rate
			}
			inv.lines = append(inv.lines, ln)
		} else {
			inv.shippingCharge, inv.shippingLabel = amount, label
		}
	}
	// A discount across two tax rates would have to be apportioned between
	// them; suppliers with two rates discount per line instead.
	split := len(inv.taxBP) == 2 && inv.loc.name != "ca"
	if !split && chance(r, 12) {
		inv.discountBP = pick(r, []int64{500, 1000, 1000, 1500, 250})
		pct := inv.num.rate(inv.discountBP)
		inv.discountLabel = pick(r, []string{"Discount (" + pct + "%)", "Less " + pct + "% discount", "Discount " + pct + "%", "Loyalty discount", "Discount"})
	}
	inv.swissRounding = inv.cur.code == "CHF" && chance(r, 60)
	inv.perLineTax = len(inv.taxBP) == 1 && inv.shippingCharge == 0 && inv.discountBP == 0 && chance(r, 25)
}

// drawTax draws the tax scheme: the locale's rates, the Canadian taxes of the
// supplier's province, US sales tax of its state, a reduced rate on some
// lines where a country has one.
func (inv *invoice) drawTax(r *rand.Rand) {
	l := inv.loc
	switch l.name {
	case "us":
		t := l.townOf(inv.vendor)
		if t.bp > 0 {
			inv.taxBP = []int64{t.bp}
			inv.taxLabel = pick(r, l.taxLabels)
		}
		return
	case "ca":
		switch l.townOf(inv.vendor).region {
		case "ON":
			inv.taxBP, inv.taxLabel = []int64{1300}, pick(r, []taxLabel{fixedRate("HST %s%%"), fixedRate("HST (%s%%)")})
		case "NS":
			inv.taxBP, inv.taxLabel = []int64{1500}, fixedRate("HST %s%%")
		case "BC":
			inv.taxBP, inv.taxLabel = []int64{500, 700}, nil // GST and PST on the same base
		default:
			inv.taxBP, inv.taxLabel = []int64{500}, pick(r, []taxLabel{fixedRate("GST %s%%"), fixedRate("GST")})
		}
		return
	}
	rate := pick(r, l.taxRates)
	if rate == 0 && l.name == "kw" {
		return // Kuwait has no VAT
	}
	inv.taxBP = []int64{rate}
	inv.taxLabel = pick(r, l.taxLabels)
	if l.splitRates && len(inv.lines) > 1 && chance(r, 35) {
		reduced := l.taxRates[len(l.taxRates)-1]
		inv.taxBP = []int64{l.taxRates[0], reduced}
		for i := range inv.lines {
			inv.lines[i].bp = l.taxRates[0]
			if chance(r, 50) {
				inv.lines[i].bp = reduced
			}
		}
		inv.lines[0].bp = reduced // both rates in use
		inv.lines[len(inv.lines)-1].bp = l.taxRates[0]
	}
}

// compute derives the subtotal (unless fixed), the charges, the taxes and
// the total from the lines: the arithmetic the document states.
func (inv *invoice) compute() {
	lines := int64(0)
	for _, l := range inv.lines {
		lines += l.amount
	}
	if !inv.subtotalFixed {
		inv.subtotal = lines
	}
	inv.charges = nil
	base := inv.subtotal
	if inv.discountBP > 0 {
		d := -divRound(inv.subtotal*inv.discountBP, 10000)
		inv.charges = append(inv.charges, charge{kind: "discount", label: inv.discountLabel, amount: d})
		base += d
	}
	if inv.shippingCharge > 0 {
		inv.charges = append(inv.charges, charge{kind: "shipping", label: inv.shippingLabel, amount: inv.shippingCharge})
		base += inv.shippingCharge
	}
	inv.taxes = inv.computeTaxes(base, base-lines)
	total := base
	for _, t := range inv.taxes {
		total += t.amount
	}
	if inv.swissRounding {
		if rounded := divRound(total, 5) * 5; rounded != total {
			inv.charges = append(inv.charges, charge{kind: "rounding", label: "Rounding", amount: rounded - total})
			total = rounded
		}
	}
	inv.total = total
}

// computeTaxes returns the tax lines on base; extra is the part of base that
// is not a line (charges, or a broken subtotal's difference), taxed at the
// standard rate.
func (inv *invoice) computeTaxes(base, extra int64) []taxLine {
	switch {
	case len(inv.taxBP) == 0:
		return nil
	case inv.loc.name == "ca" && len(inv.taxBP) == 2:
		return []taxLine{
			{label: "GST " + inv.num.rate(inv.taxBP[0]) + "%", bp: inv.taxBP[0], base: base, amount: divRound(base*inv.taxBP[0], 10000)},
			{label: "PST " + inv.num.rate(inv.taxBP[1]) + "%", bp: inv.taxBP[1], base: base, amount: divRound(base*inv.taxBP[1], 10000)},
		}
	case len(inv.taxBP) == 2:
		var out []taxLine
		for _, bp := range inv.taxBP {
			b := int64(0)
			if bp == inv.taxBP[0] {
				b = extra
			}
			for _, l := range inv.lines {
				if l.bp == bp {
					b += l.amount
				}
			}
			out = append(out, taxLine{label: inv.taxLabel(inv.num.rate(bp)), bp: bp, base: b, amount: divRound(b*bp, 10000)})
		}
		return out
	}
	bp := inv.taxBP[0]
	t := taxLine{label: inv.taxLabel(inv.num.rate(bp)), bp: bp, base: base, amount: divRound(base*bp, 10000)}
	if inv.perLineTax && extra == 0 {
		t.amount = 0
		for _, l := range inv.lines {
			t.amount += divRound(l.amount*bp, 10000)
		}
	}
	return []taxLine{t}
}

// tax is the sum of the tax lines.
func (inv *invoice) tax() int64 {
	sum := int64(0)
	for _, t := range inv.taxes {
		sum += t.amount
	}
	return sum
}

// breakInvoice makes inv an invoice that must be rejected for reason, the
// way such invoices happen: a total typed wrong or without the tax, a line
// forgotten in the subtotal, a line amount from an older quantity, a total
// or a number left out.
func breakInvoice(r *rand.Rand, inv *invoice, reason string) {
	inv.reason = reason
	major := pow10(inv.cur.decimals)
	switch reason {
	case ReasonTotalMismatch:
		inv.total += totalError(r, inv, major)
	case ReasonSubtotalMismatch:
		inv.showSubtotal = true
		inv.subtotalFixed = true
		delta := pick(r, []int64{10 * major, 100 * major, -10 * major, major})
		if len(inv.lines) > 1 && chance(r, 50) {
			delta = -inv.lines[len(inv.lines)-1].amount // the last line left out
		}
		inv.subtotal += delta
		inv.compute()
	case ReasonLineMismatch:
		i := r.IntN(len(inv.lines))
		l := &inv.lines[i]
		switch r.IntN(3) {
		case 0: // the amount of one more (or one less) unit
			l.amount += pick(r, []int64{1, -1}) * l.price
		case 1:
			l.amount += pick(r, []int64{10, 100}) * major
		default:
			l.amount += pick(r, []int64{1, 9}) * major
		}
		if l.amount <= 0 {
			l.amount += 20 * major
		}
		inv.compute()
	case ReasonMissingTotal:
		inv.showTotal = false
	case ReasonMissingNumber:
		inv.showNumber = false
	}
}

// totalError is how a stated total goes wrong.
func totalError(r *rand.Rand, inv *invoice, major int64) int64 {
	if t := inv.tax(); t > 0 && chance(r, 35) {
		return -t // the tax left out of the total
	}
	if e := transposed(inv.total) - inv.total; e != 0 && chance(r, 40) {
		return e
	}
	return pick(r, []int64{major, -major, 10 * major, 100 * major, -10 * major, 1})
}

// transposed swaps the two last different adjacent digits of v.
func transposed(v int64) int64 {
	s := []byte(fmt.Sprint(v))
	for i := len(s) - 2; i >= 0; i-- {
		if s[i] != s[i+1] {
			s[i], s[i+1] = s[i+1], s[i]
			var out int64
			fmt.Sscan(string(s), &out)
			return out
		}
	}
	return v
}

// truth is what the document states, in the truth's conventions.
func (inv *invoice) truth() Truth {
	d := inv.cur.decimals
	t := Truth{
		IsInvoice: true, Kind: KindInvoice, Reason: inv.reason,
		Vendor: inv.vendor.name, IssueDate: inv.date.Format(time.DateOnly), Currency: inv.cur.code,
		Subtotal: canonical(inv.subtotal, d), Tax: canonical(inv.tax(), d), LineCount: len(inv.lines),
	}
	if inv.showNumber {
		t.InvoiceNumber = inv.number
	}
	if inv.showTotal {
		t.Total = canonical(inv.total, d)
	}
	for _, l := range inv.lines {
		t.Lines = append(t.Lines, Line{Quantity: canonicalQty(l.qty), UnitPrice: canonical(l.price, d), Amount: canonical(l.amount, d)})
	}
	for _, c := range inv.charges {
		t.Charges = append(t.Charges, Charge{Kind: c.kind, Amount: canonical(c.amount, d)})
	}
	return t
}

// needsCurrencyCode reports whether the document must name its currency in
// words because its amounts do not (bare numbers, or a symbol several
// currencies share).
func (inv *invoice) needsCurrencyCode() bool {
	if !inv.money.showsCurrency() {
		return true
	}
	if inv.money.showsCode() {
		return false
	}
	switch inv.cur.symbol {
	case "£", "€", "¥", "zł", "CHF":
		return false
	case "$":
		return inv.cur.code != "USD"
	}
	return true
}

// dateText writes t in the document's date style.
func (inv *invoice) dateText(t time.Time) string { return inv.dateStyle.format(t) }
