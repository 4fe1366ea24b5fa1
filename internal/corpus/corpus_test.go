package corpus_test

import (
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/corpus"
)

// The size make eval generates by default.
const evalSize = 500

func generate(t *testing.T, seed int64, n int) []corpus.Document {
	t.Helper()
	docs, err := corpus.Generate(seed, n)
	require.NoError(t, err)
	require.Len(t, docs, n)
	return docs
}

func TestGenerate_SameSeed_SameDocuments(t *testing.T) {
	t.Parallel()
	a := generate(t, 7, 300)
	b := generate(t, 7, 300)
	require.Equal(t, a, b)
}

func TestGenerate_OtherSeed_OtherDocuments(t *testing.T) {
	t.Parallel()
	a := generate(t, 7, 100)
	b := generate(t, 8, 100)
	same := 0
	for i := range a {
		if a[i].Text == b[i].Text {
			same++
		}
	}
	// Only documents with no content of their own (empty, whitespace) may
	// coincide.
	require.Less(t, same, 10)
}

func TestGenerate_NegativeCount_Fails(t *testing.T) {
	t.Parallel()
	docs, err := corpus.Generate(1, -1)
	require.ErrorIs(t, err, corpus.ErrInvalidCount)
	require.Nil(t, docs)
}

func TestGenerate_ZeroCount_NoDocuments(t *testing.T) {
	t.Parallel()
	require.Empty(t, generate(t, 1, 0))
}

func TestGenerate_IDsAreUniqueAndSayNothingOfTheContent(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, d := range generate(t, 3, evalSize) {
		require.False(t, seen[d.ID], "duplicate ID %s", d.ID)
		seen[d.ID] = true
		require.Regexp(t, `^gen-3-\d{4}$`, d.ID)
	}
}

func TestGenerate_EveryTruthIsConsistent(t *testing.T) {
	t.Parallel()
	for _, seed := range []int64{1, 2, 3, 42, 2026} {
		for _, d := range generate(t, seed, evalSize) {
			require.NoError(t, d.Truth.Check(), "%s (%s)", d.ID, d.Layout)
		}
	}
}

func TestGenerate_MinimumSize_CoversEveryLayoutKindAndReason(t *testing.T) {
	t.Parallel()
	layouts, kinds, reasons := map[string]int{}, map[string]int{}, map[string]int{}
	for _, d := range generate(t, 5, corpus.MinimumSize) {
		switch {
		case !d.Truth.IsInvoice:
			kinds[d.Truth.Kind]++
		case d.Truth.Reason != "":
			reasons[d.Truth.Reason]++
		default:
			layouts[d.Layout]++
		}
	}
	require.Len(t, layouts, len(corpus.Layouts()))
	require.Len(t, kinds, len(corpus.NonInvoiceKinds()))
	require.Len(t, reasons, len(corpus.BrokenReasons()))
}

func TestGenerate_EvalSize_MeetsTheIssueMinimums(t *testing.T) {
	t.Parallel()
	perLayout := map[string]int{}
	invoices, nonInvoices, broken := 0, 0, 0
	for _, d := range generate(t, 1, evalSize) {
		switch {
		case !d.Truth.IsInvoice:
			nonInvoices++
		case d.Truth.Reason != "":
			broken++
		default:
			invoices++
			perLayout[d.Layout]++
		}
	}
	require.GreaterOrEqual(t, len(corpus.Layouts()), 8)
	require.GreaterOrEqual(t, invoices, 40)
	require.GreaterOrEqual(t, nonInvoices, 12)
	require.GreaterOrEqual(t, broken, 12)
	require.Len(t, perLayout, len(corpus.Layouts()))
	for layout, n := range perLayout {
		// Enough documents per layout that one failure shows below 98%.
		require.GreaterOrEqual(t, n, 20, layout)
	}
	require.GreaterOrEqual(t, len(corpus.NonInvoiceKinds()), 12)
}

