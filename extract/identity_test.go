package extract

import (
	"testing"

	"github.com/stretchr/testify/require"
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
