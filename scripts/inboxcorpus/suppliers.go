package main

import "time"

// party is an issuer or a customer. Every name here is made up for this
// corpus; the VAT ids and IBANs have the right form and check digits and
// belong to nobody we know of.
type party struct {
	Name, Street, Zip, City, Country string
	VATID, IBAN, BIC, Email, Phone   string
}

// product is a catalogue line of a supplier.
type product struct {
	Desc  string
	Cents int64 // unit price, net
	Unit  string
}

// supplier is one issuer and its layout: the template (tool) and the
// language it prints in. Its documents share the name, ids and IBAN and
// differ in number, date, customer and lines.
type supplier struct {
	Key      string // the truth's supplier key
	Tool     string // the folder testdata/real/rendered-<tool>
	Lang     string
	Country  string
	Currency string // ISO 4217
	Symbol   string // as the template prints it
	VATBP    int64  // VAT rate in basis points (1900 = 19%)
	DueDays  int    // 0: the template prints no due date
	Seller   party
	Buyers   []party
	Catalog  []product
	// Number formats the document number from the year and a sequence.
	Number func(year, seq int) string
	First  int       // the first sequence number
	Start  time.Time // the first document's date
	Every  int       // days between documents
	// Plan is the kinds of the documents in order: "invoice",
	// "creditNote" (positive amounts, names an earlier invoice),
	// "corrective" (a negative correction of an earlier invoice),
	// "reprint" (the last original document printed again through another
	// PDF writer), "rerender" (rendered again), "facturx" (made a Factur-X
	// hybrid) and "cii" (that hybrid's XML alone).
	Plan []string
	// DateLayout, when set, replaces the language's date form (a US
	// supplier writes month/day/year).
	DateLayout string
	// TaxFloor: the template truncates the tax to the cent instead of
	// rounding it (invoice-maker).
	TaxFloor bool
}

func day(y, m, d int) time.Time { return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC) }

func fmtNum(f string) func(int, int) string {
	return func(y, s int) string { return sprintf(f, y, s) }
}

