package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

func TestRules_ProseItems_LeadingCountIsTheQuantity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sentence string
		want     []extract.LineItem
	}{
		{"It covers 3 design concepts at ¥45,000 each (¥135,000) and one revision round at ¥30,000.",
			[]extract.LineItem{{Description: "design concepts", Quantity: "3", UnitPrice: "45000", Amount: "135000"}, {Description: "revision round", Quantity: "1", UnitPrice: "30000", Amount: "30000"}}},
		{"This is for two site visits at ¥60,000 and twelve photographs at ¥3,750 each.",
			[]extract.LineItem{{Description: "site visits", Quantity: "2", UnitPrice: "60000", Amount: "120000"}, {Description: "photographs", Quantity: "12", UnitPrice: "3750", Amount: "45000"}}},
		{"It includes 9.5 hours of consulting at ¥12,000 per hour (¥114,000) and a 3x workshop at ¥17,000.",
			[]extract.LineItem{{Description: "consulting", Quantity: "9.5", UnitPrice: "12000", Amount: "114000"}, {Description: "workshop", Quantity: "3", UnitPrice: "17000", Amount: "51000"}}},
		// The stated amount says the price is for the lot.
		{"It covers 500 flyers at ¥90,000 (¥90,000) and Eleven banners at ¥5,000 each.",
			[]extract.LineItem{{Description: "500 flyers", Quantity: "1", UnitPrice: "90000", Amount: "90000"}, {Description: "banners", Quantity: "11", UnitPrice: "5000", Amount: "55000"}}},
		// The count inside the item's words, when the stated amount says so.
		{"It is for translating 4,200 words at ¥12 per word (¥50,400) and proofreading of 3 pages at ¥2,500 each (¥7,500).",
			[]extract.LineItem{{Description: "translating 4,200 words", Quantity: "4200", UnitPrice: "12", Amount: "50400"}, {Description: "proofreading of 3 pages", Quantity: "3", UnitPrice: "2500", Amount: "7500"}}},
		// A colon introduces the items.
		{"For the Rossi wedding: the full-day shoot at ¥180,000, and 40 printed photos at ¥350 each (¥14,000).",
			[]extract.LineItem{{Description: "full-day shoot", Quantity: "1", UnitPrice: "180000", Amount: "180000"}, {Description: "printed photos", Quantity: "40", UnitPrice: "350", Amount: "14000"}}},
		// A year opening an item is no count.
		{"It covers 2026 membership at ¥70,000 and ten badges at ¥7,500.",
			[]extract.LineItem{{Description: "2026 membership", Quantity: "1", UnitPrice: "70000", Amount: "70000"}, {Description: "badges", Quantity: "10", UnitPrice: "7500", Amount: "75000"}}},
	}
	for _, tt := range tests {
		var amounts []string
		for _, l := range tt.want {
			amounts = append(amounts, l.Amount)
		}
		total, ok := extract.AddDecimals(amounts)
		require.True(t, ok)
		doc := "From: Kobayashi Design Studio <billing@kobayashi.example>\nSubject: Invoice KD-7\n\n" +
			"Please find our invoice KD-7 dated 28 February 2026.\n" + tt.sentence + "\nTotal amount due ¥" + total + ".\n"
		inv, err := run(t, doc)
		require.NoError(t, err, tt.sentence)
		require.Equal(t, tt.want, inv.LineItems, tt.sentence)
		require.Equal(t, total, inv.Total, tt.sentence)
	}
}

func TestRules_ProseItems_CountThatDoesNotAddUp_IsALineMismatch(t *testing.T) {
	t.Parallel()
	doc := "From: Kobayashi Design Studio <billing@kobayashi.example>\nSubject: Invoice KD-8\n\n" +
		"Please find our invoice KD-8 dated 28 February 2026.\n" +
		"It covers 3 design concepts at ¥45,000 each (¥125,000) and one revision round at ¥30,000.\n" +
		"Total amount due ¥155,000.\n"
	_, err := run(t, doc)
	require.Equal(t, extract.ReasonLineMismatch, reasonOf(t, err))
}

