package corpus

import "math/rand/v2"

// qtyKind is how an item is counted.
type qtyKind int

const (
	qtyFew    qtyKind = iota // 1–12 pieces
	qtyMany                  // 10–500 pieces
	qtyHours                 // quarter hours, 0.5–40
	qtyDays                  // half days, 0.5–10
	qtyWeight                // tenths, 1–80 (kg, m, l)
	qtyOne                   // a single service or fee
)

// item is a kind of thing a supplier sells.
type item struct {
	desc string
	unit string // "h", "pcs", "days", "kg", "m", "" (printed after the quantity in some layouts)
	qty  qtyKind
	// lo, hi: the price range in euro cents, scaled to the currency.
	lo, hi int64
}

// industry is a line of business: the words it puts in its name and what
// it invoices for.
type industry struct {
	trades map[string][]string // by language: "en", "de", "sv", "nl", "fr", "ja"
	items  []item
}

var industries = []industry{
	{
		trades: map[string][]string{"en": {"IT Services", "Digital", "Systems", "Software"}, "de": {"Softwaretechnik", "IT-Service", "Informatik"}, "sv": {"Data", "IT-Konsult"}, "nl": {"ICT", "Digital"}, "fr": {"Informatique", "Numérique"}},
		items: []item{
			{"Software development", "h", qtyHours, 7500, 14500},
			{"Consulting services, project Alpha", "h", qtyHours, 9000, 18000},
			{"Server maintenance (monthly)", "", qtyOne, 15000, 60000},
			{"Microsoft 365 Business Standard licence", "pcs", qtyFew, 1050, 1260},
			{"Backup storage 500 GB, 12 months", "", qtyOne, 9900, 24000},
			{"On-site support", "h", qtyHours, 8500, 12000},
			{"SSL certificate renewal (1 year)", "", qtyOne, 4900, 12900},
			{"Laptop Dell Latitude 5440", "pcs", qtyFew, 89000, 129000},
			{"USB-C docking station", "pcs", qtyFew, 14900, 24900},
			{"Cat6 patch cable 2m", "pcs", qtyMany, 250, 690},
			{"Firewall configuration", "h", qtyHours, 9500, 14000},
		},
	},
	{
		trades: map[string][]string{"en": {"Print", "Printing", "Print & Design"}, "de": {"Druck & Medien", "Druckerei"}, "sv": {"Tryck"}, "nl": {"Drukkerij"}, "fr": {"Imprimerie"}},
		items: []item{
			{"Business cards, 500 pack", "", qtyFew, 3500, 5900},
			{"A5 flyers 130gsm (1,000)", "", qtyFew, 6900, 12900},
			{"Roller banner 850 x 2000mm", "pcs", qtyFew, 7900, 14900},
			{"Letterheads A4 120gsm", "pcs", qtyMany, 18, 45},
			{"Design hours", "h", qtyHours, 4500, 8500},
			{"Print proofs", "", qtyFew, 2500, 4500},
			{"Brochure A4, 16 pages, saddle stitched", "pcs", qtyMany, 120, 390},
			{"Vinyl window lettering", "", qtyOne, 18000, 45000},
		},
	},
	{
		trades: map[string][]string{"en": {"Electrical", "Electrical Contractors", "Power & Lighting"}, "de": {"Elektrotechnik", "Elektro"}, "sv": {"El & Kraft", "Elektriska"}, "nl": {"Installatietechniek", "Elektra"}, "fr": {"Électricité"}},
		items: []item{
			{"Electrician labour", "h", qtyHours, 5500, 8500},
			{"LED panel 600x600 40W", "pcs", qtyFew, 3900, 8900},
			{"Consumer unit replacement", "", qtyOne, 45000, 85000},
			{"Cable 2.5mm twin & earth", "m", qtyWeight, 120, 260},
			{"Call-out charge", "", qtyOne, 6500, 12000},
			{"Emergency lighting test", "", qtyOne, 9500, 18000},
			{"Socket outlet, double, installed", "pcs", qtyFew, 4500, 7500},
		},
	},
	{
		trades: map[string][]string{"en": {"Catering", "Kitchen", "Events"}, "de": {"Catering", "Gastronomie"}, "sv": {"Catering", "Kök"}, "nl": {"Catering"}, "fr": {"Traiteur"}},
		items: []item{
			{"Buffet lunch per person", "", qtyMany, 1450, 2950},
			{"Coffee & pastries", "", qtyMany, 450, 850},
			{"Waiting staff", "h", qtyHours, 2200, 3200},
			{"Room hire, full day", "days", qtyDays, 35000, 90000},
			{"Canapés (12 per tray)", "", qtyFew, 3200, 5400},
			{"Delivery and set-up", "", qtyOne, 4500, 9000},
		},
	},
	{
		trades: map[string][]string{"en": {"Office Supplies", "Stationers", "Office Solutions"}, "de": {"Bürobedarf", "Büro"}, "sv": {"Kontorsvaror"}, "nl": {"Kantoorartikelen"}, "fr": {"Fournitures"}, "ja": {"Office", "Shoji"}},
		items: []item{
			{"Copy paper A4 80gsm, box of 5 reams", "", qtyFew, 2290, 3490},
			{"Toner cartridge HP 305A black", "pcs", qtyFew, 5490, 8990},
			{"Ballpoint pens, blue (box of 50)", "", qtyFew, 890, 1690},
			{"Lever arch files", "pcs", qtyMany, 189, 349},
			{"Ergonomic desk chair", "pcs", qtyFew, 18900, 39900},
			{"Desk lamp", "pcs", qtyFew, 2490, 5490},
			{"Cable organiser", "pcs", qtyMany, 280, 650},
			{"Whiteboard 120 x 90 cm", "pcs", qtyFew, 6900, 12900},
		},
	},
	{
		trades: map[string][]string{"en": {"Marine Services", "Marine", "Boatyard"}, "de": {"Bootsservice", "Marine"}, "sv": {"Marin", "Båtvarv"}, "nl": {"Jachtservice"}, "fr": {"Nautisme"}},
		items: []item{
			{"Hull inspection", "", qtyOne, 45000, 90000},
			{"Antifouling paint, 5 l", "pcs", qtyFew, 3900, 5200},
			{"Diving work", "h", qtyHours, 7500, 11000},
			{"Berth fee (per night)", "", qtyFew, 3500, 8500},
			{"Engine service, 250 hour", "", qtyOne, 48000, 95000},
			{"Zinc anodes", "pcs", qtyFew, 1800, 4500},
		},
	},
	{
		trades: map[string][]string{"en": {"Logistics", "Freight", "Transport"}, "de": {"Logistik", "Spedition"}, "sv": {"Transport", "Logistik"}, "nl": {"Logistics", "Transport"}, "fr": {"Transports", "Logistique"}, "ja": {"Logistics", "Express"}},
		items: []item{
			{"Pallet delivery, standard", "pcs", qtyFew, 6500, 12500},
			{"Warehousing (pallet weeks)", "", qtyMany, 250, 450},
			{"Courier, same-day", "", qtyFew, 3500, 9500},
			{"Container haulage 40ft", "", qtyOne, 65000, 120000},
			{"Customs clearance", "", qtyOne, 7500, 15000},
			{"Pick and pack", "", qtyMany, 45, 120},
		},
	},
	{
		trades: map[string][]string{"en": {"Facilities", "Cleaning Services", "Property Services"}, "de": {"Gebäudeservice", "Facility Management"}, "sv": {"Fastighetsservice", "Städ"}, "nl": {"Facilitair", "Schoonmaak"}, "fr": {"Nettoyage", "Services"}},
		items: []item{
			{"Office cleaning, monthly contract", "", qtyOne, 48000, 140000},
			{"Window cleaning", "", qtyOne, 9500, 28000},
			{"Deep clean, kitchen", "h", qtyHours, 2800, 4200},
			{"Washroom consumables", "", qtyFew, 1200, 3500},
			{"Carpet shampoo", "m", qtyWeight, 300, 700},
			{"Grounds maintenance visit", "", qtyFew, 6500, 14000},
		},
	},
	{
		trades: map[string][]string{"en": {"Design", "Studio", "Creative"}, "de": {"Design", "Atelier"}, "sv": {"Design", "Studio"}, "nl": {"Ontwerp", "Studio"}, "fr": {"Design", "Studio"}},
		items: []item{
			{"Brand workshop (half day)", "", qtyOne, 65000, 120000},
			{"Logo design", "", qtyOne, 45000, 150000},
			{"Design work", "h", qtyHours, 6500, 11000},
			{"Photography, product shots", "days", qtyDays, 45000, 90000},
			{"Copywriting", "h", qtyHours, 5500, 9000},
			{"Stock image licence", "pcs", qtyFew, 1500, 4900},
		},
	},
	{
		trades: map[string][]string{"en": {"Accountants", "Bookkeeping", "Advisory"}, "de": {"Steuerberatung", "Treuhand"}, "sv": {"Redovisning", "Revision"}, "nl": {"Administratie", "Advies"}, "fr": {"Expertise Comptable", "Conseil"}},
		items: []item{
			{"Year-end accounts preparation", "", qtyOne, 95000, 240000},
			{"Bookkeeping", "h", qtyHours, 3800, 6500},
			{"VAT return, quarter", "", qtyOne, 18000, 35000},
			{"Payroll, per employee", "", qtyMany, 600, 1400},
			{"Company secretarial", "", qtyOne, 9500, 25000},
			{"Advisory meeting", "h", qtyHours, 12000, 22000},
		},
	},
	{
		trades: map[string][]string{"en": {"Industrial Supply", "Engineering", "Tools & Fixings"}, "de": {"Industrietechnik", "Maschinenbau", "Metallbau"}, "sv": {"Industri", "Verktyg"}, "nl": {"Techniek", "Industrie"}, "fr": {"Industrie", "Outillage"}, "ja": {"Precision", "Engineering"}},
		items: []item{
			{"Hex bolts M8x40 (box of 100)", "", qtyFew, 1190, 1890},
			{"Hydraulic hose DN12, 2 m", "pcs", qtyFew, 3200, 4800},
			{"Safety gloves, pair", "pcs", qtyMany, 290, 650},
			{"Cordless drill 18V", "pcs", qtyFew, 11900, 24900},
			{"Steel sheet 2mm, cut to size", "kg", qtyWeight, 180, 390},
			{"Bearing 6204-2RS", "pcs", qtyMany, 380, 920},
			{"Welding, labour", "h", qtyHours, 5200, 7800},
		},
	},
}

