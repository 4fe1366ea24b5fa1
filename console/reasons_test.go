package console

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

// Every rule an invalid_einvoice reason may name has a sentence of its
// own, and the table holds no rule the reasons do not: a rejection page
// explains the rule in words, never shows a bare code.
func TestEInvoiceRules_EveryRuleHasItsOwnSentence(t *testing.T) {
	t.Parallel()
	require.ElementsMatch(t, extract.EInvoiceRules, slices.Collect(maps.Keys(einvoiceRules)))
	seen := map[string]string{}
	for _, rule := range extract.EInvoiceRules {
		s, ok := Describe(extract.ReasonInvalidEInvoice + ":" + rule)
		require.True(t, ok, rule)
		if rule != "syntax" {
			require.Contains(t, s, rule+":", "the sentence names the rule")
		}
		require.NotContains(t, s, "%")
		if other, dup := seen[s]; dup {
			t.Errorf("rules %q and %q read the same", other, rule)
		}
		seen[s] = rule
	}
	s, _ := Describe("invalid_einvoice:BR-13")
	require.Equal(t, "the e-invoice breaks EN 16931 BR-13: it states no total without VAT (BT-109)", s)
	s, _ = Describe("invalid_einvoice:ZF1-GRAND-TOTAL")
	require.True(t, strings.HasPrefix(s, "the e-invoice breaks ZUGFeRD 1.0 ZF1-GRAND-TOTAL: "), s)
	s, _ = Describe("invalid_einvoice:BR-DE-15")
	require.True(t, strings.HasPrefix(s, "the e-invoice breaks XRechnung BR-DE-15: "), s)
	_, ok := Describe("invalid_einvoice:BR-99")
	require.False(t, ok, "an unknown rule is named as it is, and said unknown")
}

// Every flag a result may carry (the extractor's and every flag
// FromEInvoice sets) reads as a sentence of its own for the job and review
// pages.
func TestDescribeFlag_EveryFlagHasASentence(t *testing.T) {
	t.Parallel()
	flags := append([]string{extract.FlagVisibleTotalMismatch, extract.FlagOCR, extract.FlagEInvoiceUnreadable,
		extract.FlagTaxRateMismatch}, extract.EInvoiceFlags()...)
	seen := map[string]string{}
	for _, f := range flags {
		s, ok := DescribeFlag(f)
		require.True(t, ok, f)
		if other, dup := seen[s]; dup {
			t.Errorf("flags %q and %q read the same", other, f)
		}
		seen[s] = f
	}
	s, _ := DescribeFlag("einvoice_rule:BR-CO-10")
	require.Equal(t, "the e-invoice breaks EN 16931 BR-CO-10: the sum of the line net amounts is not the stated line total (BT-106); "+
		"it was committed because the amounts that decide the payment agree", s)
	_, ok := DescribeFlag("no_such_flag")
	require.False(t, ok)
}
