package corpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// renderMarkdown: a heading, bold labels, a pipe table, the totals as table
// rows or bold lines.
func renderMarkdown(r *rand.Rand, inv *invoice) string {
	var p page
	vendorLabel := pick(r, []string{"Supplier", "From", "Vendor", "Seller"})
	ps := inv.fieldPairs(r)
	switch r.IntN(3) {
	case 0: // "# Invoice INV-2026-017", then the supplier as a field
		if inv.showNumber {
			p.add("# Invoice " + inv.number)
			ps = inv.withoutNumber(ps)
		} else {
			p.add("# Invoice")
		}
		ps = append([][2]string{{vendorLabel, inv.vendor.name}}, ps...)
	case 1: // the supplier as the heading
		p.add("# " + inv.vendor.name)
		p.add(strings.Join(inv.vendor.address, ", "))
		p.blank()
		p.add("## " + pick(r, []string{"Invoice", "INVOICE", "Tax Invoice"}))
	default:
		p.add("# " + strings.ReplaceAll(inv.labels.title, " ", ""))
		ps = append([][2]string{{vendorLabel, inv.vendor.name}}, ps...)
		if chance(r, 50) {
			ps = append(ps[:1:1], append([][2]string{{"Address", strings.Join(inv.vendor.address, ", ")}}, ps[1:]...)...)
		}
	}
	p.blank()
	ps = append(ps, [2]string{strings.TrimSuffix(inv.labels.billTo, ":"), inv.customer.name + ", " + strings.Join(inv.customer.address, ", ")})
	list := chance(r, 35)
	for _, pr := range ps {
		if list {
			p.add("- **" + pr[0] + ":** " + pr[1])
		} else {
			p.add("**" + pr[0] + ":** " + pr[1] + "  ")
		}
	}
	p.blank()
	p.add(pick(r, []string{"## Items", "## Line items", "### Services", "## Details"}))
	p.blank()
	tb := inv.items(r, pick(r, columnOrders), inv.cell)
	p.add(pipeRow(headsOf(tb)))
	p.add(pipeAlign(tb.cols))
	for _, row := range tb.rows {
		p.add(pipeRow(row))
	}
	rows := inv.summaryRows(r, inv.money)
	switch r.IntN(3) {
	case 0: // totals as rows of the item table
		for i, s := range rows {
			cells := make([]string, len(tb.cols))
			cells[len(cells)-2], cells[len(cells)-1] = s[0], s[1]
			if i == len(rows)-1 && inv.showTotal {
				cells[len(cells)-2], cells[len(cells)-1] = "**"+s[0]+"**", "**"+s[1]+"**"
			}
			p.add(pipeRow(cells))
		}
	case 1: // a two-column table of totals
		p.blank()
		p.add("| | |", "|---|---:|")
		for _, s := range rows {
			p.add(pipeRow(s[:]))
		}
	default:
		p.blank()
		for _, s := range rows {
			p.add("**" + s[0] + ":** " + s[1] + "  ")
		}
	}
	p.blank()
	p.add("_" + pick(r, []string{"Payment due within " + itoa(inv.termsDays) + " days.", "Thank you for your business.", "Please quote the invoice number with your payment."}) + "_")
	return p.String()
}

func headsOf(tb itemTable) []string {
	out := make([]string, len(tb.cols))
	for i, c := range tb.cols {
		out[i] = c.head
	}
	return out
}

func pipeRow(cells []string) string { return "| " + strings.Join(cells, " | ") + " |" }

func pipeAlign(cols []column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = "---"
		if c.right {
			parts[i] = "--:"
		}
	}
	return "|" + strings.Join(parts, "|") + "|"
}

var mailZones = map[string]string{"uk": "+0000", "ie": "+0000", "us": "-0500", "ca": "-0500", "au": "+1000", "de": "+0100", "jp": "+0900", "se": "+0100"}

