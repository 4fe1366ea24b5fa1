package corpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// party is a supplier or a customer.
type party struct {
	name    string
	address []string // street lines, then the town line(s), then the country
	phone   string
	email   string
	web     string
	taxID   string // printed as is ("VAT Reg No: GB 284 5521 90")
	regNo   string // company registration, printed as is
	contact string // a person ("Sam Carter")
	domain  string
}

// town is where a party sits and, for the US and Canada, what tax applies.
type town struct {
	line   string // the town line as written ("Leeds LS1 4DY", "Dallas, TX 75201")
	bp     int64  // sales tax in basis points (US); 0 otherwise
	region string // state or province
}

// dateStyle writes a date the way a document does.
type dateStyle struct {
	format func(time.Time) string
	// dayMonth is true for numeric styles whose order of day and month a
	// reader must know (03/04/2026); such a date needs evidence of the
	// convention when both numbers are 12 or less.
	dayMonth bool
}

var (
	dateISO      = dateStyle{format: func(t time.Time) string { return t.Format("2006-01-02") }}
	dateDMYSlash = dateStyle{format: func(t time.Time) string { return t.Format("02/01/2006") }, dayMonth: true}
	dateMDYSlash = dateStyle{format: func(t time.Time) string { return t.Format("01/02/2006") }, dayMonth: true}
	dateMDYShort = dateStyle{format: func(t time.Time) string { return t.Format("1/2/2006") }, dayMonth: true}
	dateDMYDot   = dateStyle{format: func(t time.Time) string { return t.Format("02.01.2006") }}
	dateLongUS   = dateStyle{format: func(t time.Time) string { return t.Format("January 2, 2006") }}
	dateShortUS  = dateStyle{format: func(t time.Time) string { return t.Format("Jan 2, 2006") }}
	dateLongUK   = dateStyle{format: func(t time.Time) string { return t.Format("2 January 2006") }}
	dateShortUK  = dateStyle{format: func(t time.Time) string { return t.Format("2 Jan 2006") }}
	dateYMDSlash = dateStyle{format: func(t time.Time) string { return t.Format("2006/01/02") }}
	dateDMonY    = dateStyle{format: func(t time.Time) string { return t.Format("02-Jan-2006") }}
)

// taxLabel writes the label of a tax line for a rate already formatted in
// the document's number style ("20", "8.25", "8,1").
type taxLabel func(rate string) string

func fixedRate(format string) taxLabel {
	if !strings.Contains(format, "%s") {
		return func(string) string { return format } // a label without the rate ("VAT", "GST")
	}
	return func(rate string) string { return fmt.Sprintf(format, rate) }
}

// locale is a country's way of writing an invoice.
type locale struct {
	name       string
	lang       string // for vendor names
	currencies []string
	nums       []numStyle
	places     []placement
	dates      []dateStyle
	taxLabels  []taxLabel
	// taxRates are the rates of the country's tax, the standard first, in
	// basis points; a locale with several taxes on the same base (Canada)
	// sets them per town instead.
	taxRates []int64
	// splitRates: lines may carry a reduced rate, giving one tax line per
	// rate (Germany 19 % and 7 %, Japan 10 % and 8 %).
	splitRates bool
	us         bool // MM/DD dates, sales tax by state
	streets    []string
	towns      []town
	country    string
	// taxIDs, regNos and phones are patterns, each # a random digit.
	taxIDs   []string
	regNos   []string
	phones   []string
	firsts   []string // first word of a company name
	suffixes []string // legal form
	tld      string
}

var (
	ukTax = []taxLabel{fixedRate("VAT %s%%"), fixedRate("VAT @ %s%%"), fixedRate("VAT (%s%%)"), fixedRate("VAT at %s%%"), fixedRate("VAT")}
	euTax = []taxLabel{fixedRate("VAT %s%%"), fixedRate("VAT @ %s%%"), fixedRate("VAT (%s%%)"), fixedRate("plus %s%% VAT"), fixedRate("VAT")}
)

