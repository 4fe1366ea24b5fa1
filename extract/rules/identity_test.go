package rules

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

func TestRules_Vendor_ASectionHeadingIsNoCompany(t *testing.T) {
	t.Parallel()
	doc := "# Shannon Digital DAC\n91 Harcourt Street, Dublin 2\n\n## Invoice\n\n- **Invoice #:** TK-5863\n- **Date:** 9 Jul 2026\n\n" +
		"### Services\n\n| Service | Qty | Each | Amount |\n|---|--:|--:|--:|\n| Firewall configuration | 2 | €100.00 | €200.00 |\n\n**Amount Due:** €200.00\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "Shannon Digital DAC", inv.Vendor)
}

func TestHasCompanySuffix_TheWordAloneIsNoName(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{"Services": false, "Design": false, "Studio": false,
		"Brightline Studio": true, "Shannon Digital DAC": true, "Acme Ltd": true, "Shannon Digital": false,
		"Facilitation & workshop design": false, "Kvetná Print s.r.o.": true, "SOFTHAUS SP. Z O.O.": true,
		"Institut für angewandte Forschung GmbH": true, "Studio 4": false, "Studio Nord GmbH": true,
		"This covers 1.6 kg of steel sheet 2mm": false, "Müller GmbH & Co. KG": true,
		"Synthetic Vendor 01 Ltd": true} {
		require.Equal(t, want, hasCompanySuffix(s), s)
	}
}

func TestCleanVendor_TheAddressAfterTheNameIsCut(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Visser BV, Industrieweg 135, Eindhoven":                     "Visser BV",
		"Kawaguchi Co., Ltd., 1-1-2 Otemachi, Chiyoda-ku, Osaka":     "Kawaguchi Co., Ltd.",
		"Brandt & Söhne, Inh. K. Brandt, Hauptstr. 5, 80331 München": "Brandt & Söhne, Inh. K. Brandt",
		"Acme Inc., Springfield":                                     "Acme Inc.",
		"Lena Fischer Übersetzungen, Leipzig":                        "Lena Fischer Übersetzungen",
		"Smith, Jones & Partners":                                    "Smith, Jones & Partners",
	} {
		require.Equal(t, want, cleanVendor(in), in)
	}
}

func TestRules_Vendor_AGreetingSentenceIsNoName(t *testing.T) {
	t.Parallel()
	doc := "Hi Jo,\n\nShort one — here is the invoice for the October retouching work.\n\n" +
		"Invoice 2026-31 | Nils Berg Retouch | 3 Nov 2026\n- 12 x retouched images @ €15.00 = €180.00\nTotal: €180.00\n\nThanks!\nNils\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "Nils Berg Retouch", inv.Vendor)
	require.Equal(t, "2026-31", inv.InvoiceNumber)
}

func TestSentenceShaped_NamesWithALegalFormAreNot(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"Short one — here is the invoice for the October retouching work.": true,
		"Pacific Crest Print & Design Co.":                                 false,
		"Al Zayani Tools & Fixings Trading Co. W.L.L.":                     false,
		"Harbour & Finch Office Supplies Ltd.":                             false,
	} {
		require.Equal(t, want, sentenceShaped(s), s)
	}
}

// The company-name expressions as first written, the reference of the
// patterns built from their word lists.
var (
	legalFormRef = regexp.MustCompile(`(?i)(?:^|[\s,])(?:ltd|limited|llc|l\.l\.c|inc|incorporated|corp|corporation|co|company|gmbh|ag|kg|ohg|ug|se|sa|s\.a|sas|sarl|s\.r\.l|srl|spa|s\.p\.a|bv|b\.v|nv|n\.v|plc|llp|lp|pty|pte|oy|ab|a/s|aps|kk|k\.k|w\.l\.l|wll|s\.l|e\.k|e\.u|gbr|dac|sp\. z o\.o|s\.r\.o|a\.s|kft|zrt|d\.o\.o|gmbh & co\. kg|oü|as|asa|uab|sia)\.?(?:$|[\s,)])`)
	tradeWordRef = regexp.MustCompile(`(?i)(?:^|[\s,])(?:group|holdings|partners|associates|studio|consulting|services|solutions|trading|traders|industries|enterprises|labs|systems|supplies|supply|agency|design|media)\.?(?:$|[\s,)])`)
)

