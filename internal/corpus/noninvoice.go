package corpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// renderNonInvoice writes a document of kind, which is not an invoice but
// often looks like one: it has a supplier, items, a "Total", even an
// invoice number.
func renderNonInvoice(r *rand.Rand, kind string) string {
	// Borrow a supplier, a customer, items and amounts from an invoice.
	inv := newInvoice(r, pick(r, layoutLocales[LayoutVendorBlock]), LayoutVendorBlock)
	switch kind {
	case KindReceipt:
		return tillReceipt(r, inv)
	case KindCardSlip:
		return cardSlip(r, inv)
	case KindPaymentReceipt:
		return paymentReceipt(r, inv)
	case KindMemo:
		return memo(r, inv)
	case KindPurchaseOrder:
		return purchaseOrder(r, inv)
	case KindStatement:
		return statement(r, inv)
	case KindQuote, KindEstimate:
		return quote(r, inv, kind == KindEstimate)
	case KindCreditNote:
		return creditNote(r, inv)
	case KindDeliveryNote:
		return deliveryNote(r, inv)
	case KindEmpty:
		return ""
	case KindWhitespace:
		return pick(r, []string{" ", "\n", "\n\n  \n", "\t\n \t \n", "   \r\n\r\n   "})
	case KindMeetingNote:
		return meetingNote(r, inv)
	case KindRemittanceAdvice:
		return remittance(r, inv)
	case KindPaymentReminder:
		return reminder(r, inv)
	default:
		return orderConfirmation(r, inv)
	}
}

// shops are the retailers of till receipts, with what they sell (prices in
// euro cents, scaled to the currency).
var shops = []struct {
	name  string
	items []item
}{
	{"The Corner Café", []item{{desc: "Flat White", lo: 300, hi: 380}, {desc: "Americano", lo: 250, hi: 320}, {desc: "Croissant", lo: 220, hi: 290}, {desc: "Sandwich BLT", lo: 450, hi: 620}, {desc: "Sparkling Water", lo: 150, hi: 220}}},
	{"Hardware Direct", []item{{desc: "Wood screws 4x40 (200)", lo: 599, hi: 899}, {desc: "WD-40 400ml", lo: 649, hi: 799}, {desc: "Masking tape 25mm", lo: 199, hi: 349}, {desc: "Sandpaper assorted", lo: 399, hi: 599}}},
	{"City Stationers", []item{{desc: "A4 Notebook", lo: 350, hi: 599}, {desc: "Gel pens x4", lo: 450, hi: 699}, {desc: "Envelopes C5 (50)", lo: 399, hi: 549}, {desc: "Stapler", lo: 899, hi: 1499}}},
	{"Green Leaf Grocers", []item{{desc: "Bananas 1kg", lo: 119, hi: 199}, {desc: "Milk 2L", lo: 145, hi: 199}, {desc: "Sourdough loaf", lo: 320, hi: 450}, {desc: "Free range eggs x6", lo: 259, hi: 349}, {desc: "Cheddar 400g", lo: 399, hi: 549}}},
}

func tillReceipt(r *rand.Rand, inv *invoice) string {
	var p page
	m := inv.money
	m.place = placeBare
	shop := pick(r, shops)
	p.add(center(strings.ToUpper(shop.name), 32), center(inv.vendor.address[0], 32), center(inv.vendor.address[1], 32))
	if inv.vendor.taxID != "" {
		p.add(center(inv.vendor.taxID, 32))
	}
	p.blank()
	at := inv.date.Add(time.Duration(between(r, 7*60, 21*60)) * time.Minute)
	p.add(inv.dateText(at)+" "+at.Format("15:04"), fmt.Sprintf("Till %d   Trans %d   Op %d", between(r, 1, 6), between(r, 1000, 9999), between(r, 10, 99)))
	p.add(strings.Repeat("-", 32))
	total := int64(0)
	for _, i := range r.Perm(len(shop.items))[:between(r, 1, len(shop.items))] {
		n := int64(between(r, 1, 3))
		price := shop.items[i].price(r, inv.cur)
		total += n * price
		p.add(padRight(fmt.Sprintf("%dx %s", n, shop.items[i].desc), 22) + padLeft(m.format(n*price), 10))
	}
	m = inv.money
	p.add(strings.Repeat("-", 32))
	p.add(padRight("TOTAL", 20) + padLeft(m.format(total), 12))
	if chance(r, 50) {
		paid := (total/(5*pow10(inv.cur.decimals)) + 1) * 5 * pow10(inv.cur.decimals)
		p.add(padRight("CASH", 20)+padLeft(m.format(paid), 12), padRight("CHANGE DUE", 20)+padLeft(m.format(paid-total), 12))
	} else {
		p.add(padRight("VISA CONTACTLESS", 20)+padLeft(m.format(total), 12), "Card: ************"+digits(r, "####"))
	}
	if len(inv.taxes) > 0 && inv.taxes[0].bp > 0 {
		p.add(fmt.Sprintf("%s included: %s", strings.Fields(inv.taxes[0].label)[0], m.format(divRound(total*inv.taxes[0].bp, 10000+inv.taxes[0].bp))))
	}
	p.blank()
	p.add(center(pick(r, []string{"THANK YOU FOR YOUR VISIT", "Thank you for shopping with us!", "PLEASE KEEP YOUR RECEIPT"}), 32))
	if chance(r, 40) {
		p.add(center("Returns within 28 days with receipt", 32))
	}
	return p.String()
}