var locales = map[string]*locale{
	"uk": {
		name: "uk", lang: "en", currencies: []string{"GBP"},
		nums: []numStyle{numEnglish, numEnglish, numEnglish, numPlain}, places: []placement{placeSymbol, placeSymbol, placeBare, placeCodeBefore},
		dates:     []dateStyle{dateDMYSlash, dateDMYSlash, dateLongUK, dateShortUK, dateISO, dateLongUS},
		taxLabels: ukTax, taxRates: []int64{2000, 2000, 2000, 2000, 500, 0},
		streets: []string{"Millbank Road", "Station Road", "High Street", "Queen Street", "Mill Lane", "Church Street", "Victoria Road", "Albion Street", "Bridge Street", "Market Place", "Canal Wharf", "Hope Street"},
		towns:   []town{{line: "Leeds LS1 4DY"}, {line: "Bristol BS2 0JP"}, {line: "Manchester M1 1AA"}, {line: "Harrogate HG1 1TE"}, {line: "York YO1 7HH"}, {line: "Bath BA1 2HG"}, {line: "Norwich NR2 1TF"}, {line: "Cardiff CF10 1EP"}, {line: "Glasgow G2 3BZ"}, {line: "Sheffield S1 2HE"}, {line: "London EC1V 9HX"}, {line: "Reading RG1 1AF"}},
		country: "United Kingdom", taxIDs: []string{"VAT Reg No: GB ### #### ##", "VAT No. GB#########", "VAT Registration No. ### #### ##"},
		regNos:   []string{"Company No. 0#######", "Registered in England & Wales No. 1#######"},
		phones:   []string{"0113 496 ####", "0117 496 ####", "+44 (0)161 496 ####", "020 7946 ####"},
		firsts:   []string{"Harbour Lane", "Redfern", "Ashcombe", "Millbrook", "Kestrel", "Oakridge", "Thistle & Rose", "Castlegate", "Whitcombe", "Fenwick", "Bramley", "Orion"},
		suffixes: []string{"Ltd", "Limited", "Ltd.", "LLP"}, tld: "co.uk",
	},
	"ie": {
		name: "ie", lang: "en", currencies: []string{"EUR"},
		nums: []numStyle{numEnglish}, places: []placement{placeSymbol, placeSymbol, placeBare, placeCodeAfter},
		dates:     []dateStyle{dateDMYSlash, dateLongUK, dateShortUK},
		taxLabels: ukTax, taxRates: []int64{2300, 2300, 2300, 1350},
		streets: []string{"Baggot Street Lower", "Patrick Street", "Shop Street", "O'Connell Street", "Dock Road", "Harcourt Street"},
		towns:   []town{{line: "Dublin 2, D02 X285"}, {line: "Cork T12 R2NC"}, {line: "Galway H91 E2K3"}, {line: "Limerick V94 T9PX"}},
		country: "Ireland", taxIDs: []string{"VAT No. IE#######W", "VAT Reg. IE #######T"},
		regNos:   []string{"CRO No. ######"},
		phones:   []string{"+353 1 496 ####", "(021) 496 ####"},
		firsts:   []string{"Liffey", "Shannon", "Claddagh", "Corrib", "Ardmore", "Kilkenny"},
		suffixes: []string{"Ltd", "Limited", "DAC"}, tld: "ie",
	},
	"us": {
		name: "us", lang: "en", currencies: []string{"USD"}, us: true,
		nums: []numStyle{numEnglish}, places: []placement{placeSymbol, placeSymbol, placeSymbol, placeBare},
		dates:     []dateStyle{dateMDYSlash, dateMDYSlash, dateMDYShort, dateLongUS, dateShortUS},
		taxLabels: []taxLabel{fixedRate("Sales Tax (%s%%)"), fixedRate("Sales Tax %s%%"), fixedRate("Tax (%s%%)"), fixedRate("Sales Tax")},
		streets:   []string{"Commerce Street, Suite 300", "Main Street", "Elm Avenue", "Industrial Parkway", "Market Street, Floor 4", "W 5th Street", "Harbor Drive"},
		towns: []town{
			{line: "Dallas, TX 75201", bp: 825, region: "TX"}, {line: "Austin, TX 78701", bp: 825, region: "TX"},
			{line: "Portland, OR 97204", bp: 0, region: "OR"}, {line: "Denver, CO 80202", bp: 881, region: "CO"},
			{line: "Columbus, OH 43215", bp: 750, region: "OH"}, {line: "Raleigh, NC 27601", bp: 725, region: "NC"},
			{line: "Boston, MA 02110", bp: 625, region: "MA"}, {line: "Chicago, IL 60606", bp: 1025, region: "IL"},
			{line: "Seattle, WA 98104", bp: 1035, region: "WA"}, {line: "Brooklyn, NY 11201", bp: 888, region: "NY"},
			{line: "Phoenix, AZ 85004", bp: 860, region: "AZ"}, {line: "Nashville, TN 37203", bp: 925, region: "TN"},
		},
		country: "USA", taxIDs: []string{"EIN ##-#######"},
		phones:   []string{"(214) 555-####", "(503) 555-####", "(312) 555-####", "(617) 555-####"},
		firsts:   []string{"Summit Ridge", "Blue Heron", "Lakeshore", "Ironwood", "Granite State", "Pacific Crest", "Copperline", "Red Oak", "Liberty Bay", "Prairie Wind"},
		suffixes: []string{"Inc.", "LLC", "Co.", "Corp."}, tld: "com",
	},
	"ca": {
		name: "ca", lang: "en", currencies: []string{"CAD"},
		nums: []numStyle{numEnglish}, places: []placement{placeCodeBefore, placeSymbol, placeCodeAfter},
		dates:     []dateStyle{dateISO, dateLongUS, dateShortUS},
		taxLabels: nil, // per town: GST, HST, GST + PST
		streets:   []string{"King Street West", "Granville Street", "Rue Sainte-Catherine", "Barrington Street", "8th Avenue SW"},
		towns:     []town{{line: "Toronto, ON M5V 2T6", region: "ON"}, {line: "Vancouver, BC V6B 1A9", region: "BC"}, {line: "Calgary, AB T2P 1J9", region: "AB"}, {line: "Halifax, NS B3J 1S9", region: "NS"}, {line: "Ottawa, ON K1P 5G8", region: "ON"}},
		country:   "Canada", taxIDs: []string{"GST/HST No. ######### RT0001"},
		phones:   []string{"(416) 555-####", "(604) 555-####"},
		firsts:   []string{"Maple Leaf", "Northern Lights", "Laurentian", "Prairie Sky", "Cascadia", "Bluenose"},
		suffixes: []string{"Inc.", "Ltd.", "Corp."}, tld: "ca",
	},
	"au": {
		name: "au", lang: "en", currencies: []string{"AUD"},
		nums: []numStyle{numEnglish}, places: []placement{placeCodeBefore, placeSymbol, placeSymbol, placeCodeAfter},
		dates:     []dateStyle{dateDMYSlash, dateDMYSlash, dateLongUK, dateShortUK},
		taxLabels: []taxLabel{fixedRate("GST"), fixedRate("GST %s%%"), fixedRate("GST (%s%%)"), fixedRate("Total GST")}, taxRates: []int64{1000},
		streets: []string{"Collins Street, Level 5", "George Street", "Queen Street Mall", "Hay Street", "King William Street"},
		towns:   []town{{line: "Melbourne VIC 3000"}, {line: "Sydney NSW 2000"}, {line: "Brisbane QLD 4000"}, {line: "Perth WA 6000"}, {line: "Adelaide SA 5000"}},
		country: "Australia", taxIDs: []string{"ABN ## ### ### ###"},
		phones:   []string{"(03) 9555 ####", "(02) 9555 ####"},
		firsts:   []string{"Southern Cross", "Wattle", "Bondi", "Kookaburra", "Harbourside", "Red Gum"},
		suffixes: []string{"Pty Ltd", "Pty. Ltd."}, tld: "com.au",
	},
	"sg": {
		name: "sg", lang: "en", currencies: []string{"SGD"},
		nums: []numStyle{numEnglish}, places: []placement{placeCodeBefore, placeSymbol, placeCodeAfter},
		dates:     []dateStyle{dateDMYSlash, dateShortUK, dateLongUK},
		taxLabels: []taxLabel{fixedRate("GST %s%%"), fixedRate("GST @ %s%%"), fixedRate("GST")}, taxRates: []int64{900},
		streets: []string{"Raffles Place, #18-01", "Anson Road, #09-12", "Jurong East Street 21, #04-33"},
		towns:   []town{{line: "Singapore 048616"}, {line: "Singapore 079903"}, {line: "Singapore 609601"}},
		country: "Singapore", taxIDs: []string{"GST Reg No. 2019#####K", "UEN 2015#####D"},
		phones:   []string{"+65 6555 ####"},
		firsts:   []string{"Lion City", "Merlion", "Straits", "Orchid", "Marina Bay"},
		suffixes: []string{"Pte. Ltd.", "Pte Ltd"}, tld: "com.sg",
	},
	"de": {
		name: "de", lang: "de", currencies: []string{"EUR"},
		nums: []numStyle{numContinental}, places: []placement{placeSymbolAfter, placeCodeAfter, placeBare, placeSymbolSpace},
		dates: []dateStyle{dateDMYDot}, splitRates: true,
		taxLabels: []taxLabel{fixedRate("VAT %s%%"), fixedRate("VAT @ %s%%"), fixedRate("MwSt. %s%%"), fixedRate("MwSt %s%%"), fixedRate("plus %s%% VAT")}, taxRates: []int64{1900, 700},
		streets: []string{"Industriestraße", "Hauptstraße", "Bahnhofstraße", "Am Hafen", "Lindenweg", "Gutenbergring", "Friedrichstraße"},
		towns:   []town{{line: "70565 Stuttgart"}, {line: "80331 München"}, {line: "20095 Hamburg"}, {line: "50667 Köln"}, {line: "04109 Leipzig"}, {line: "90402 Nürnberg"}, {line: "60311 Frankfurt am Main"}},
		country: "Germany", taxIDs: []string{"VAT ID: DE#########", "USt-IdNr.: DE ### ### ###", "VAT Reg. No. DE#########"},
		regNos:   []string{"HRB #####, Amtsgericht Stuttgart", "Tax No. 99/###/#####"},
		phones:   []string{"+49 711 555 ####", "+49 89 555 ####", "040 555 ####"},
		firsts:   []string{"Kessler", "Müller & Söhne", "Hoffmann", "Brandt", "Weber", "Schäfer", "Lindner", "Vogel"},
		suffixes: []string{"GmbH", "GmbH & Co. KG", "AG", "KG"}, tld: "de",
	},
	"at": {
		name: "at", lang: "de", currencies: []string{"EUR"},
		nums: []numStyle{numContinental}, places: []placement{placeSymbolSpace, placeSymbolAfter, placeCodeAfter},
		dates: []dateStyle{dateDMYDot}, splitRates: true,
		taxLabels: []taxLabel{fixedRate("VAT %s%%"), fixedRate("MwSt. %s%%"), fixedRate("plus %s%% VAT")}, taxRates: []int64{2000, 1000},
		streets: []string{"Mariahilfer Straße", "Herrengasse", "Landstraße", "Annenstraße"},
		towns:   []town{{line: "1010 Wien"}, {line: "8010 Graz"}, {line: "4020 Linz"}, {line: "5020 Salzburg"}},
		country: "Austria", taxIDs: []string{"UID: ATU########", "VAT No. ATU########"},
		phones:   []string{"+43 1 555 ####"},
		firsts:   []string{"Gruber", "Huber", "Pichler", "Steiner", "Wimmer"},
		suffixes: []string{"GmbH", "KG", "e.U."}, tld: "at",
	},
	"fr": {
		name: "fr", lang: "fr", currencies: []string{"EUR"},
		nums: []numStyle{numSpaced}, places: []placement{placeSymbolAfter, placeSymbolAfter, placeCodeAfter},
		dates:     []dateStyle{dateDMYSlash, dateLongUK},
		taxLabels: euTax, taxRates: []int64{2000, 2000, 1000, 550},
		streets: []string{"rue de la République", "avenue Jean Jaurès", "boulevard Haussmann", "rue Nationale", "quai des Chartrons"},
		towns:   []town{{line: "69002 Lyon"}, {line: "75011 Paris"}, {line: "33000 Bordeaux"}, {line: "59000 Lille"}, {line: "44000 Nantes"}},
		country: "France", taxIDs: []string{"VAT No.: FR 40 #########", "VAT: FR###########"},
		regNos:   []string{"SIRET ### ### ### 00012", "RCS Lyon ### ### ###"},
		phones:   []string{"+33 4 78 55 ## ##", "01 45 55 ## ##"},
		firsts:   []string{"Atelier Dubois", "Lefèvre", "Moreau", "Garnier", "Rousseau", "Fontaine"},
		suffixes: []string{"SARL", "SAS", "SA"}, tld: "fr",
	},
	"nl": {
		name: "nl", lang: "nl", currencies: []string{"EUR"},
		nums: []numStyle{numContinental}, places: []placement{placeSymbolSpace, placeSymbolSpace, placeCodeBefore},
		dates:     []dateStyle{dateDMYSlash, dateLongUK, dateISO},
		taxLabels: euTax, taxRates: []int64{2100, 2100, 900},
		streets: []string{"Keizersgracht", "Oudegracht", "Coolsingel", "Stationsplein", "Industrieweg"},
		towns:   []town{{line: "1016 DV Amsterdam"}, {line: "3511 LX Utrecht"}, {line: "3011 AD Rotterdam"}, {line: "5611 AZ Eindhoven"}},
		country: "The Netherlands", taxIDs: []string{"VAT: NL#########B01", "BTW-nr NL#########B01"},
		regNos:   []string{"KvK ########", "Chamber of Commerce ########"},
		phones:   []string{"+31 20 555 ####", "030 555 ####"},
		firsts:   []string{"Van der Berg", "De Vries", "Bakker", "Janssen", "Visser", "Smit"},
		suffixes: []string{"B.V.", "BV"}, tld: "nl",
	},
	"se": {
		name: "se", lang: "sv", currencies: []string{"SEK"},
		nums: []numStyle{numSpaced}, places: []placement{placeSymbolAfter, placeCodeAfter, placeCodeAfter},
		dates:     []dateStyle{dateISO},
		taxLabels: []taxLabel{fixedRate("VAT %s%%"), fixedRate("VAT (%s%%)"), fixedRate("Moms %s%%")}, taxRates: []int64{2500, 2500, 1200},
		streets: []string{"Kungsgatan", "Drottninggatan", "Storgatan", "Vasagatan", "Hamngatan"},
		towns:   []town{{line: "111 35 Stockholm"}, {line: "411 06 Göteborg"}, {line: "211 20 Malmö"}, {line: "753 20 Uppsala"}},
		country: "Sweden", taxIDs: []string{"VAT No. SE##########01", "Momsreg.nr SE##########01"},
		regNos:   []string{"Org.nr 556###-####", "Reg. no. 559###-####"},
		phones:   []string{"+46 8 555 ## ##", "08-555 ## ##"},
		firsts:   []string{"Nordvik", "Lindqvist", "Bergström", "Ekholm", "Sjöberg", "Åkesson"},
		suffixes: []string{"AB"}, tld: "se",
	},
	"ch": {
		name: "ch", lang: "de", currencies: []string{"CHF"},
		nums: []numStyle{numEnglish, numPlain}, places: []placement{placeCodeBefore, placeCodeBefore, placeCodeAfter},
		dates:     []dateStyle{dateDMYDot},
		taxLabels: []taxLabel{fixedRate("VAT %s%%"), fixedRate("MWST %s%%"), fixedRate("VAT @ %s%%")}, taxRates: []int64{810, 810, 260},
		streets: []string{"Bahnhofstrasse", "Seestrasse", "Marktgasse", "Aeschenvorstadt", "Pilatusstrasse"},
		towns:   []town{{line: "8001 Zürich"}, {line: "4051 Basel"}, {line: "3011 Bern"}, {line: "6003 Luzern"}, {line: "8400 Winterthur"}},
		country: "Switzerland", taxIDs: []string{"VAT No. CHE-###.###.### MWST", "UID CHE-###.###.###"},
		phones:   []string{"+41 44 555 ## ##", "061 555 ## ##"},
		firsts:   []string{"Alpenblick", "Rheintal", "Zürichsee", "Bergmann", "Steiner", "Helvetia"},
		suffixes: []string{"AG", "GmbH", "SA"}, tld: "ch",
	},
	"dk": {
		name: "dk", lang: "en", currencies: []string{"DKK"},
		nums: []numStyle{numContinental}, places: []placement{placeCodeAfter, placeSymbolAfter, placeCodeBefore},
		dates:     []dateStyle{dateDMYDot},
		taxLabels: []taxLabel{fixedRate("VAT %s%%"), fixedRate("VAT (%s%%)"), fixedRate("Moms %s%%")}, taxRates: []int64{2500},
		streets: []string{"Vesterbrogade", "Strøget", "Nørregade", "Havnegade"},
		towns:   []town{{line: "1620 København V"}, {line: "8000 Aarhus C"}, {line: "5000 Odense C"}},
		country: "Denmark", taxIDs: []string{"CVR ########", "VAT No. DK########"},
		phones:   []string{"+45 33 55 ## ##"},
		firsts:   []string{"Nordlys", "Havbryg", "Jensen & Holm", "Skovgaard"},
		suffixes: []string{"ApS", "A/S"}, tld: "dk",
	},
	"pl": {
		name: "pl", lang: "en", currencies: []string{"PLN"},
		nums: []numStyle{numSpaced}, places: []placement{placeSymbolAfter, placeCodeAfter},
		dates:     []dateStyle{dateDMYDot, dateISO},
		taxLabels: []taxLabel{fixedRate("VAT %s%%"), fixedRate("VAT (%s%%)")}, taxRates: []int64{2300, 2300, 800},
		streets: []string{"ul. Marszałkowska", "ul. Floriańska", "ul. Świdnicka", "ul. Piotrkowska"},
		towns:   []town{{line: "00-624 Warszawa"}, {line: "31-019 Kraków"}, {line: "50-068 Wrocław"}, {line: "90-001 Łódź"}},
		country: "Poland", taxIDs: []string{"NIP ###-###-##-##", "VAT ID: PL##########"},
		phones:   []string{"+48 22 555 ## ##"},
		firsts:   []string{"Kowalski", "Nowak", "Wiśniewski", "Zielińska", "Baltic"},
		suffixes: []string{"Sp. z o.o.", "S.A."}, tld: "pl",
	},
	"jp": {
		name: "jp", lang: "ja", currencies: []string{"JPY"},
		nums: []numStyle{numEnglish}, places: []placement{placeSymbol, placeSymbol, placeCodeAfter, placeBare},
		dates: []dateStyle{dateISO, dateYMDSlash, dateLongUS}, splitRates: true,
		taxLabels: []taxLabel{fixedRate("Consumption Tax (%s%%)"), fixedRate("Consumption tax %s%%"), fixedRate("Tax (%s%%)"), fixedRate("Tax %s%%")}, taxRates: []int64{1000, 800},
		streets: []string{"2-14-3 Shibuya, Shibuya-ku", "1-8-1 Umeda, Kita-ku", "3-6-1 Minatomirai, Nishi-ku", "4-1-1 Sakae, Naka-ku", "1-1-2 Otemachi, Chiyoda-ku"},
		towns:   []town{{line: "Tokyo 150-0002"}, {line: "Osaka 530-0001"}, {line: "Yokohama 220-0012"}, {line: "Nagoya 460-0008"}, {line: "Tokyo 100-0004"}},
		country: "Japan", taxIDs: []string{"Registration No. T#############", "Invoice Registration No.: T#############"},
		phones:   []string{"+81 3-5555-####", "03-5555-####", "06-5555-####"},
		firsts:   []string{"Sakura", "Fujimoto", "Hinode", "Aozora", "Midori", "Kawaguchi"},
		suffixes: []string{"Co., Ltd.", "K.K.", "Inc."}, tld: "co.jp",
	},
	"bh": {
		name: "bh", lang: "en", currencies: []string{"BHD"},
		nums: []numStyle{numEnglish}, places: []placement{placeSymbol, placeCodeBefore, placeCodeBefore, placeBare},
		dates:     []dateStyle{dateDMYSlash, dateDMonY, dateLongUK},
		taxLabels: []taxLabel{fixedRate("VAT %s%%"), fixedRate("VAT @ %s%%"), fixedRate("VAT (%s%%)")}, taxRates: []int64{1000},
		streets: []string{"Building 1021, Road 3618, Block 436", "Flat 22, Building 145, Road 1702, Block 317", "Shop 4, Building 2290, Road 2832, Block 428"},
		towns:   []town{{line: "Manama"}, {line: "Seef District"}, {line: "Muharraq"}, {line: "Sitra"}},
		country: "Kingdom of Bahrain", taxIDs: []string{"VAT Account No. 2000###########", "VAT Reg. No. 2###############"},
		regNos:   []string{"CR No. #####-1"},
		phones:   []string{"+973 1755 ####", "+973 1729 ####"},
		firsts:   []string{"Gulf Marine", "Al-Mansour", "Dilmun", "Seef", "Al Zayani", "Awali"},
		suffixes: []string{"W.L.L.", "B.S.C. (c)", "Co. W.L.L."}, tld: "com.bh",
	},
	"kw": {
		name: "kw", lang: "en", currencies: []string{"KWD"},
		nums: []numStyle{numEnglish}, places: []placement{placeSymbol, placeCodeBefore, placeCodeAfter},
		dates:     []dateStyle{dateDMYSlash, dateDMonY, dateLongUK},
		taxLabels: []taxLabel{fixedRate("Tax")}, taxRates: []int64{0},
		streets: []string{"Al Hamra Tower, Floor 32, Sharq", "Salem Al Mubarak Street, Block 3", "Street 28, Plot 12, Shuwaikh Industrial", "Fahad Al Salem Street"},
		towns:   []town{{line: "Kuwait City"}, {line: "Salmiya"}, {line: "Shuwaikh"}, {line: "Hawalli"}},
		country: "Kuwait", regNos: []string{"CR No. ######", "Commercial Registration ######"},
		phones:   []string{"+965 2245 ####", "+965 2299 ####"},
		firsts:   []string{"Al-Ahmadi", "Boubyan", "Failaka", "Sharq", "Al Hamra", "Gulf Star"},
		suffixes: []string{"General Trading & Contracting Co. W.L.L.", "Co. W.L.L.", "K.S.C.C."}, tld: "com.kw",
	},
}

