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

// Every flag FromEInvoice may set reads as a sentence of its own that
// names its rule and its standard.
func TestDescribeFlag_EveryEInvoiceFlagHasItsOwnSentence(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, f := range extract.EInvoiceFlags() {
		s, ok := DescribeFlag(f)
		require.True(t, ok, f)
		if rule, isRule := strings.CutPrefix(f, extract.FlagEInvoiceRulePrefix); isRule {
			require.Contains(t, s, einvoiceStandard(rule)+" "+rule+": "+einvoiceRules[rule])
		}
		if other, dup := seen[s]; dup {
			t.Errorf("flags %q and %q read the same", other, f)
		}
		seen[s] = f
	}
	s, _ := DescribeFlag("einvoice_rule:ZF1-TAX-TOTAL")
	require.True(t, strings.HasPrefix(s, "the e-invoice breaks ZUGFeRD 1.0 ZF1-TAX-TOTAL: the VAT total"), s)
}
