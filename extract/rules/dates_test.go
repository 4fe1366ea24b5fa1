package rules

import (
	"math/rand/v2"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
)

func TestFindDates_EveryWrittenForm(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text  string
		order dateOrder
		want  string
	}{
		{"2026-03-03", orderUnknown, "2026-03-03"},
		{"2026/03/03", orderUnknown, "2026-03-03"},
		{"Date: 14/02/2026", orderUnknown, "2026-02-14"},
		{"04/03/2026", orderDMY, "2026-03-04"},
		{"04/03/2026", orderMDY, "2026-04-03"},
		{"12/31/2026", orderUnknown, "2026-12-31"},
		{"09.02.2026", orderUnknown, "2026-02-09"},
		{"3.3.26", orderUnknown, "2026-03-03"},
		{"Feb 9, 2026", orderUnknown, "2026-02-09"},
		{"Feb. 9 2026", orderUnknown, "2026-02-09"},
		{"9 February 2026", orderUnknown, "2026-02-09"},
		{"August 28, 2026", orderUnknown, "2026-08-28"},
		{"3rd March 2026", orderUnknown, "2026-03-03"},
		{"the 3rd of March, 2026", orderUnknown, "2026-03-03"},
		{"March 3rd, 2026", orderUnknown, "2026-03-03"},
		{"Tuesday, March 3, 2026", orderUnknown, "2026-03-03"},
		{"23-Jun-2024", orderUnknown, "2024-06-23"},
		{"3. März 2026", orderUnknown, "2026-03-03"},
		{"15 janvier 2026", orderUnknown, "2026-01-15"},
		{"2026年3月3日 (2026-03-03)", orderUnknown, "2026-03-03"},
		{"Date: Fri, 27 Feb 2026 16:02:11 -0800", orderUnknown, "2026-02-27"},
		{"30 Nov 26", orderUnknown, "2026-11-30"},
		{"30-Nov-26", orderUnknown, "2026-11-30"},
		{"Issued 2026-11-30T10:00:00Z", orderUnknown, "2026-11-30"},
	}
	for _, tt := range tests {
		ds := findDates(tt.text)
		require.NotEmpty(t, ds, tt.text)
		got, ok := ds[0].iso(tt.order)
		require.True(t, ok, tt.text)
		require.Equal(t, tt.want, got, tt.text)
	}
}

func TestFindDates_NotDates(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"1,234.56", "12.34.56", "Tel 0113 496 8642", "May we remind you", "INV-2026-0042", "99/99/2026",
		"30 Nov 10:30", "2026-11-30Tuesday"} {
		require.Empty(t, findDates(text), text)
	}
}

func TestDateTok_AmbiguousWithoutAnOrder(t *testing.T) {
	t.Parallel()
	ds := findDates("03/04/2026")
	require.Len(t, ds, 1)
	_, ok := ds[0].iso(orderUnknown)
	require.False(t, ok)
	same := findDates("03/03/2026")
	got, ok := same[0].iso(orderUnknown)
	require.True(t, ok, "the same either way")
	require.Equal(t, "2026-03-03", got)
}

func TestDateEvidence_DecidesTheOrderFromTheDocument(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		e    dateEvidence
		want dateOrder
	}{
		{"another date with a day over 12", dateEvidence{dmy: 1, strongUS: 3}, orderDMY},
		{"another date with a month-first day over 12", dateEvidence{mdy: 1, strongDMY: 3}, orderMDY},
		{"US conventions only", dateEvidence{strongUS: 2}, orderMDY},
		{"VAT and euros only", dateEvidence{strongDMY: 2}, orderDMY},
		{"a clear majority of conventions", dateEvidence{strongDMY: 1, strongUS: 3}, orderMDY},
		{"an even split falls to written dates", dateEvidence{strongDMY: 1, strongUS: 1, weakUS: 1}, orderMDY},
		{"nothing", dateEvidence{}, orderUnknown},
		{"contradictions all the way", dateEvidence{dmy: 1, mdy: 1, strongDMY: 1, strongUS: 1}, orderUnknown},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.e.decide(), tt.name)
	}
}

func TestRules_DateOrderPerDocument(t *testing.T) {
	t.Parallel()
	doc := func(extra, currency string) string {
		return "INVOICE\nInvoice No: A-1\nVendor: Acme\nDate: 03/04/2026\n" + extra +
			"\nDescription  Amount\nWork  " + currency + "100.00\n\nTotal  " + currency + "100.00\n"
	}
	tests := []struct {
		name, extra, currency, want string
	}{
		{"a US document", "Austin, TX 78701\nSales Tax: 0.00", "$", "2026-03-04"},
		{"a UK document", "VAT Reg No: GB 123\nVAT 0%: 0.00", "£", "2026-04-03"},
		{"another date decides", "Due date: 17/04/2026", "$", "2026-04-03"},
		{"a customer ID is no US state and ZIP", "Singapore 048616\nCustomer ID     13118\nGST @ 9%  0.00", "SGD ", "2026-04-03"},
		{"a state and ZIP without a comma", "Boulder CO 80301\nSales Tax: 0.00", "$", "2026-03-04"},
	}
	for _, tt := range tests {
		inv, err := run(t, doc(tt.extra, tt.currency))
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.want, inv.IssueDate, tt.name)
	}
	_, err := run(t, doc("", "CAD "))
	require.Equal(t, extract.ReasonAmbiguousDate, reasonOf(t, err), "no evidence either way")
}

// monthWordsByRune is monthWords as first written, rune by rune: the
// reference of its ASCII fast path.
func monthWordsByRune(s string) [][2]int {
	var out [][2]int
	var buf [12]byte
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		j, k := i, 0
		for j < len(s) {
			r, m := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r) {
				break
			}
			if k+m <= len(buf) {
				k += utf8.EncodeRune(buf[k:], unicode.ToLower(r))
			} else {
				k = len(buf) + 1
			}
			j += m
		}
		if k >= 3 && k <= len(buf) && months[string(buf[:k])] > 0 {
			out = append(out, [2]int{i, j})
		}
		i = j
	}
	return out
}

func TestMonthWords_AgreesWithTheRuneByRuneScan(t *testing.T) {
	t.Parallel()
	pieces := []string{"March", "MÄRZ", "mär", "Février", "jan", "JANUARY", "Dezember", "x", "é", "É", " ", "3",
		"\xff", "abcdefghijkl", "SeptemberX", "Ⅻ", "ǅ", "-", "İ", "ſept"}
	r := rand.New(rand.NewPCG(11, 12))
	for range 30000 {
		s := randomText(r, pieces, r.IntN(8))
		require.Equal(t, monthWordsByRune(s), monthWords(s), "%q", s)
	}
}