var suppliers = []supplier{
	// go-invoice-generator (github.com/angelodlfrtr/go-invoice-generator)
	{Key: "holzwerk-brandt-de", Tool: "go-invoice-generator", Lang: "de", Country: "DE", Currency: "EUR", Symbol: "€ ", VATBP: 1900, DueDays: 14,
		Seller: party{Name: "Holzwerk Brandt GmbH", Street: "Sägewerkstraße 12", Zip: "34117", City: "Kassel", Country: "Deutschland",
			VATID: "DE318204577", IBAN: iban("DE", "520500000012345678"), BIC: "HELADEF1KAS", Email: "buchhaltung@holzwerk-brandt.example", Phone: "+49 561 7730 0"},
		Buyers: []party{
			{Name: "Innenausbau Keller KG", Street: "Wilhelmshöher Allee 240", Zip: "34119", City: "Kassel", Country: "Deutschland", VATID: "DE276118340"},
			{Name: "Möbelhaus Reinhardt GmbH", Street: "Frankfurter Straße 88", Zip: "35392", City: "Gießen", Country: "Deutschland", VATID: "DE199403215"},
			{Name: "Treppenbau Vogt e.K.", Street: "Am Steinweg 3", Zip: "37073", City: "Göttingen", Country: "Deutschland"},
		},
		Catalog: []product{{"Eichenbohle 40 mm, gehobelt", 8950, "m²"}, {"Leimholzplatte Buche 26 mm", 6420, "m²"}, {"Zuschnitt nach Maß", 4500, "Std."},
			{"Kantenumleimer Eiche", 215, "lfm"}, {"Lieferung und Anfahrt", 6500, "psch."}, {"Fichte KVH 60x120", 1180, "lfm"}},
		Number: fmtNum("RE-%d-%04d"), First: 311, Start: day(2024, 1, 15), Every: 38,
		Plan: []string{"invoice", "invoice", "reprint", "invoice", "creditNote", "invoice"}},
	{Key: "atelier-lumiere-fr", Tool: "go-invoice-generator", Lang: "fr", Country: "FR", Currency: "EUR", Symbol: "€ ", VATBP: 2000, DueDays: 30,
		Seller: party{Name: "Atelier Lumière SARL", Street: "14 rue des Verriers", Zip: "69002", City: "Lyon", Country: "France",
			VATID: "FR47812345674", IBAN: iban("FR", "30004008280001234567842"), BIC: "BNPAFRPPLYO", Email: "compta@atelier-lumiere.example", Phone: "+33 4 78 00 12 34"},
		Buyers: []party{
			{Name: "Hôtel des Célestins SAS", Street: "4 place des Célestins", Zip: "69002", City: "Lyon", Country: "France", VATID: "FR21504123987"},
			{Name: "Galerie Moreau", Street: "27 quai Saint-Antoine", Zip: "69002", City: "Lyon", Country: "France", VATID: "FR63441298760"},
			{Name: "Restaurant Le Bouchon Doré", Street: "9 rue Mercière", Zip: "69002", City: "Lyon", Country: "France"},
		},
		Catalog: []product{{"Suspension laiton 3 bras", 48900, "u"}, {"Applique murale opaline", 15600, "u"}, {"Pose et raccordement", 6200, "h"},
			{"Abat-jour lin sur mesure", 8950, "u"}, {"Restauration lustre cristal", 32000, "forfait"}, {"Ampoule LED filament E27", 1290, "u"}},
		Number: fmtNum("F%d-%03d"), First: 87, Start: day(2024, 2, 5), Every: 41,
		Plan: []string{"invoice", "invoice", "invoice", "creditNote", "invoice", "facturx", "cii"}},
	{Key: "tipografia-bellini-it", Tool: "go-invoice-generator", Lang: "it", Country: "IT", Currency: "EUR", Symbol: "€ ", VATBP: 2200, DueDays: 30,
		Seller: party{Name: "Tipografia Bellini S.r.l.", Street: "Via dei Tipografi 21", Zip: "40125", City: "Bologna", Country: "Italia",
			VATID: "IT02841570379", IBAN: iban("IT", "X0306902480100000012345"), BIC: "BCITITMM", Email: "amministrazione@tipografiabellini.example", Phone: "+39 051 640 1122"},
		Buyers: []party{
			{Name: "Libreria Marchetti S.n.c.", Street: "Strada Maggiore 14", Zip: "40125", City: "Bologna", Country: "Italia", VATID: "IT01938470371"},
			{Name: "Studio Associato Gallo", Street: "Via Indipendenza 55", Zip: "40121", City: "Bologna", Country: "Italia", VATID: "IT03318950373"},
			{Name: "Cantina Valsamoggia S.p.A.", Street: "Via Bazzanese 71", Zip: "40053", City: "Valsamoggia", Country: "Italia", VATID: "IT00912450377"},
		},
		Catalog: []product{{"Biglietti da visita 350 g, 500 pz", 4800, "conf."}, {"Brochure A4 pieghevole, 1000 pz", 38500, "conf."}, {"Carta intestata 100 g", 9600, "risma"},
			{"Progetto grafico", 5500, "ora"}, {"Etichette adesive vino", 21000, "lotto"}, {"Spedizione corriere", 1500, "sped."}},
		Number: fmtNum("%d/FE/%03d"), First: 142, Start: day(2024, 3, 4), Every: 33,
		Plan: []string{"invoice", "invoice", "invoice", "creditNote", "invoice"}},
	{Key: "ferreteria-ortega-es", Tool: "go-invoice-generator", Lang: "es", Country: "ES", Currency: "EUR", Symbol: "€ ", VATBP: 2100, DueDays: 30,
		Seller: party{Name: "Ferretería Ortega S.L.", Street: "Calle del Hierro 8", Zip: "46001", City: "Valencia", Country: "España",
			VATID: "ESB46123456", IBAN: iban("ES", "21000418450200051332"), BIC: "CAIXESBBXXX", Email: "facturas@ferreteria-ortega.example", Phone: "+34 963 51 22 10"},
		Buyers: []party{
			{Name: "Reformas Levante S.L.", Street: "Avenida del Puerto 120", Zip: "46023", City: "Valencia", Country: "España", VATID: "ESB97334210"},
			{Name: "Construcciones Albufera S.A.", Street: "Calle Colón 44", Zip: "46004", City: "Valencia", Country: "España", VATID: "ESA46098113"},
		},
		Catalog: []product{{"Tornillo rosca madera 4x40 (caja 200)", 690, "caja"}, {"Taladro percutor 800 W", 8990, "ud"}, {"Cinta métrica 5 m", 750, "ud"},
			{"Silicona neutra blanca", 420, "ud"}, {"Escalera aluminio 7 peldaños", 11900, "ud"}, {"Guantes de trabajo (par)", 290, "par"}},
		Number: fmtNum("A-%d-%05d"), First: 1208, Start: day(2024, 4, 10), Every: 29,
		Plan: []string{"invoice", "invoice", "invoice", "invoice"}},
	{Key: "pennant-cloud-gb", Tool: "go-invoice-generator", Lang: "en", Country: "GB", Currency: "GBP", Symbol: "£", VATBP: 2000, DueDays: 30,
		Seller: party{Name: "Pennant Cloud Ltd", Street: "3 Canal Wharf", Zip: "LS11 5PS", City: "Leeds", Country: "United Kingdom",
			VATID: "GB284619073", IBAN: iban("GB", "BUKB20201555555555"), BIC: "BUKBGB22", Email: "billing@pennantcloud.example", Phone: "+44 113 496 0321"},
		Buyers: []party{
			{Name: "Harrogate Print Works Ltd", Street: "12 Station Parade", Zip: "HG1 1TS", City: "Harrogate", Country: "United Kingdom", VATID: "GB190443812"},
			{Name: "Aire Valley Logistics plc", Street: "Unit 4, Riverside Park", Zip: "BD17 7DB", City: "Shipley", Country: "United Kingdom", VATID: "GB377120954"},
		},
		Catalog: []product{{"Managed VPS, 4 vCPU / 8 GB (monthly)", 4800, "month"}, {"Block storage 500 GB", 2250, "month"}, {"Daily off-site backup", 1200, "month"},
			{"Support hours (standard)", 7500, "hour"}, {"TLS certificate, 1 year", 3900, "each"}},
		Number: fmtNum("PC-%d-%05d"), First: 4410, Start: day(2024, 1, 31), Every: 30,
		Plan: []string{"invoice", "invoice", "creditNote", "invoice", "invoice"}},

	// invoice-maker (github.com/ad-si/invoice-maker, a Typst template)
	{Key: "studio-kranich-de", Tool: "invoice-maker", Lang: "de", Country: "DE", Currency: "EUR", Symbol: "€", VATBP: 1900, DueDays: 14, TaxFloor: true,
		Seller: party{Name: "Studio Kranich", Street: "Lindenstraße 7", Zip: "04109", City: "Leipzig", Country: "Deutschland",
			VATID: "DE301774219", IBAN: iban("DE", "860555920012345678")},
		Buyers: []party{
			{Name: "Verlag Sonnenberg GmbH", Street: "Karl-Liebknecht-Str. 45", Zip: "04275", City: "Leipzig", VATID: "DE812409661"},
			{Name: "Stadtwerke Grimma GmbH", Street: "Leipziger Straße 3", Zip: "04668", City: "Grimma", VATID: "DE141200583"},
			{Name: "Kaffeerösterei Auerbach", Street: "Grimmaische Straße 2", Zip: "04109", City: "Leipzig", VATID: "DE287730142"},
		},
		Catalog: []product{{"Konzeption Corporate Design", 95000, ""}, {"Logo-Reinzeichnung", 42000, ""}, {"Fotografie Produktbilder", 6500, ""},
			{"Layout Jahresbericht, je Seite", 8500, ""}, {"Korrekturschleife", 12000, ""}, {"Druckdatenaufbereitung", 18000, ""}},
		Number: fmtNum("%d-%03d"), First: 41, Start: day(2024, 2, 12), Every: 36,
		Plan: []string{"invoice", "invoice", "invoice", "creditNote", "invoice"}},
	{Key: "brightline-consulting-gb", Tool: "invoice-maker", Lang: "en", Country: "GB", Currency: "GBP", Symbol: "£", VATBP: 2000, DueDays: 21, TaxFloor: true,
		Seller: party{Name: "Brightline Consulting Ltd", Street: "18 Clerkenwell Close", Zip: "EC1R 0AA", City: "London", Country: "GB",
			VATID: "GB402337418", IBAN: iban("GB", "NWBK60161331926819")},
		Buyers: []party{
			{Name: "Thameside Housing Association", Street: "2 Riverside Walk", Zip: "SE1 9PP", City: "London", VATID: "GB118220431"},
			{Name: "Kestrel Foods Ltd", Street: "Unit 9, Mill Lane", Zip: "RG1 8HF", City: "Reading", VATID: "GB309174225"},
		},
		Catalog: []product{{"Process review workshop (day rate)", 95000, ""}, {"Data migration planning", 62500, ""}, {"Stakeholder interviews", 45000, ""},
			{"Written recommendations report", 120000, ""}, {"Travel and subsistence", 13750, ""}},
		Number: fmtNum("BL-%d-%03d"), First: 18, Start: day(2024, 3, 1), Every: 45,
		Plan: []string{"invoice", "invoice", "invoice", "invoice"}},
	{Key: "atelier-verdier-fr", Tool: "invoice-maker", Lang: "fr", Country: "FR", Currency: "EUR", Symbol: "€", VATBP: 2000, DueDays: 30, TaxFloor: true,
		Seller: party{Name: "Atelier Verdier", Street: "6 rue de la Charité", Zip: "13002", City: "Marseille", Country: "FR",
			VATID: "FR83504918276", IBAN: iban("FR", "20041010080123456789012")},
		Buyers: []party{
			{Name: "Théâtre du Panier", Street: "11 rue du Refuge", Zip: "13002", City: "Marseille", VATID: "FR40398112745"},
			{Name: "Musée des Docks", Street: "10 place de la Joliette", Zip: "13002", City: "Marseille", VATID: "FR12433098155"},
		},
		Catalog: []product{{"Création de décor (jour)", 52000, ""}, {"Peinture trompe-l'œil", 78000, ""}, {"Location d'échafaudage", 14500, ""},
			{"Transport et montage", 23000, ""}, {"Fournitures (toiles, pigments)", 9650, ""}},
		Number: fmtNum("AV-%d-%02d"), First: 9, Start: day(2024, 1, 22), Every: 50,
		Plan: []string{"invoice", "invoice", "invoice", "invoice"}},
	{Key: "vertaalbureau-de-boer-nl", Tool: "invoice-maker", Lang: "nl", Country: "NL", Currency: "EUR", Symbol: "€", VATBP: 2100, DueDays: 30, TaxFloor: true,
		Seller: party{Name: "Vertaalbureau De Boer", Street: "Oudegracht 112", Zip: "3511 AX", City: "Utrecht", Country: "NL",
			VATID: "NL861234567B01", IBAN: iban("NL", "RABO0312345678")},
		Buyers: []party{
			{Name: "Hoogendijk Advocaten", Street: "Maliebaan 50", Zip: "3581 CS", City: "Utrecht", VATID: "NL812700451B01"},
			{Name: "Fietsfabriek Veenstra B.V.", Street: "Industrieweg 14", Zip: "8441 PK", City: "Heerenveen", VATID: "NL003320841B01"},
		},
		Catalog: []product{{"Vertaling Duits-Nederlands (per 100 woorden)", 1250, ""}, {"Beëdigde vertaling akte", 6500, ""}, {"Revisie en eindredactie", 5500, ""},
			{"Spoedtoeslag", 4000, ""}, {"Terminologielijst", 15000, ""}},
		Number: fmtNum("%d.%04d"), First: 230, Start: day(2024, 2, 20), Every: 40,
		Plan: []string{"invoice", "invoice", "creditNote", "invoice"}},
	{Key: "pracownia-lis-pl", Tool: "invoice-maker", Lang: "pl", Country: "PL", Currency: "PLN", Symbol: "zł", VATBP: 2300, DueDays: 14, TaxFloor: true,
		Seller: party{Name: "Pracownia Projektowa Lis", Street: "ul. Długa 17", Zip: "31-146", City: "Kraków", Country: "PL",
			VATID: "PL6762401128", IBAN: iban("PL", "109010140000071219812874")},
		Buyers: []party{
			{Name: "Zakład Stolarski Wójcik Sp. z o.o.", Street: "ul. Przemysłowa 4", Zip: "30-701", City: "Kraków", VATID: "PL6793112045"},
			{Name: "Biuro Rachunkowe Nowicka", Street: "ul. Karmelicka 30", Zip: "31-128", City: "Kraków", VATID: "PL6772208891"},
		},
		Catalog: []product{{"Projekt wnętrza biura", 450000, ""}, {"Wizualizacja 3D", 80000, ""}, {"Nadzór autorski (wizyta)", 35000, ""},
			{"Dokumentacja wykonawcza", 220000, ""}, {"Konsultacja", 25000, ""}},
		Number: fmtNum("FV/%d/%03d"), First: 57, Start: day(2024, 3, 11), Every: 31,
		Plan: []string{"invoice", "invoice", "invoice", "creditNote"}},

	// microinvoice (npm microinvoice, PDFKit)
	{Key: "installatie-van-dijk-nl", Tool: "microinvoice", Lang: "nl", Country: "NL", Currency: "EUR", VATBP: 2100, DueDays: 14,
		Seller: party{Name: "Van Dijk Installatietechniek B.V.", Street: "Schieweg 93", Zip: "3038 AK", City: "Rotterdam", Country: "Nederland",
			VATID: "NL859021374B01", IBAN: iban("NL", "INGB0006543210"), Email: "facturen@vandijk-installatie.example", Phone: "+31 10 466 2090"},
		Buyers: []party{
			{Name: "VvE Blijdorp Park", Street: "Stadhoudersweg 201", Zip: "3039 CK", City: "Rotterdam", Country: "Nederland"},
			{Name: "Bakkerij Verhoeven", Street: "Noordmolenstraat 12", Zip: "3035 RJ", City: "Rotterdam", Country: "Nederland", VATID: "NL004418223B01"},
			{Name: "Tandartspraktijk Kralingen", Street: "Oudedijk 77", Zip: "3061 AC", City: "Rotterdam", Country: "Nederland", VATID: "NL822134098B01"},
		},
		Catalog: []product{{"CV-ketel onderhoudsbeurt", 11900, ""}, {"Thermostaatkraan vervangen", 4850, ""}, {"Arbeid monteur (uur)", 6250, ""},
			{"Voorrijkosten", 3500, ""}, {"Expansievat 18 liter", 7990, ""}, {"Lekdetectie leidingwerk", 16500, ""}},
		Number: fmtNum("VD%d-%04d"), First: 1502, Start: day(2024, 1, 9), Every: 34,
		Plan: []string{"invoice", "invoice", "rerender", "invoice", "creditNote", "invoice"}},
	{Key: "hurtownia-zielinski-pl", Tool: "microinvoice", Lang: "pl", Country: "PL", Currency: "PLN", VATBP: 2300, DueDays: 14,
		Seller: party{Name: "Hurtownia Elektryczna Zieliński Sp. z o.o.", Street: "ul. Kolejowa 45", Zip: "60-717", City: "Poznań", Country: "Polska",
			VATID: "PL7792134560", IBAN: iban("PL", "114020040000330201234567"), Email: "faktury@zielinski-hurtownia.example", Phone: "+48 61 852 44 10"},
		Buyers: []party{
			{Name: "Elektro-Serwis Kamiński", Street: "ul. Głogowska 112", Zip: "60-244", City: "Poznań", Country: "Polska", VATID: "PL7781420990"},
			{Name: "Budimex Wielkopolska Sp. z o.o.", Street: "ul. Składowa 3", Zip: "61-897", City: "Poznań", Country: "Polska", VATID: "PL7822309915"},
		},
		Catalog: []product{{"Przewód YDY 3x2,5 (krążek 100 m)", 38900, ""}, {"Gniazdo podwójne z uziemieniem", 1890, ""}, {"Wyłącznik nadprądowy B16", 1450, ""},
			{"Rozdzielnica natynkowa 24 moduły", 15900, ""}, {"Oprawa LED 36 W", 8900, ""}, {"Puszka instalacyjna fi 60", 120, ""}},
		Number: fmtNum("FV %d/%04d"), First: 812, Start: day(2024, 2, 2), Every: 27,
		Plan: []string{"invoice", "invoice", "invoice", "corrective", "invoice"}},
	{Key: "harborview-analytics-us", Tool: "microinvoice", Lang: "en", Country: "US", DateLayout: "01/02/2006", Currency: "USD", VATBP: 0, DueDays: 30,
		Seller: party{Name: "Harborview Analytics Inc.", Street: "410 Pier Avenue, Suite 300", Zip: "WA 98121", City: "Seattle", Country: "USA",
			VATID: "EIN 91-4438120", Email: "ar@harborview-analytics.example", Phone: "+1 206 555 0142"},
		Buyers: []party{
			{Name: "Cascade Outdoor Supply Co.", Street: "1200 Industrial Way", Zip: "OR 97217", City: "Portland", Country: "USA"},
			{Name: "Puget Sound Credit Union", Street: "88 Harbor Street", Zip: "WA 98402", City: "Tacoma", Country: "USA"},
		},
		Catalog: []product{{"Analytics platform subscription (monthly)", 149000, ""}, {"Dashboard development (hours)", 16500, ""}, {"Data warehouse storage, per TB", 4200, ""},
			{"Onboarding workshop", 250000, ""}, {"Priority support add-on", 39900, ""}},
		Number: fmtNum("HV-%d-%04d"), First: 3051, Start: day(2024, 1, 31), Every: 30,
		Plan: []string{"invoice", "invoice", "invoice", "invoice"}},
	{Key: "distribuciones-navarro-es", Tool: "microinvoice", Lang: "es", Country: "ES", Currency: "EUR", VATBP: 2100, DueDays: 30,
		Seller: party{Name: "Distribuciones Navarro S.L.", Street: "Polígono Cogullada, nave 14", Zip: "50014", City: "Zaragoza", Country: "España",
			VATID: "ESB50334122", IBAN: iban("ES", "20852020110330012345"), Email: "administracion@dnavarro.example", Phone: "+34 976 47 30 11"},
		Buyers: []party{
			{Name: "Supermercados Ebro S.A.", Street: "Avenida de Cataluña 300", Zip: "50014", City: "Zaragoza", Country: "España", VATID: "ESA50012993"},
			{Name: "Bar Restaurante El Tubo", Street: "Calle Estébanes 6", Zip: "50003", City: "Zaragoza", Country: "España", VATID: "ESB99221043"},
		},
		Catalog: []product{{"Aceite de oliva virgen extra 5 l", 3450, ""}, {"Agua mineral 1,5 l (pack 6)", 285, ""}, {"Café en grano 1 kg", 1690, ""},
			{"Servilletas 30x30 (caja 2400)", 2190, ""}, {"Transporte y entrega", 2500, ""}},
		Number: fmtNum("%d-FV-%05d"), First: 20411, Start: day(2024, 3, 5), Every: 26,
		Plan: []string{"invoice", "invoice", "invoice", "corrective", "invoice"}},

	// jspdf-invoice-template-nodejs (npm, jsPDF)
	{Key: "elektro-huber-at", Tool: "jspdf-invoice-template", Lang: "de", Country: "AT", Currency: "EUR", Symbol: "€", VATBP: 2000, DueDays: 14,
		Seller: party{Name: "Elektro Huber GmbH", Street: "Wiener Straße 41", Zip: "4020", City: "Linz", Country: "Österreich",
			VATID: "ATU68421937", IBAN: iban("AT", "2011182221219800"), Email: "office@elektro-huber.example", Phone: "+43 732 77 81 20"},
		Buyers: []party{
			{Name: "Hausverwaltung Pichler", Street: "Landstraße 12", Zip: "4020", City: "Linz", Country: "Österreich", VATID: "ATU53390128"},
			{Name: "Gasthof Zur Post", Street: "Marktplatz 5", Zip: "4210", City: "Gallneukirchen", Country: "Österreich", VATID: "ATU29981134"},
		},
		Catalog: []product{{"Elektriker Arbeitsstunde", 6800, "Std."}, {"FI-Schutzschalter 40A", 4390, "Stk."}, {"Steckdose Schuko weiß", 879, "Stk."},
			{"NYM-J 3x1,5 Kabel", 129, "m"}, {"E-Befund Überprüfung", 18500, "psch."}, {"Fahrtpauschale", 3500, "psch."}},
		Number: fmtNum("%d-%05d"), First: 10233, Start: day(2024, 2, 14), Every: 31,
		Plan: []string{"invoice", "invoice", "corrective", "invoice", "invoice"}},
	{Key: "forniture-rossi-it", Tool: "jspdf-invoice-template", Lang: "it", Country: "IT", Currency: "EUR", Symbol: "€", VATBP: 2200, DueDays: 30,
		Seller: party{Name: "Forniture Rossi S.r.l.", Street: "Corso Vercelli 118", Zip: "10155", City: "Torino", Country: "Italia",
			VATID: "IT09128440016", IBAN: iban("IT", "R0200801046000101234567"), Email: "fatture@fornitura-rossi.example", Phone: "+39 011 248 7700"},
		Buyers: []party{
			{Name: "Ufficio Tecnico Conti", Street: "Via Roma 220", Zip: "10121", City: "Torino", Country: "Italia", VATID: "IT07761230014"},
			{Name: "Scuola di Danza Aurora", Street: "Via Nizza 45", Zip: "10125", City: "Torino", Country: "Italia", VATID: "IT10032980011"},
		},
		Catalog: []product{{"Carta A4 80 g (5 risme)", 2190, "conf."}, {"Toner laser nero", 6450, "pz"}, {"Sedia ergonomica da ufficio", 18900, "pz"},
			{"Raccoglitori ad anelli (10 pz)", 1280, "conf."}, {"Consegna al piano", 1800, "sped."}},
		Number: fmtNum("%d/%04d"), First: 388, Start: day(2024, 1, 18), Every: 37,
		Plan: []string{"invoice", "invoice", "invoice", "invoice"}},
	{Key: "bluepeak-logistics-us", Tool: "jspdf-invoice-template", Lang: "en", Country: "US", DateLayout: "01/02/2006", Currency: "USD", Symbol: "$", VATBP: 0, DueDays: 30,
		Seller: party{Name: "BluePeak Logistics LLC", Street: "2250 Commerce Blvd", Zip: "CO 80216", City: "Denver", Country: "USA",
			Email: "billing@bluepeak-logistics.example", Phone: "(303) 555-0187"},
		Buyers: []party{
			{Name: "Front Range Brewing Co.", Street: "75 Walnut Street", Zip: "CO 80302", City: "Boulder", Country: "USA"},
			{Name: "Mile High Hardware Inc.", Street: "901 Federal Blvd", Zip: "CO 80204", City: "Denver", Country: "USA"},
		},
		Catalog: []product{{"LTL freight Denver - Boulder", 42500, "load"}, {"Pallet storage (per pallet, monthly)", 1850, "pallet"}, {"Liftgate service", 7500, "stop"},
			{"Fuel surcharge", 3820, "load"}, {"Cross-dock handling", 12000, "load"}},
		Number: fmtNum("BPL-%d%04d"), First: 7702, Start: day(2024, 2, 29), Every: 28,
		Plan: []string{"invoice", "invoice", "reprint", "invoice", "invoice"}},
	{Key: "menuiserie-girard-fr", Tool: "jspdf-invoice-template", Lang: "fr", Country: "FR", Currency: "EUR", Symbol: "€", VATBP: 1000, DueDays: 30,
		Seller: party{Name: "Menuiserie Girard", Street: "22 route de Vannes", Zip: "44100", City: "Nantes", Country: "France",
			VATID: "FR29433871205", IBAN: iban("FR", "14445004000801234567891"), Email: "contact@menuiserie-girard.example", Phone: "02 40 12 34 56"},
		Buyers: []party{
			{Name: "SCI Les Tilleuls", Street: "5 allée des Tilleuls", Zip: "44300", City: "Nantes", Country: "France"},
			{Name: "Crèche Les Petits Loups", Street: "18 rue de Rennes", Zip: "44000", City: "Nantes", Country: "France", VATID: "FR55812099334"},
		},
		Catalog: []product{{"Fenêtre bois double vitrage", 68000, "u"}, {"Porte intérieure chêne", 42000, "u"}, {"Pose menuiserie", 5200, "h"},
			{"Placard sur mesure", 129000, "u"}, {"Dépose et évacuation", 15000, "forfait"}},
		Number: fmtNum("MG%d-%03d"), First: 64, Start: day(2024, 4, 2), Every: 43,
		Plan: []string{"invoice", "invoice", "invoice", "invoice"}},

	// @h1dd3nsn1p3r/pdf-invoice (npm, pdfmake)
	{Key: "kelpie-hosting-au", Tool: "pdf-invoice", Lang: "en", Country: "AU", Currency: "AUD", VATBP: 1000, DueDays: 14,
		Seller: party{Name: "Kelpie Hosting Pty Ltd", Street: "Level 2, 45 Flinders Lane", Zip: "VIC 3000", City: "Melbourne", Country: "Australia",
			VATID: "ABN 51 824 753 556", Email: "accounts@kelpiehosting.example", Phone: "+61 3 9012 3456"},
		Buyers: []party{
			{Name: "Southbank Physio Clinic", Street: "12 City Road", Zip: "VIC 3006", City: "Southbank", Country: "Australia"},
			{Name: "Yarra Valley Wines Pty Ltd", Street: "300 Maroondah Hwy", Zip: "VIC 3775", City: "Yarra Glen", Country: "Australia"},
		},
		Catalog: []product{{"Managed WordPress hosting", 4900, ""}, {"Domain renewal .com.au", 2995, ""}, {"Business email, 10 mailboxes", 3000, ""},
			{"Website migration", 25000, ""}, {"Malware clean-up", 18000, ""}},
		Number: fmtNum("KH%d%05d"), First: 2201, Start: day(2024, 1, 3), Every: 31,
		Plan: []string{"invoice", "invoice", "invoice", "reprint", "invoice"}},
	{Key: "drukkerij-jansen-nl", Tool: "pdf-invoice", Lang: "nl", Country: "NL", Currency: "EUR", VATBP: 2100, DueDays: 30,
		Seller: party{Name: "Drukkerij Jansen B.V.", Street: "Papierweg 8", Zip: "6827 BN", City: "Arnhem", Country: "Nederland",
			VATID: "NL818234009B01", IBAN: iban("NL", "ABNA0417164300"), Email: "administratie@drukkerij-jansen.example", Phone: "026 384 20 00"},
		Buyers: []party{
			{Name: "Gemeentelijk Museum Arnhem", Street: "Utrechtseweg 87", Zip: "6812 AA", City: "Arnhem", Country: "Nederland"},
			{Name: "Sportvereniging Vitesse Jeugd", Street: "Batavierenweg 25", Zip: "6815 AS", City: "Arnhem", Country: "Nederland"},
		},
		Catalog: []product{{"Flyers A5, 2500 stuks", 18900, ""}, {"Posters A2, 100 stuks", 24500, ""}, {"Visitekaartjes, 1000 stuks", 5900, ""},
			{"Opmaak en drukproef", 7500, ""}, {"Bezorging", 2500, ""}},
		Number: fmtNum("%d%05d"), First: 10712, Start: day(2024, 2, 7), Every: 35,
		Plan: []string{"invoice", "invoice", "creditNote", "invoice"}},
	{Key: "imprenta-soler-es", Tool: "pdf-invoice", Lang: "es", Country: "ES", Currency: "EUR", VATBP: 2100, DueDays: 30,
		Seller: party{Name: "Imprenta Soler S.L.", Street: "Carrer de Sants 140", Zip: "08028", City: "Barcelona", Country: "España",
			VATID: "ESB08765432", IBAN: iban("ES", "00810200250001234567"), Email: "factures@imprentasoler.example", Phone: "+34 933 31 22 40"},
		Buyers: []party{
			{Name: "Editorial Mediterrània S.L.", Street: "Carrer de Balmes 77", Zip: "08007", City: "Barcelona", Country: "España", VATID: "ESB61234987"},
			{Name: "Fundació Gaudí Jove", Street: "Passeig de Gràcia 12", Zip: "08007", City: "Barcelona", Country: "España", VATID: "ESG08112233"},
		},
		Catalog: []product{{"Libro rústica 200 pág., 500 ej.", 185000, ""}, {"Carteles A3, 200 ud.", 16000, ""}, {"Encuadernación wire-o", 4500, ""},
			{"Maquetación", 35000, ""}, {"Envío", 1800, ""}},
		Number: fmtNum("S%d-%04d"), First: 931, Start: day(2024, 3, 18), Every: 30,
		Plan: []string{"invoice", "invoice", "invoice", "invoice"}},
	{Key: "gartenbau-seidel-de", Tool: "pdf-invoice", Lang: "de", Country: "DE", Currency: "EUR", VATBP: 1900, DueDays: 14,
		Seller: party{Name: "Gartenbau Seidel GmbH", Street: "Am Anger 9", Zip: "99084", City: "Erfurt", Country: "Deutschland",
			VATID: "DE274455102", IBAN: iban("DE", "820510000163012345"), Email: "rechnung@gartenbau-seidel.example", Phone: "0361 55 20 10"},
		Buyers: []party{
			{Name: "Wohnungsgenossenschaft Erfurt eG", Street: "Juri-Gagarin-Ring 150", Zip: "99084", City: "Erfurt", Country: "Deutschland", VATID: "DE150231119"},
			{Name: "Hotel am Domplatz GmbH", Street: "Domplatz 1", Zip: "99084", City: "Erfurt", Country: "Deutschland", VATID: "DE812211346"},
		},
		Catalog: []product{{"Heckenschnitt (Std.)", 5200, ""}, {"Rasenmähen inkl. Entsorgung", 8500, ""}, {"Pflanzung Bodendecker (m²)", 2400, ""},
			{"Grünschnittentsorgung (m³)", 3800, ""}, {"Baumpflege Hubsteiger", 24000, ""}},
		Number: fmtNum("GS-%d-%04d"), First: 502, Start: day(2024, 4, 8), Every: 28,
		Plan: []string{"invoice", "invoice", "invoice", "invoice"}},
}