func TestGenerate_Currencies_IncludeZeroAndThreeDecimals(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, d := range generate(t, 1, evalSize) {
		seen[d.Truth.Currency] = true
	}
	for _, c := range []string{"EUR", "GBP", "USD", "JPY", "BHD", "KWD", "CHF", "SEK"} {
		require.True(t, seen[c], c)
	}
}

func TestReasons_ArePipelineReasonCodes(t *testing.T) {
	t.Parallel()
	require.True(t, extract.ValidReason(corpus.ReasonNotAnInvoice))
	for _, r := range corpus.BrokenReasons() {
		require.True(t, extract.ValidReason(r), r)
	}
	require.True(t, extract.ValidReason(corpus.ReasonUnparseableTotal))
	require.True(t, extract.ValidReason(corpus.ReasonAmbiguousIssueDate))
}

var nonDigits = regexp.MustCompile(`[^0-9]`)

// stated reports whether an amount's digits appear in one line of text,
// whatever the document's number format.
func stated(text, amount string) bool {
	want := nonDigits.ReplaceAllString(amount, "")
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(nonDigits.ReplaceAllString(l, ""), want) {
			return true
		}
	}
	return false
}

func TestGenerate_DocumentsStateTheirTruth(t *testing.T) {
	t.Parallel()
	for _, d := range generate(t, 11, evalSize) {
		if !d.Truth.IsInvoice {
			continue
		}
		lower := strings.ToLower(d.Text)
		require.Contains(t, lower, strings.ToLower(d.Truth.Vendor), d.ID)
		if d.Truth.InvoiceNumber != "" {
			require.Contains(t, d.Text, d.Truth.InvoiceNumber, d.ID)
		}
		if d.Truth.Total != "" {
			require.True(t, stated(d.Text, d.Truth.Total), "%s: total %s", d.ID, d.Truth.Total)
		}
		for i, l := range d.Truth.Lines {
			require.True(t, stated(d.Text, l.Amount), "%s: line %d amount %s", d.ID, i, l.Amount)
		}
	}
}

// unambiguousSymbols are the currency symbols that name one currency.
var unambiguousSymbols = map[string]string{"GBP": "£", "EUR": "€", "JPY": "¥", "PLN": "zł", "USD": "$"}

func TestGenerate_EveryInvoiceNamesItsCurrency(t *testing.T) {
	t.Parallel()
	for _, seed := range []int64{1, 2, 3} {
		for _, d := range generate(t, seed, evalSize) {
			if !d.Truth.IsInvoice {
				continue
			}
			sym, ok := unambiguousSymbols[d.Truth.Currency]
			named := strings.Contains(d.Text, d.Truth.Currency) || ok && strings.Contains(d.Text, sym)
			require.True(t, named, "%s (%s): %s is neither written as its code nor as its own symbol", d.ID, d.Layout, d.Truth.Currency)
		}
	}
}

func TestGenerate_BrokenInvoices_OmitWhatTheirReasonSays(t *testing.T) {
	t.Parallel()
	for _, d := range generate(t, 13, evalSize) {
		switch d.Truth.Reason {
		case corpus.ReasonMissingNumber:
			require.Empty(t, d.Truth.InvoiceNumber, d.ID)
		case corpus.ReasonMissingTotal:
			require.Empty(t, d.Truth.Total, d.ID)
			// With tax to add, the stated subtotal cannot pass for the total.
			require.NotEqual(t, "", strings.Trim(d.Truth.Tax, "0."), d.ID)
		}
	}
}

func TestLoad_HandWrittenSet_AtLeastTenConsistentDocuments(t *testing.T) {
	t.Parallel()
	docs, err := corpus.Load(filepath.Join("..", "..", "testdata", "corpus"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(docs), 10)
	invoices, others := 0, 0
	for _, d := range docs {
		require.True(t, strings.HasPrefix(d.ID, "hand-"), d.ID)
		require.NotEmpty(t, d.Layout, d.ID)
		if d.Truth.MustSucceed() {
			invoices++
		} else {
			others++
		}
	}
	require.GreaterOrEqual(t, invoices, 6)
	require.GreaterOrEqual(t, others, 3)
}

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return dir
}