// layoutLocales says which countries write each layout.
var layoutLocales = map[string][]*locale{
	LayoutVendorBlock: loc("uk", "uk", "us", "ie", "au", "jp", "bh", "kw", "sg", "ca"),
	LayoutTwoColumn:   loc("uk", "us", "ie", "au", "bh", "kw", "jp", "ca", "sg"),
	LayoutLabelRow:    loc("de", "uk", "jp", "bh", "se", "ch", "nl", "us"),
	LayoutMarkdown:    loc("uk", "us", "ie", "au", "de", "jp", "nl", "sg"),
	LayoutEmail:       loc("uk", "us", "ie", "au", "de", "ca", "jp", "se"),
	LayoutContinental: loc("de", "de", "at", "fr", "nl", "se", "ch", "dk", "pl"),
	LayoutNumbered:    loc("uk", "us", "de", "ie", "se", "jp", "bh", "ch", "fr"),
	LayoutBullets:     loc("us", "uk", "au", "ca", "ie", "jp", "kw", "de"),
	LayoutUSSalesTax:  loc("us"),
	LayoutBoxed:       loc("uk", "de", "jp", "bh", "kw", "ch", "se", "ie", "pl"),
}

func loc(names ...string) []*locale {
	out := make([]*locale, len(names))
	for i, n := range names {
		out[i] = locales[n]
	}
	return out
}