// trade returns a word of the industry for a vendor name in lang, falling
// back to English.
func (ind industry) trade(r *rand.Rand, lang string) string {
	if ts, ok := ind.trades[lang]; ok {
		return pick(r, ts)
	}
	return pick(r, ind.trades["en"])
}

// quantity draws a quantity in hundredths for an item.
func (it item) quantity(r *rand.Rand) int64 {
	switch it.qty {
	case qtyMany:
		return int64(pick(r, []int{10, 12, 20, 24, 25, 30, 40, 48, 50, 60, 75, 100, 120, 150, 200, 250, 500})) * 100
	case qtyHours:
		if chance(r, 35) {
			return int64(between(r, 1, 40)) * 100
		}
		return int64(between(r, 2, 160)) * 25
	case qtyDays:
		return int64(between(r, 1, 20)) * 50
	case qtyWeight:
		return int64(between(r, 10, 800)) * 10
	case qtyOne:
		return 100
	default:
		if chance(r, 30) {
			return 100
		}
		return int64(between(r, 1, 12)) * 100
	}
}

// price draws a unit price in minor units of cur, as round as suppliers
// like them in that currency (9.95, 12.50, ¥3,980, 18.750).
func (it item) price(r *rand.Rand, cur currency) int64 {
	cents := it.lo + r.Int64N(it.hi-it.lo+1)
	minor := cents * cur.milli * pow10(cur.decimals) / 100_000
	major := pow10(cur.decimals)
	if cur.decimals == 0 {
		major = 100 // yen prices are rounded to the hundred
	}
	if minor < 10*major {
		// Small prices (a few pence, fils or yen) are rounded to a twentieth
		// of the major unit at most.
		g := max(major/20, cur.step)
		return max(minor/g*g, g)
	}
	switch r.IntN(5) {
	case 0:
		minor = minor / major * major
	case 1:
		minor = minor/major*major + major/2
	case 2:
		minor = minor/major*major + major*95/100
	case 3:
		minor = minor/major*major + major*80/100
	}
	minor = minor / cur.step * cur.step
	return max(minor, cur.step)
}