// renderEmail: an invoice sent as an e-mail: the supplier is the sender,
// the number is in the subject, the items and amounts are in sentences.
func renderEmail(r *rand.Rand, inv *invoice) string {
	var p page
	v, c := inv.vendor, inv.customer
	dated := chance(r, 35)
	sent := inv.date
	if dated {
		sent = sent.AddDate(0, 0, between(r, 0, 3))
	}
	sent = sent.Add(time.Duration(between(r, 8*60, 18*60+59)) * time.Minute).Add(time.Duration(r.IntN(60)) * time.Second)
	if chance(r, 50) {
		p.add("From: " + v.name + " <" + v.email + ">")
	} else {
		p.add(`From: "` + v.name + `" <` + v.email + ">")
	}
	p.add("To: " + c.contact + " <" + strings.ToLower(strings.Fields(c.contact)[0]) + "@" + c.domain + ">")
	p.add("Date: " + sent.Format("Mon, 2 Jan 2006 15:04:05 ") + mailZones[inv.loc.name])
	period := inv.date.AddDate(0, -1, 0).Format("January")
	if inv.showNumber {
		p.add("Subject: " + fmt.Sprintf(pick(r, []string{"Invoice %s", "Invoice %s - " + period, "Invoice #%s from " + v.name, "Your invoice %s", v.name + ": invoice %s"}), inv.number))
	} else {
		p.add("Subject: " + pick(r, []string{"Invoice for " + period, "Our invoice - " + period + " work"}))
	}
	p.blank()
	first := strings.Fields(c.contact)[0]
	p.add(pick(r, []string{"Hi " + first + ",", "Dear " + first + ",", "Hello " + first + ",", "Dear Accounts team,"}))
	p.blank()
	intro := "Please find below our invoice"
	if inv.showNumber {
		intro = pick(r, []string{"Please find below our invoice " + inv.number, "Here is invoice " + inv.number, "As agreed, this is our invoice no. " + inv.number})
	}
	if dated {
		intro += ", dated " + inv.dateText(inv.date) + ","
	}
	p.add(intro + " for the work in " + period + ".")
	p.blank()
	if chance(r, 35) {
		for _, l := range inv.lines {
			p.add(fmt.Sprintf("  - %s: %s x %s = %s", l.desc, inv.num.qty(l.qty), inv.money.format(l.price), inv.money.format(l.amount)))
		}
	} else {
		p.add(wrap(inv.itemProse(r), 76)...)
	}
	p.blank()
	if chance(r, 40) {
		p.add(fields(fieldColon, inv.summaryRows(r, inv.money))...)
	} else {
		p.add(wrap(inv.totalProse(r), 76)...)
	}
	if inv.needsCurrencyCode() {
		p.add(fmt.Sprintf(pick(r, []string{"All amounts are in %s.", "Amounts in %s.", "(All figures in %s.)"}), inv.cur.code))
	}
	p.blank()
	p.add(pick(r, []string{
		"Payment is due within " + itoa(inv.termsDays) + " days.",
		"Could you arrange payment within " + itoa(inv.termsDays) + " days, please? Our bank details are unchanged.",
		"Payment by bank transfer within " + itoa(inv.termsDays) + " days would be appreciated.",
	}))
	p.blank()
	p.add(pick(r, []string{"Kind regards,", "Many thanks,", "Best wishes,", "Thanks,"}))
	p.add(v.contact)
	if chance(r, 70) {
		p.add(v.name)
	}
	if chance(r, 50) {
		p.add(v.phone)
	}
	return p.String()
}

// itemProse writes the lines as one or more sentences.
func (inv *invoice) itemProse(r *rand.Rand) string {
	m := inv.money
	parts := make([]string, len(inv.lines))
	for i, l := range inv.lines {
		q := inv.num.qty(l.qty)
		desc := strings.ToLower(l.desc[:1]) + l.desc[1:]
		switch {
		case l.qty == 100 && l.unit != "h" && l.unit != "days" && l.amount == l.price:
			// One item is written with one figure; a line whose amount is
			// not its price (a broken line_mismatch invoice) takes the
			// form below that shows both, or the fault would not be in
			// the text.
			parts[i] = fmt.Sprintf("the %s at %s", desc, m.format(l.amount))
		case l.unit == "h":
			parts[i] = fmt.Sprintf("%s hours of %s at %s per hour (%s)", q, desc, m.format(l.price), m.format(l.amount))
		case l.unit == "kg" || l.unit == "m":
			parts[i] = fmt.Sprintf("%s %s of %s at %s per %s (%s)", q, l.unit, desc, m.format(l.price), l.unit, m.format(l.amount))
		case l.unit == "days":
			parts[i] = fmt.Sprintf("%s days of %s at %s per day (%s)", q, desc, m.format(l.price), m.format(l.amount))
		default:
			parts[i] = fmt.Sprintf("%s x %s at %s each (%s)", q, desc, m.format(l.price), m.format(l.amount))
		}
	}
	if len(parts) == 1 {
		return "This covers " + parts[0] + "."
	}
	return "This covers " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1] + "."
}