var (
	customerNames = map[string][]string{
		"en": {"Ashford Dental Practice", "Northgate Housing Association", "Riverside Veterinary Clinic", "Greenfield Primary School", "The Old Mill Hotel", "Westbrook Motors", "Kite & Key Locksmiths", "Bluebell Nurseries", "Hartley & Cole Solicitors", "Crescent Pharmacy", "Pinewood Golf Club", "Sunrise Care Homes"},
		"de": {"Bäckerei Schmidt KG", "Autohaus Becker GmbH", "Praxis Dr. Wagner", "Hotel Zur Linde", "Stadtwerke Beispielstadt", "Schreinerei Koch"},
		"fr": {"Boulangerie Martin", "Cabinet Durand", "Hôtel du Parc", "Garage Petit SARL"},
		"nl": {"Bakkerij De Molen", "Tandartspraktijk Mulder", "Hotel Het Anker", "Garage Dekker"},
		"sv": {"Café Kanelbullen AB", "Tandläkarna i Söder", "Hotell Sjöutsikt", "Bilverkstaden Nord"},
		"ja": {"Tanaka Trading Co., Ltd.", "Hoshino Clinic", "Yamamoto Bakery", "Kobayashi Design Office"},
	}
	firstNames = []string{"Sam", "Priya", "Luis", "Dana", "Tom", "Aisha", "Mark", "Hannah", "Jo", "Omar", "Claire", "Kenji", "Ingrid", "Fatima", "Pieter", "Sophie"}
	lastNames  = []string{"Carter", "Patel", "Okafor", "Whitfield", "Nakamura", "Schmidt", "Al-Sayed", "Lindqvist", "O'Brien", "Dubois", "Kowalski", "Moreau", "Jansen", "Evans"}
)