func truncate(s string, n int) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	return string(rs[:n])
}

func cardSlip(r *rand.Rand, inv *invoice) string {
	var p page
	amount := inv.lines[0].price
	p.add(center(strings.ToUpper(inv.vendor.name), 30), center(inv.vendor.address[1], 30), "")
	p.add(pick(r, []string{"SALE", "CARD PAYMENT", "PURCHASE"}))
	p.add(pick(r, []string{"VISA DEBIT", "MASTERCARD", "AMEX", "MAESTRO"}), "************"+digits(r, "####"))
	p.add("CONTACTLESS", "")
	p.add("AMOUNT        "+inv.money.format(amount), "")
	p.add(pick(r, []string{"APPROVED", "AUTHORISED", "APPROVED - THANK YOU"}))
	p.add(digits(r, "AUTH CODE: ######"), digits(r, "MID: **####"), digits(r, "TID: ****####"))
	at := inv.date.Add(time.Duration(between(r, 7*60, 21*60)) * time.Minute)
	p.add(inv.dateText(at) + "  " + at.Format("15:04:05"))
	p.add("", pick(r, []string{"CUSTOMER COPY", "CARDHOLDER COPY"}), "PLEASE RETAIN FOR YOUR RECORDS")
	return p.String()
}

func paymentReceipt(r *rand.Rand, inv *invoice) string {
	var p page
	m := inv.money
	p.add(inv.vendor.name, "")
	p.add(pick(r, []string{"Receipt", "Payment Receipt", "RECEIPT"}) + digits(r, pick(r, []string{" #####-####", " #R-######", ""})))
	p.add("", pick(r, []string{"Payment received - thank you!", "Thanks for your payment.", "This is your receipt for the payment below."}), "")
	p.add(fields(fieldColonAligned, [][2]string{
		{"Amount paid", m.format(inv.total)},
		{"Date paid", inv.dateText(inv.due.AddDate(0, 0, -between(r, 0, 10)))},
		{"Payment method", pick(r, []string{"Visa", "Mastercard", "Amex"}) + " ending in " + digits(r, "####")},
		{"Invoice number", inv.number},
	})...)
	p.blank()
	p.add("Summary")
	for _, l := range inv.lines {
		p.add(padRight(truncate(l.desc, 40)+" x "+inv.num.qty(l.qty), 50) + padLeft(m.format(l.amount), 14))
	}
	p.add(padRight("Amount paid", 50) + padLeft(m.format(inv.total), 14))
	p.blank()
	p.add("If you have any questions, contact us at " + inv.vendor.email + ".")
	return p.String()
}