// totalProse states the subtotal, charges, tax and total in a sentence.
func (inv *invoice) totalProse(r *rand.Rand) string {
	m := inv.money
	var s strings.Builder
	if inv.showSubtotal {
		s.WriteString(pick(r, []string{"That brings the net amount to ", "The subtotal is ", "That comes to "}) + m.format(inv.subtotal))
	} else {
		s.WriteString("That comes to " + m.format(inv.subtotal))
	}
	for _, c := range inv.charges {
		if c.amount < 0 {
			fmt.Fprintf(&s, ", less %s (%s)", strings.ToLower(c.label), m.format(-c.amount))
		} else {
			fmt.Fprintf(&s, ", plus %s of %s", strings.ToLower(c.label), m.format(c.amount))
		}
	}
	for _, t := range inv.taxes {
		fmt.Fprintf(&s, ", plus %s of %s", t.label, m.format(t.amount))
	}
	if !inv.showTotal {
		return s.String() + "."
	}
	s.WriteString(pick(r, []string{", so the total due is ", ". The total amount due is ", ", making a total of ", ". Amount due: "}))
	return s.String() + m.format(inv.total) + "."
}

// wrap breaks text into lines of at most w runes at spaces.
func wrap(text string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && width(line)+1+width(word) > w {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(out, line)
}

// renderContinental: a European business letter: letterhead, the return
// address line above the customer, place and date, fields with distracting
// delivery dates, continental numbers, net amount, VAT per rate, "Total
// (EUR)" and the legal footer.
func renderContinental(r *rand.Rand, inv *invoice) string {
	var p page
	v := inv.vendor
	p.add(inv.vendorHeader(r, false)...)
	p.blank()
	if chance(r, 60) {
		p.add(v.name + " · " + v.address[0] + " · " + v.address[1])
	}
	p.add(inv.customerBlock(r)...)
	p.blank()
	if chance(r, 50) {
		town := v.address[1]
		if i := strings.IndexByte(town, ' '); i > 0 && town[0] >= '0' && town[0] <= '9' {
			town = town[i+1:]
		}
		p.add(padLeft(town+", "+inv.dateText(inv.date), 72))
		p.blank()
	}
	if chance(r, 45) {
		inv.labels.total = "Total (" + inv.cur.code + ")"
	}
	title, numbered := inv.titleWithNumber(r)
	p.add(title)
	p.blank()
	ps := inv.fieldPairs(r)
	if numbered {
		ps = inv.withoutNumber(ps)
	}
	if chance(r, 40) {
		ps = append(ps, [2]string{"Delivery date", inv.dateText(inv.date.AddDate(0, 0, -between(r, 1, 9)))})
	}
	if chance(r, 30) {
		start := time.Date(inv.date.Year(), inv.date.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0)
		ps = append(ps, [2]string{"Service period", inv.dateText(start) + " – " + inv.dateText(start.AddDate(0, 1, -1))})
	}
	p.add(fields(pick(r, []fieldStyle{fieldColon, fieldColonAligned, fieldAligned}), ps)...)
	p.blank()
	p.add(pick(r, []string{"Dear Sir or Madam,", "Dear " + pick(r, []string{"Mr ", "Ms "}) + strings.Fields(inv.customer.contact)[1] + ","}))
	p.add(pick(r, []string{"We hereby invoice you for the following:", "Thank you for your order. We invoice you as follows:", "For our services we charge you as follows:"}))
	p.blank()
	order := pick(r, [][]colKind{{colNo, colDesc, colQty, colPrice, colAmount}, {colNo, colSKU, colDesc, colQty, colUOM, colPrice, colAmount}, {colNo, colQty, colDesc, colPrice, colAmount}, {colDesc, colQty, colPrice, colAmount}})
	tb := inv.items(r, order, inv.cell)
	lines := table(tb.cols, tb.rows, tableStyleFor(r))
	p.add(lines...)
	p.add(strings.Repeat("-", tableWidth(lines)))
	p.add(summaryLines(inv.summaryRows(r, inv.money), tableWidth(lines), chance(r, 30))...)
	p.blank()
	p.add(pick(r, []string{"Payable within " + itoa(inv.termsDays) + " days without deduction.", "Please transfer the amount within " + itoa(inv.termsDays) + " days, quoting the invoice number."}))
	p.add(digits(r, bankDetails[inv.loc.name]))
	if v.regNo != "" {
		p.add("Managing Director: " + v.contact + " · " + v.regNo)
	}
	return p.String()
}

// renderNumbered: numbered items, each a description line with its
// quantity, unit price and amount on the next line.
func renderNumbered(r *rand.Rand, inv *invoice) string {
	var p page
	if chance(r, 50) {
		p.add(inv.vendorHeader(r, false)...)
		p.blank()
		p.add(inv.labels.title)
		p.blank()
		p.add(fields(pickFieldStyle(r), inv.fieldPairs(r))...)
	} else {
		p.add(inv.labels.title)
		p.blank()
		ps := append([][2]string{{pick(r, []string{"From", "Supplier", "Vendor", "Seller"}), inv.vendor.name}}, inv.fieldPairs(r)...)
		p.add(fields(pickFieldStyle(r), ps)...)
	}
	p.blank()
	p.add(inv.labels.billTo)
	p.add(inv.customerBlock(r)...)
	p.blank()
	m := inv.money
	style := r.IntN(4)
	if style != 3 {
		p.add(pick(r, []string{"Items:", "Services rendered:", "Description of goods/services", "Details:"}))
		p.blank()
	} else {
		p.add(padRight("No.", 5)+padRight("Description / Qty", 36)+padLeft("Unit price", 14)+padLeft("Amount", 14), strings.Repeat("-", 69))
	}
	for i, l := range inv.lines {
		q := inv.num.qty(l.qty)
		unit := l.unit
		if unit == "" {
			unit = "pcs"
		}
		switch style {
		case 0:
			p.add(fmt.Sprintf("%d. %s", i+1, l.desc))
			p.add(fmt.Sprintf("   %s %s x %s = %s", q, unit, m.format(l.price), m.format(l.amount)))
		case 1:
			p.add(fmt.Sprintf("Item %d: %s", i+1, l.desc))
			p.add(fmt.Sprintf("        Quantity: %s   Unit price: %s   Amount: %s", q, m.format(l.price), m.format(l.amount)))
		case 2:
			p.add(fmt.Sprintf("(%d) %s", i+1, l.desc))
			p.add(padRight(fmt.Sprintf("    %s %s @ %s", q, unit, m.format(l.price)), 50) + padLeft(m.format(l.amount), 16))
		default:
			p.add(fmt.Sprintf("%02d   %s", i+1, l.desc))
			p.add(padRight("     "+q+" "+unit, 41) + padLeft(m.format(l.price), 14) + padLeft(m.format(l.amount), 14))
		}
	}
	p.blank()
	rows := inv.summaryRows(r, m)
	if chance(r, 50) {
		p.add(fields(fieldColonAligned, rows)...)
	} else {
		p.add(summaryLines(rows, 69, true)...)
	}
	p.blank()
	p.add(inv.paymentFooter(r)...)
	return p.String()
}

// renderBullets: a short invoice whose items are inline bullets
// ("- 3 x Widget @ $4.00 = $12.00").
func renderBullets(r *rand.Rand, inv *invoice) string {
	var p page
	m := inv.money
	switch {
	case inv.showNumber && chance(r, 50):
		p.add(pick(r, []string{"INVOICE ", "Invoice #", "INVOICE No. ", "Invoice "}) + inv.number)
	default:
		p.add(pick(r, []string{"INVOICE", "Invoice"}))
		if inv.showNumber {
			p.add(inv.labels.number + ": " + inv.number)
		}
	}
	if chance(r, 50) {
		p.add(pick(r, []string{"From", "Vendor", "Supplier", "Seller"}) + ": " + inv.vendor.name)
	} else {
		p.lines = append([]string{inv.vendor.name, ""}, p.lines...)
	}
	p.add(pick(r, []string{"To", "Bill to", "Customer"}) + ": " + inv.customer.name)
	p.add(inv.labels.date + ": " + inv.dateText(inv.date))
	if inv.needsCurrencyCode() {
		p.add("Currency: " + inv.cur.code)
	}
	p.blank()
	if chance(r, 50) {
		p.add(pick(r, []string{"Items:", "Work completed:", "Charges:", "Details"}))
	}
	marker := pick(r, []string{"-", "*", "•"})
	style := r.IntN(4)
	for _, l := range inv.lines {
		q := inv.num.qty(l.qty)
		unit := map[string]string{"h": pick(r, []string{"hrs", "hours", "h"}), "days": "days", "kg": "kg", "m": "m"}[l.unit]
		if unit != "" {
			q += " " + unit
		}
		switch style {
		case 0:
			p.add(fmt.Sprintf("%s %s x %s @ %s = %s", marker, q, l.desc, m.format(l.price), m.format(l.amount)))
		case 1:
			p.add(fmt.Sprintf("%s %s: %s x %s = %s", marker, l.desc, q, m.format(l.price), m.format(l.amount)))
		case 2:
			p.add(fmt.Sprintf("%s %s × %s at %s each: %s", marker, q, l.desc, m.format(l.price), m.format(l.amount)))
		default:
			p.add(fmt.Sprintf("%s %s (%s @ %s) %s", marker, l.desc, q, m.format(l.price), m.format(l.amount)))
		}
	}
	p.blank()
	p.add(fields(fieldColon, inv.summaryRows(r, m))...)
	p.blank()
	if chance(r, 60) {
		p.add(pick(r, []string{"Payment due in " + itoa(inv.termsDays) + " days.", "Thanks!", "Pay by bank transfer, please quote the invoice number."}))
	}
	return p.String()
}