// vendor draws a supplier of the locale in the industry.
func (l *locale) vendor(r *rand.Rand, ind industry) party {
	var name string
	switch {
	case l.lang == "en" && chance(r, 12):
		// A sole trader: a person's name and a trade, no legal form.
		name = fmt.Sprintf("%s %s %s", pick(r, firstNames), pick(r, lastNames), ind.trade(r, "en"))
	case chance(r, 15):
		name = fmt.Sprintf("%s %s", pick(r, l.firsts), pick(r, l.suffixes))
	default:
		name = fmt.Sprintf("%s %s %s", pick(r, l.firsts), ind.trade(r, l.lang), pick(r, l.suffixes))
	}
	p := l.party(r, name)
	if len(l.taxIDs) > 0 {
		p.taxID = digits(r, pick(r, l.taxIDs))
	}
	if len(l.regNos) > 0 && chance(r, 50) {
		p.regNo = digits(r, pick(r, l.regNos))
	}
	return p
}

// customer draws a customer of the locale.
func (l *locale) customer(r *rand.Rand) party {
	names, ok := customerNames[l.lang]
	if !ok || chance(r, 25) {
		names = customerNames["en"]
	}
	return l.party(r, pick(r, names))
}

func (l *locale) party(r *rand.Rand, name string) party {
	p := party{name: name, contact: pick(r, firstNames) + " " + pick(r, lastNames)}
	t := pick(r, l.towns)
	street := pick(r, l.streets)
	switch l.name {
	case "us", "ca", "au", "uk", "ie":
		street = fmt.Sprintf("%d %s", between(r, 1, 2400), street)
	case "de", "at", "se", "ch", "nl", "dk", "pl":
		street = fmt.Sprintf("%s %d", street, between(r, 1, 140))
	case "fr":
		street = fmt.Sprintf("%d %s", between(r, 1, 120), street)
	}
	p.address = []string{street, t.line}
	if l.name == "uk" && chance(r, 30) {
		p.address = []string{fmt.Sprintf("Unit %d, %s Business Park", between(r, 1, 30), pick(r, []string{"Riverside", "Meadowbank", "Kingsway", "Lakeside"})), street, t.line}
	}
	if chance(r, 50) {
		p.address = append(p.address, l.country)
	}
	p.phone = digits(r, pick(r, l.phones))
	p.domain = domainOf(name, l.tld)
	p.email = pick(r, []string{"accounts", "billing", "invoices", "info", "finance"}) + "@" + p.domain
	p.web = "www." + p.domain
	return p
}

// townOf returns the town a party's address names (for the tax of US and
// Canadian suppliers).
func (l *locale) townOf(p party) town {
	for _, line := range p.address {
		for _, t := range l.towns {
			if t.line == line {
				return t
			}
		}
	}
	return l.towns[0]
}

// digits fills every '#' of pattern with a random digit.
func digits(r *rand.Rand, pattern string) string {
	b := []byte(pattern)
	for i, c := range b {
		if c == '#' {
			b[i] = byte('0' + r.IntN(10))
		}
	}
	return string(b)
}

var transliteration = strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "ß", "ss", "å", "a", "é", "e", "è", "e", "ø", "o", "ł", "l", "ś", "s", "ń", "n", "ó", "o", "&", "-")

// domainOf makes a plausible web domain from a company name.
func domainOf(name, tld string) string {
	var b strings.Builder
	for _, w := range strings.Fields(transliteration.Replace(strings.ToLower(name))) {
		if b.Len() > 12 {
			break
		}
		for _, c := range w {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
				b.WriteRune(c)
			}
		}
	}
	return b.String() + "." + tld
}