const goodTruth = `{"layout":"test","isInvoice":true,"kind":"invoice","invoiceNumber":"7","vendor":"V Ltd","issueDate":"2026-03-03",
"currency":"GBP","subtotal":"10.00","tax":"2.00","total":"12.00","lineCount":1,
"lines":[{"quantity":"2","unitPrice":"5.00","amount":"10.00"}]}`

func TestLoad_PairedFiles_Loaded(t *testing.T) {
	t.Parallel()
	dir := writeFiles(t, map[string]string{"a.txt": "INVOICE 7", "a.json": goodTruth})
	docs, err := corpus.Load(dir)
	require.NoError(t, err)
	require.Len(t, docs, 1)
	require.Equal(t, "hand-a", docs[0].ID)
	require.Equal(t, "test", docs[0].Layout)
	require.Equal(t, "12.00", docs[0].Truth.Total)
}

func TestLoad_BadFiles_FailNamingTheFileAndField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"text without truth", map[string]string{"a.txt": "x"}, "a.json"},
		{"truth without text", map[string]string{"b.json": goodTruth}, "b.txt"},
		{"unknown field", map[string]string{"c.txt": "x", "c.json": `{"layout":"l","kind":"memo","reason":"not_an_invoice","colour":"red"}`}, `unknown field "colour"`},
		{"no layout", map[string]string{"d.txt": "x", "d.json": `{"kind":"memo","reason":"not_an_invoice"}`}, "layout: missing"},
		{"total off", map[string]string{"e.txt": "x", "e.json": strings.Replace(goodTruth, `"total":"12.00"`, `"total":"12.01"`, 1)}, "total:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := corpus.Load(writeFiles(t, tc.files))
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestLoad_MissingDirectory_Fails(t *testing.T) {
	t.Parallel()
	_, err := corpus.Load(filepath.Join(t.TempDir(), "nope"))
	require.Error(t, err)
}

func goodInvoice() corpus.Truth {
	return corpus.Truth{
		IsInvoice: true, Kind: corpus.KindInvoice, InvoiceNumber: "50-1187", Vendor: "Harbour Lane Ltd",
		IssueDate: "2026-03-03", Currency: "GBP", Subtotal: "760.41", Tax: "152.08", Total: "912.49", LineCount: 2,
		Lines: []corpus.Line{{Quantity: "3", UnitPrice: "42.00", Amount: "126.00"}, {Quantity: "9.5", UnitPrice: "66.78", Amount: "634.41"}},
	}
}

func TestTruthCheck_ConsistentInvoice_Passes(t *testing.T) {
	t.Parallel()
	require.NoError(t, goodInvoice().Check())
	// 9.5 × 66.77 = 634.315: 634.32 and 634.31 are both within half a
	// penny; 634.33 is not.
	for _, c := range []struct {
		amount, subtotal string
		want             bool
	}{{"634.31", "760.31", true}, {"634.32", "760.32", true}, {"634.33", "760.33", false}} {
		tr := goodInvoice()
		tr.Lines[1].UnitPrice, tr.Lines[1].Amount = "66.77", c.amount
		tr.Subtotal, tr.Tax, tr.Total = c.subtotal, "0.00", c.subtotal
		amount := c.amount
		if c.want {
			require.NoError(t, tr.Check(), amount)
		} else {
			require.ErrorContains(t, tr.Check(), "lines[1]: amount", amount)
		}
	}
}

func TestTruthCheck_Inconsistent_FailsNamingTheField(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(*corpus.Truth)
		want   string
	}{
		{"line amount off", func(t *corpus.Truth) { t.Lines[0].Amount, t.Subtotal, t.Total = "127.00", "761.41", "913.49" }, "lines[0]: amount"},
		{"subtotal off", func(t *corpus.Truth) { t.Subtotal, t.Total = "761.41", "913.49" }, "subtotal:"},
		{"total off by a penny", func(t *corpus.Truth) { t.Total = "912.50" }, "total:"},
		{"charges count", func(t *corpus.Truth) { t.Charges = []corpus.Charge{{Kind: "shipping", Amount: "5.00"}} }, "total:"},
		{"unknown charge", func(t *corpus.Truth) { t.Charges = []corpus.Charge{{Kind: "tip", Amount: "0.00"}} }, "charges[0].kind"},
		{"precision", func(t *corpus.Truth) { t.Total = "912.490" }, "total:"},
		{"unknown currency", func(t *corpus.Truth) { t.Currency = "XXX" }, "currency:"},
		{"bad date", func(t *corpus.Truth) { t.IssueDate = "2026-02-30" }, "issueDate:"},
		{"line count", func(t *corpus.Truth) { t.LineCount = 3 }, "lineCount:"},
		{"no number", func(t *corpus.Truth) { t.InvoiceNumber = "" }, "invoiceNumber:"},
		{"no vendor", func(t *corpus.Truth) { t.Vendor = "" }, "vendor:"},
		{"broken but adds up", func(t *corpus.Truth) { t.Reason = corpus.ReasonTotalMismatch }, "reason:"},
		{"unknown reason", func(t *corpus.Truth) { t.Reason = "looks_odd" }, "reason:"},
		{"wrong kind", func(t *corpus.Truth) { t.Kind = corpus.KindQuote }, "kind:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := goodInvoice()
			tc.change(&tr)
			require.ErrorContains(t, tr.Check(), tc.want)
		})
	}
}