func memo(r *rand.Rand, inv *invoice) string {
	var p page
	m := inv.money
	p.add(pick(r, []string{"MEMORANDUM", "MEMO", "Internal memo"}), "")
	p.add(fields(fieldColonAligned, [][2]string{
		{"To", pick(r, []string{"All staff", "Department heads", "Finance team", "Office managers"})},
		{"From", inv.customer.contact + ", " + pick(r, []string{"Finance Director", "Operations", "Head of Procurement"})},
		{"Date", inv.dateText(inv.date)},
		{"Re", pick(r, []string{"New expense policy", "Supplier payment runs", "Budget for the next quarter", "Office move"})},
	})...)
	p.blank()
	p.add(wrap(fmt.Sprintf("From next month, expenses above %s need a second approval before they are paid. "+
		"Last quarter we spent %s on %s alone, against a budget of %s. Please send every supplier "+
		"invoice to the accounts inbox rather than to individual managers, and make sure it shows a purchase order number.",
		m.format(50000*pow10(inv.cur.decimals)/100), m.format(inv.total), strings.ToLower(inv.lines[0].desc), m.format(inv.total*3/2)), 76)...)
	p.blank()
	p.add("Questions to " + inv.customer.contact + ". Thank you.")
	return p.String()
}

// documentLike writes a document built like an invoice (letterhead, fields,
// item table, totals) but titled and labelled as something else.
func documentLike(r *rand.Rand, inv *invoice, title string, ps [][2]string, totalLabel string, footer ...string) string {
	var p page
	p.add(inv.vendorHeader(r, chance(r, 30))...)
	p.blank()
	p.add(title, "")
	p.add(fields(pickFieldStyle(r), ps)...)
	p.blank()
	tb := inv.items(r, pick(r, columnOrders), inv.cell)
	lines := table(tb.cols, tb.rows, tableStyleFor(r))
	p.add(lines...)
	p.blank()
	rows := inv.summaryRows(r, inv.money)
	if inv.showTotal {
		rows[len(rows)-1][0] = totalLabel
	}
	p.add(summaryLines(rows, tableWidth(lines), true)...)
	p.blank()
	p.add(footer...)
	return p.String()
}

func purchaseOrder(r *rand.Rand, inv *invoice) string {
	ps := [][2]string{
		{"PO Number", digits(r, pick(r, []string{"PO-2026-####", "4500######", "PO#####"}))},
		{"Order Date", inv.dateText(inv.date)},
		{"Vendor", inv.vendor.name},
		{"Ship To", inv.customer.name + ", " + strings.Join(inv.customer.address, ", ")},
		{"Delivery by", inv.dateText(inv.due)},
	}
	// The buyer issues a purchase order: the letterhead is the customer's.
	inv.vendor, inv.customer = inv.customer, inv.vendor
	return documentLike(r, inv, pick(r, []string{"PURCHASE ORDER", "Purchase Order"}), ps, pick(r, []string{"Total", "PO Total", "Order Total"}),
		"Please quote the PO number on your invoice and delivery note.", "Authorised by: "+inv.vendor.contact)
}

func quote(r *rand.Rand, inv *invoice, estimate bool) string {
	if estimate {
		ps := [][2]string{{"Estimate #", digits(r, "EST-####")}, {"Date", inv.dateText(inv.date)}, {"Prepared for", inv.customer.name}}
		return documentLike(r, inv, pick(r, []string{"ESTIMATE", "Estimate", "Cost estimate"}), ps, pick(r, []string{"Estimate total", "Estimated Total", "Total"}),
			"This is an estimate only; the final invoice may differ by up to 10%.", "To accept, reply to this e-mail or call "+inv.vendor.phone+".")
	}
	ps := [][2]string{{"Quote No.", digits(r, pick(r, []string{"Q-####", "QT######", "AN-2026-###"}))}, {"Date", inv.dateText(inv.date)}, {"Valid until", inv.dateText(inv.date.AddDate(0, 0, 30))}, {"Customer", inv.customer.name}}
	return documentLike(r, inv, pick(r, []string{"QUOTATION", "Quotation", "QUOTE", "Price quotation"}), ps, pick(r, []string{"Total", "Quote Total", "Total (quoted)"}),
		"This quotation is valid for 30 days. Prices exclude delivery unless stated.", "We look forward to your order.")
}

func creditNote(r *rand.Rand, inv *invoice) string {
	ps := [][2]string{
		{"Credit Note No.", digits(r, pick(r, []string{"CN-#####", "CR-2026-###", "GS#####"}))},
		{"Date", inv.dateText(inv.date)},
		{"Original invoice", inv.number},
		{"Reason", pick(r, []string{"Goods returned damaged", "Overcharge on invoice", "Cancelled order", "Pricing error"})},
	}
	return documentLike(r, inv, pick(r, []string{"CREDIT NOTE", "Credit Note", "CREDIT MEMO"}), ps, pick(r, []string{"Total credit", "Credit Total", "Total"}),
		"This amount has been credited to your account and will be offset against your next invoice.")
}