// afterFirstWordRef is afterFirstWord without the prefilter.
func afterFirstWordRef(re *regexp.Regexp, s string) bool {
	s = strings.TrimSpace(s)
	for _, m := range re.FindAllStringIndex(s, -1) {
		if m[0] > 0 && !unitAfterNumber(s, m) {
			return true
		}
	}
	return false
}

func TestAfterFirstWord_AgreesWithTheRegexpAlone(t *testing.T) {
	t.Parallel()
	require.Equal(t, legalFormRef.String(), legalFormRe.re.String())
	require.Equal(t, tradeWordRef.String(), tradeWordRe.re.String())
	pieces := []string{" ", ",", ".", ")", "(", "\t", "\n", "\v", "Acme", "1.6", "kg", "KG", "Ltd", "ltd.", "co", "Co.",
		"Studio", "design", "sp. z o.o", "GmbH & Co. KG", "a/s", "S.A", "x", "é", "ſa", "\u212a\u212a", "gmbh",
		"company", "corp", "Corporation", "co.", "ltd)", "s.a.", "supplies", "supply", "l.l.c.", "inc,"}
	r := rand.New(rand.NewPCG(13, 14))
	for range 30000 {
		s := randomText(r, pieces, 1+r.IntN(7))
		require.Equal(t, afterFirstWordRef(legalFormRef, s), afterFirstWord(legalFormRe, s), "%q", s)
		require.Equal(t, afterFirstWordRef(tradeWordRef, s), afterFirstWord(tradeWordRe, s), "%q", s)
		require.Equal(t, legalFormRef.MatchString(s), legalFormRe.MatchString(s), "%q", s)
		if isASCII(s) {
			for _, c := range []struct {
				ref *regexp.Regexp
				np  *namePattern
			}{{legalFormRef, legalFormRe}, {tradeWordRef, tradeWordRe}} {
				var got [][]int
				for _, m := range c.np.appendMatches(nil, s) {
					got = append(got, []int{m[0], m[1]})
				}
				require.Equal(t, c.ref.FindAllStringIndex(s, -1), got, "%q", s)
			}
		}
	}
}

func FuzzNamePattern_FindsTheRegexpMatches(f *testing.F) {
	for _, s := range []string{"Acme Ltd", "Acme Co. Ltd.", ",co", "Studio 4, 22 Canal Street", "Brightline Studio",
		"1.6 kg of steel", "X GmbH & Co. KG)", "a company co", "Foo  Inc,Bar"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !isASCII(s) {
			return // the expressions run themselves on other text
		}
		for _, c := range []struct {
			ref *regexp.Regexp
			np  *namePattern
		}{{legalFormRef, legalFormRe}, {tradeWordRef, tradeWordRe}} {
			var got [][]int
			for _, m := range c.np.appendMatches(nil, s) {
				got = append(got, []int{m[0], m[1]})
			}
			require.Equal(t, c.ref.FindAllStringIndex(s, -1), got, "%q", s)
		}
		require.Equal(t, afterFirstWordRef(legalFormRef, s), afterFirstWord(legalFormRe, s), "%q", s)
	})
}

func TestRules_InvoiceNumber_ABareNumberLabelBelowTheTitle(t *testing.T) {
	t.Parallel()
	doc := "                                   Factura\n" +
		"                                   Original        Pagina 1 de 1\n" +
		" Empresa de Prueba S.A.\n" +
		"                                   Nº: 4000-12345678\n" +
		"                                   Fecha:     27/03/2011\n" +
		"IVA:  PJ54482221-l     Remito Nº: 77\n\n" +
		"Descripción                 Importe\nServicio de consultoría      100,00 ARS\n\n" +
		"                 Subtotal:  100,00 ARS\n                 IVA 21%     21,00 ARS\n                 Total:     121,00 ARS\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "4000-12345678", inv.InvoiceNumber)

	// A bare "Nº" far from the title, or inside a longer label, is not the number.
	for _, far := range []string{
		strings.Replace(doc, "Nº: 4000-12345678", "", 1),
		strings.Replace(doc, "Nº: 4000-12345678", "Remito Nº: 4000-12345678", 1),
	} {
		_, err := run(t, far)
		require.Equal(t, extract.FieldReason(extract.ReasonMissingField, "invoiceNumber"), reasonOf(t, err))
	}
}