func TestTruthCheck_BrokenInvoice_PassesWhenItsFaultIsThere(t *testing.T) {
	t.Parallel()
	tr := goodInvoice()
	tr.Reason, tr.Total = corpus.ReasonTotalMismatch, "760.41"
	require.NoError(t, tr.Check())
	tr = goodInvoice()
	tr.Reason, tr.Total = corpus.ReasonMissingTotal, ""
	require.NoError(t, tr.Check())
}

func TestTruthCheck_NonInvoice_NeedsKindAndReason(t *testing.T) {
	t.Parallel()
	require.NoError(t, corpus.Truth{Kind: corpus.KindMemo, Reason: corpus.ReasonNotAnInvoice}.Check())
	require.ErrorContains(t, corpus.Truth{Reason: corpus.ReasonNotAnInvoice}.Check(), "kind:")
	require.ErrorContains(t, corpus.Truth{Kind: corpus.KindMemo}.Check(), "reason:")
}

// TestGenerate_LineMismatch_TheFaultIsInTheText: a broken line shows both
// its unit price and its amount, or the document is consistent as printed
// and no extractor could see the fault (seeds 4 and 2024 once wrote a
// one-item prose line with its amount alone).
func TestGenerate_LineMismatch_TheFaultIsInTheText(t *testing.T) {
	t.Parallel()
	seen := 0
	for _, seed := range []int64{1, 4, 7, 2024, 2026} {
		for _, d := range generate(t, seed, evalSize) {
			if d.Truth.Reason != corpus.ReasonLineMismatch {
				continue
			}
			broken := 0
			for i, l := range d.Truth.Lines {
				if lineAddsUp(t, l) {
					continue
				}
				broken++
				require.True(t, stated(d.Text, l.UnitPrice), "%s (%s): line %d price %s not in the text", d.ID, d.Layout, i, l.UnitPrice)
				require.True(t, stated(d.Text, l.Amount), "%s (%s): line %d amount %s not in the text", d.ID, d.Layout, i, l.Amount)
			}
			require.Positive(t, broken, d.ID)
			seen++
		}
	}
	require.Greater(t, seen, 20)
}

func lineAddsUp(t *testing.T, l corpus.Line) bool {
	t.Helper()
	q, ok1 := new(big.Rat).SetString(l.Quantity)
	p, ok2 := new(big.Rat).SetString(l.UnitPrice)
	a, ok3 := new(big.Rat).SetString(l.Amount)
	require.True(t, ok1 && ok2 && ok3, "line %+v", l)
	return new(big.Rat).Mul(q, p).Cmp(a) == 0
}