func TestRules_ProseTaxes_TwoRatesAndABareWholeAmount(t *testing.T) {
	t.Parallel()
	doc := "From: Midori Printing <accounts@midori.example>\nSubject: Midori Printing: invoice INV-77\nTo: Sam <sam@client.example>\n\n" +
		"This is our invoice no. INV-77 dated 14 July 2026.\n\n" +
		"  - Design hours: 9 x 8,000 = 72,000\n  - Letterheads: 62 x 100 = 6,200\n\n" +
		"The subtotal is 78,200, plus Tax (10%) of 7,200, plus Tax (8%) of 496.\nAmount due: 85,896.\n(All figures in JPY.)\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "7696", inv.Tax)
	require.Equal(t, "85896", inv.Total)
}

func TestRules_ProseItems_NotItems(t *testing.T) {
	t.Parallel()
	for _, sentence := range []string{
		"Note: the deposit at ¥50,000 was received with thanks.",
		"Sent: Mon, 30 Nov 2026 at 10:12, and it covers the work at our studio.",
	} {
		doc := "From: Kobayashi Design Studio <billing@kobayashi.example>\nSubject: Invoice KD-9\n\n" +
			"Please find our invoice KD-9 dated 28 February 2026.\n" + sentence + "\nTotal amount due ¥165,000.\n"
		x := extractText(t, doc)
		require.Empty(t, x.LineItems, sentence)
		require.Equal(t, "165000", x.Total, sentence)
	}
}

func TestRules_ProseItems_ANumberWrappedToTheLineStartIsNoListItem(t *testing.T) {
	t.Parallel()
	doc := "From: \"Red Gum Pty. Ltd.\" <invoices@redgum.example>\nTo: Aisha <aisha@client.example>\nSubject: Your invoice 2502587\n\n" +
		"Here is invoice 2502587, dated 29 November 2025.\n\n" +
		"This covers 50 x safety gloves at $9.90 each ($495.00), 10 x hex bolts M8x40 (box of\n" +
		"100) at $26.50 each ($265.00) and the cordless drill 18V at $196.00.\n\nTotal Due: $956.00\nAll amounts are in AUD.\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Len(t, inv.LineItems, 3)
	require.Equal(t, "hex bolts M8x40 (box of 100)", inv.LineItems[1].Description)
	require.Equal(t, "10", inv.LineItems[1].Quantity)
}

func TestRules_ProseTotals_ADecimalCommaRateBeforeTheAmount(t *testing.T) {
	t.Parallel()
	doc := "From: Vogel AG <invoices@vogelag.example>\nTo: Priya <priya@client.example>\nSubject: Invoice 88834\n\n" +
		"Please find below our invoice 88834, dated 14.02.2024.\n\n" +
		"This covers the vinyl window lettering at 1.416,69.\n\n" +
		"That comes to 1.416,69, less discount (2,5%) (35,42), plus MwSt 19% of\n262,44, so the total due is 1.643,71.\nAll amounts are in EUR.\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, []extract.Charge{{Kind: "discount", Amount: "-35.42"}}, inv.Charges)
	require.Equal(t, "1643.71", inv.Total)
}

func TestRules_ProseTotals_TaxAtARateOfABase(t *testing.T) {
	t.Parallel()
	doc := "From: \"Kenji Jansen Engineering\" <accounts@kje.example>\nTo: Fatima <fatima@client.example>\nSubject: Invoice INV-2026-0866\n\n" +
		"Please find below our invoice INV-2026-0866, dated 2 September 2026.\n\n" +
		"This covers 4 x cordless drill 18V at €245.80 each (€983.20).\n\n" +
		"That comes to €983.20, plus shipping of €12.00, plus VAT at 23% of\n€228.90, so the total due is €1,224.10.\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "228.90", inv.Tax)
	require.Equal(t, "1224.10", inv.Total)
}

func TestRules_ProseTotals_AmountBeforeInTotalAndVATInBrackets(t *testing.T) {
	t.Parallel()
	doc := "From: Chris Moore <chris@mooredesign.example>\nTo: jo@client.example\nSubject: Invoice CM-204\n\n" +
		"This is invoice CM-204, dated 30 November 2026. I've billed 3 days at £450.00 per day (£1,350.00)\n" +
		"for the drawings. The fee is £1,350.00 plus VAT (£270.00), so £1,620.00 in total.\n\nCheers,\nChris\nMoore Design Ltd\n"
	inv, err := run(t, doc)
	require.NoError(t, err)
	require.Equal(t, "270.00", inv.Tax)
	require.Equal(t, "1620.00", inv.Total)
	require.Equal(t, []extract.LineItem{{Description: "days", Quantity: "3", UnitPrice: "450.00", Amount: "1350.00"}}, inv.LineItems)
}