func deliveryNote(r *rand.Rand, inv *invoice) string {
	var p page
	p.add(inv.vendorHeader(r, false)...)
	p.blank()
	p.add(pick(r, []string{"DELIVERY NOTE", "Delivery Note", "PACKING SLIP", "DISPATCH NOTE"}), "")
	p.add(fields(pickFieldStyle(r), [][2]string{
		{"Delivery No.", digits(r, "DN-######")},
		{"Date", inv.dateText(inv.date)},
		{"Your order", digits(r, "PO-####")},
		{"Deliver to", inv.customer.name + ", " + strings.Join(inv.customer.address, ", ")},
	})...)
	p.blank()
	rows := make([][]string, len(inv.lines))
	for i, l := range inv.lines {
		q := inv.num.qty(l.qty)
		rows[i] = []string{itoa(i + 1), l.sku, l.desc, q, q}
	}
	p.add(table([]column{{head: "Pos"}, {head: "Code"}, {head: "Description"}, {head: "Ordered", right: true}, {head: "Delivered", right: true}}, rows, tableStyle{gap: "  ", rule: "-"})...)
	p.blank()
	p.add(fmt.Sprintf("Packages: %d   Weight: %d kg", between(r, 1, 6), between(r, 2, 300)))
	p.add("", "Received in good condition by: ____________________   Date: __________")
	return p.String()
}

func statement(r *rand.Rand, inv *invoice) string {
	var p page
	m := inv.money
	p.add(inv.vendorHeader(r, false)...)
	p.blank()
	p.add(pick(r, []string{"STATEMENT OF ACCOUNT", "Statement", "ACCOUNT STATEMENT"}), "")
	p.add(fields(fieldColonAligned, [][2]string{
		{"Statement date", inv.dateText(inv.date)},
		{"Account", inv.customer.name},
		{"Account No.", digits(r, "C-#####")},
	})...)
	p.blank()
	var rows [][]string
	balance := int64(0)
	d := inv.date.AddDate(0, -2, 0)
	for range between(r, 3, 6) {
		d = d.AddDate(0, 0, between(r, 3, 15))
		if chance(r, 65) || balance == 0 {
			amt := inv.lines[r.IntN(len(inv.lines))].amount * int64(between(r, 1, 4))
			balance += amt
			rows = append(rows, []string{inv.dateText(d), "Invoice " + digits(r, "INV-####"), m.bare(amt), "", m.bare(balance)})
		} else {
			amt := balance / 2
			balance -= amt
			rows = append(rows, []string{inv.dateText(d), "Payment received - thank you", "", m.bare(amt), m.bare(balance)})
		}
	}
	p.add(table([]column{{head: "Date"}, {head: "Details"}, {head: "Debit", right: true}, {head: "Credit", right: true}, {head: "Balance", right: true}}, rows, tableStyle{gap: "   ", rule: "-", ruleSpan: true})...)
	p.blank()
	p.add(pick(r, []string{"Balance due: ", "Amount due: ", "Total outstanding: "}) + m.format(balance))
	p.add(fmt.Sprintf("Current: %s   30 days: %s   60 days: %s   90+ days: %s", m.bare(balance), m.bare(0), m.bare(0), m.bare(0)))
	p.blank()
	p.add("This is a statement of your account, not a VAT invoice. Please pay the balance due quoting your account number.")
	return p.String()
}

func meetingNote(r *rand.Rand, inv *invoice) string {
	var p page
	m := inv.money
	p.add(pick(r, []string{"Meeting notes - finance weekly", "Notes: procurement sync", "Minutes of the operations meeting"}))
	p.add("Date: "+inv.dateText(inv.date), "Attendees: "+inv.customer.contact+", "+pick(r, firstNames)+", "+pick(r, firstNames))
	p.blank()
	p.add("1. Supplier invoices")
	p.add(wrap(fmt.Sprintf("   Invoice %s from %s (total %s) is disputed: the %s line was charged twice. %s to call them before we pay.",
		inv.number, inv.vendor.name, m.format(inv.total), strings.ToLower(inv.lines[0].desc), strings.Fields(inv.customer.contact)[0]), 76)...)
	p.add("2. Budget")
	p.add(wrap(fmt.Sprintf("   Q%d spend is %s against a budget of %s. Freeze on new subscriptions until review.", between(r, 1, 4), m.format(inv.total*7), m.format(inv.total*8)), 76)...)
	p.blank()
	p.add("Action items:", "- "+pick(r, firstNames)+": chase the credit note", "- "+pick(r, firstNames)+": update the supplier list")
	p.add("Next meeting: " + inv.dateText(inv.date.AddDate(0, 0, 7)))
	return p.String()
}