func TestRules_InvoiceNumber_MarkedNumbersAndAReferenceUnderTheTitle(t *testing.T) {
	t.Parallel()
	body := "\n  Pos.  Description                        Prices in EUR\n  1     The first service provided              320,00\n\n" +
		"                                  Subtotal:    320,00\n                                   VAT 20%:     64,00\n                                     Total:    384,00\n"
	// "#" before a number that reads like a date makes it the number.
	inv, err := run(t, "Max Mustermann • Musterstraße 37 • 12345 Musterstadt\nErika Mustermann\n\nInvoice #2015-11-04\n"+body)
	require.NoError(t, err)
	require.Equal(t, "2015-11-04", inv.InvoiceNumber)
	// Without the sign it is a date, not a number.
	_, err = run(t, "Max Mustermann • Musterstraße 37 • 12345 Musterstadt\nErika Mustermann\n\nInvoice 2015-11-04\n"+body)
	require.Equal(t, "missing_field:invoiceNumber", reasonOf(t, err))
	// "Reference:" right under the invoice title names the invoice.
	inv, err = run(t, "My Company SARL\n4 rue des Fleurs, 75000 Paris\n\nINVOICE\nReference:        MG202200000\nDate: 20/08/2022\n"+body)
	require.NoError(t, err)
	require.Equal(t, "MG202200000", inv.InvoiceNumber)
}

func TestRules_InvoiceNumber_ANumberLabelOverADateLikeNumber(t *testing.T) {
	t.Parallel()
	tail := "\n\nSprzedawca\nNazwa: ABC Developex S.A.\n\nData wystawienia: 2023-11-30\n\n" +
		"Razem netto                                     1 000,00 PLN\nVAT 23%                                           230,00 PLN\nDo zapłaty                                      1 230,00 PLN\n"
	inv, err := run(t, "Krajowy System e-Faktur                                  Numer faktury\n                                                         2/11/2023\n                                                       Faktura podstawowa"+tail)
	require.NoError(t, err)
	require.Equal(t, "2/11/2023", inv.InvoiceNumber)
	// Under a bare title word the same value is a date, not a number.
	_, err = run(t, "FAKTURA\n2/11/2023"+tail)
	require.Equal(t, "missing_field:invoiceNumber", reasonOf(t, err))
}

func TestRules_InvoiceNumber_AsPrintedWhereTheLayoutEndsIt(t *testing.T) {
	t.Parallel()
	tail := "\nData wystawienia: 2021-04-26\nSprzedawca: Test Sp. z o.o.\n\nRazem brutto:  148,83 PLN\n"
	for doc, want := range map[string]string{
		"Faktura nr FV 1/2021" + tail:                             "FV 1/2021",
		"Faktura\nNumer faktury:\nFV 2024/0815\n" + tail:          "FV 2024/0815",
		"Faktura\nNumer faktury:   FV 2024/0815   \n" + tail:      "FV 2024/0815",
		"Faktura\nNumer faktury: 2024/0815 z dnia 01.02\n" + tail: "2024/0815",
		"Faktura\nNumer faktury: 0000 0001\n" + tail:              "0000",
	} {
		x := extractText(t, doc)
		require.Equal(t, want, x.InvoiceNumber, doc)
	}
	require.Empty(t, printedCellNumber("EUR 1234"), "a currency is no series")
	require.Equal(t, "RE 2024-117", printedCellNumber("RE 2024-117"))
	require.Empty(t, printedCellNumber("FV 2024/0815 z dnia"), "the number ends where the cell does, and the cell goes on")
}

func TestRules_ALabelAndItsValueBesideAValueAreNoDescription(t *testing.T) {
	t.Parallel()
	doc := "Faktura nr FV 1/2021\nData wystawienia: 2021-04-26\nSprzedawca: Test Sp. z o.o.\n\n" +
		"  Stawka VAT   Wartość netto  Kwota VAT    Wartość brutto                          Zapłacono               0,00 PLN\n" +
		"     23%             121,00          27,83        148,83                           Do zapłaty            148,83 PLN\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "121.00", inv.Subtotal)
	require.Equal(t, "27.83", inv.Tax)
	require.Equal(t, "148.83", inv.Total)
}
