package rules

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

func TestTextHelpers_AgreeWithTheStringsFunctionsTheyReplace(t *testing.T) {
	t.Parallel()
	pieces := []string{" ", "  ", "\t", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u2003", "a", "Total", "1",
		"*", "_", "`", "/", "-", "é", "\xff", "\xc3", "€", "EUR", "In", "usd", "GbP", "\u212a", "İ"}
	r := rand.New(rand.NewPCG(7, 8))
	for range 30000 {
		s := randomText(r, pieces, r.IntN(12))
		require.Equal(t, len(strings.Fields(s)), countFields(s), "%q", s)
		for _, set := range []string{"*_`", "/-_", "0123456789"} {
			require.Equal(t, strings.ContainsAny(s, set), containsASCII(s, set), "%q %q", s, set)
		}
		require.Equal(t, strings.ContainsAny(s, "0123456789"), hasDigit(s), "%q", s)
		isSep := func(r rune) bool { return strings.ContainsRune(" :()[]@*\t", r) }
		require.Equal(t, strings.FieldsFunc(s, isSep), appendFieldsFunc(make([]string, 0), s, isSep), "%q", s)
		require.Equal(t, strings.Fields(s), appendFieldsFunc(make([]string, 0), s, unicode.IsSpace), "%q", s)
		require.Equal(t, strings.ToLower(s), string(appendLower(nil, s)), "%q", s)
		require.Equal(t, isNoteWord(strings.ToLower(s)), isNoteWordFold(s), "%q", s)
	}
}

func TestIsNumberSpelling_IsTheNumberWordsSet(t *testing.T) {
	t.Parallel()
	for w := range numberWords {
		require.True(t, isNumberSpelling(w), w)
	}
	for _, w := range []string{"", "nos", "No", "numb", "n.", "nº.", "numéro", "#1", "nbrs"} {
		require.Equal(t, numberWords[w], isNumberSpelling(w), w)
	}
}

func TestLabelPrefixes_HoldEveryLabelAndEveryRunOfItsFirstWords(t *testing.T) {
	t.Parallel()
	runs := 0
	for p, k := range labels {
		require.Equal(t, labelPrefix{label: true, kind: k, phrase: p}, labelPrefixes[p], p)
		words := strings.Split(p, " ")
		for i := 1; i < len(words); i++ {
			_, ok := labelPrefixes[strings.Join(words[:i], " ")]
			require.True(t, ok, p)
		}
	}
	for run, lp := range labelPrefixes {
		_, isLabel := labels[run]
		require.Equal(t, isLabel, lp.label, run)
		if !isLabel {
			runs++
		}
	}
	require.Positive(t, runs)
}