func remittance(r *rand.Rand, inv *invoice) string {
	var p page
	m := inv.money
	payer := inv.customer
	p.add(payer.name)
	p.add(payer.address...)
	p.blank()
	p.add(pick(r, []string{"REMITTANCE ADVICE", "Remittance Advice", "Payment advice"}), "")
	p.add("To: "+inv.vendor.name, "Payment date: "+inv.dateText(inv.due), "Payment reference: "+digits(r, "BACS######"))
	p.blank()
	p.add("We have paid the following invoices by bank transfer:", "")
	total := int64(0)
	var rows [][]string
	for i := range between(r, 1, 4) {
		amt := inv.total + int64(i)*inv.lines[0].amount
		total += amt
		num := inv.number
		if i > 0 {
			num = invoiceNumber(r, inv.loc, inv.date)
		}
		rows = append(rows, []string{num, inv.dateText(inv.date.AddDate(0, 0, -7*i)), m.bare(amt)})
	}
	p.add(table([]column{{head: "Invoice No."}, {head: "Invoice Date"}, {head: "Amount", right: true}}, rows, tableStyle{gap: "    ", rule: "-"})...)
	p.blank()
	p.add(pick(r, []string{"Total paid: ", "Total payment: ", "Total: "}) + m.format(total))
	p.blank()
	p.add("Please allow 2 working days for the funds to reach your account.")
	return p.String()
}

func reminder(r *rand.Rand, inv *invoice) string {
	var p page
	m := inv.money
	p.add(inv.vendorHeader(r, false)...)
	p.blank()
	p.add(pick(r, []string{"PAYMENT REMINDER", "Reminder: overdue invoice", "Second reminder", "FINAL NOTICE"}), "")
	p.add("Date: " + inv.dateText(inv.due.AddDate(0, 0, between(r, 7, 30))))
	p.add("To: " + inv.customer.name)
	p.blank()
	p.add(wrap(fmt.Sprintf("Our records show that invoice %s of %s for %s was due on %s and has not yet been paid. "+
		"If you have already paid, please ignore this reminder. Otherwise please pay the outstanding amount within 7 days.",
		inv.number, inv.dateText(inv.date), m.format(inv.total), inv.dateText(inv.due)), 76)...)
	p.blank()
	p.add(fields(fieldColonAligned, [][2]string{{"Invoice", inv.number}, {"Invoice date", inv.dateText(inv.date)}, {"Amount outstanding", m.format(inv.total)}})...)
	p.blank()
	p.add("A copy of the original invoice is available on request.")
	return p.String()
}

func orderConfirmation(r *rand.Rand, inv *invoice) string {
	var p page
	m := inv.money
	p.add(inv.vendor.name, "")
	p.add(pick(r, []string{"Order Confirmation", "Thank you for your order!", "ORDER CONFIRMATION"}))
	p.add(digits(r, pick(r, []string{"Order no. 10######", "Order number: ###-#######-#######", "Your order W#########"})))
	p.add("Placed on " + inv.dateText(inv.date))
	p.blank()
	for _, l := range inv.lines {
		p.add(padRight(truncate(l.desc, 40), 42) + padLeft("Qty: "+inv.num.qty(l.qty), 10) + padLeft(m.format(l.amount), 14))
	}
	p.blank()
	rows := inv.summaryRows(r, m)
	if inv.showTotal {
		rows[len(rows)-1][0] = pick(r, []string{"Order total", "Order Total", "Total"})
	}
	p.add(fields(fieldColonAligned, rows)...)
	p.blank()
	p.add("We'll e-mail you when your order ships. Your invoice will follow with the delivery.")
	return p.String()
}
