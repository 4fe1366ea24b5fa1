package rules

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The regular expressions the address scanners replaced, kept as their
// reference.
var (
	ukMarkerRef = regexp.MustCompile(`\b(?:[A-Z]{1,2}[0-9][A-Z0-9]? [0-9][A-Z]{2}|GB ?[0-9]{3} ?[0-9]{4} ?[0-9]{2})\b`)
	stateZipRef = regexp.MustCompile(`\b(?:AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC),?\s+\d{5}(?:-\d{4})?\b`)
)

// addressSeeds are the edges of both patterns: each optional part present
// and absent, a boundary that fails on either side, non-ASCII neighbours.
var addressSeeds = []string{
	"", "EX2 8PW", "Exeter EX2 8PW", "SW1A 1AA", "W1 1AA", "EC1A1BB", "EX2 8PWX", "xEX2 8PW", "EX2 8pw",
	"GB 123 4567 89", "GB123456789", "GB 123456789", "GB1234567890", "VAT GB 123 4567 89.", "ÄGB123456789",
	"Boulder, CO 80301", "CO, 80301", "CA 94107-1234", "CA 941071", "CA\t\f\r\n94107", "CA94107", "XCA 94107",
	"Customer ID 13118", "NY 10001-12", "NY 10001-", "DC  20001é", "ÉCA 94107", "CA 9410", "TX 75001_",
	"AL 35004 AK 99501, AZ 85001",
}

func FuzzHasUKMarker_MatchesTheRegexp(f *testing.F) {
	for _, s := range addressSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		require.Equal(t, ukMarkerRef.MatchString(s), hasUKMarker(s), "%q", s)
	})
}

func FuzzNextStateZip_FindsTheRegexpMatchStarts(f *testing.F) {
	for _, s := range addressSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want, got []int
		for _, m := range stateZipRef.FindAllStringIndex(s, -1) {
			want = append(want, m[0])
		}
		for at := nextStateZip(s, 0); at >= 0; at = nextStateZip(s, at+1) {
			got = append(got, at)
		}
		require.Equal(t, want, got, "%q", s)
	})
}

func TestAddressScanners_AgreeWithTheirRegexpsOnTheSeeds(t *testing.T) {
	t.Parallel()
	for _, s := range addressSeeds {
		require.Equal(t, ukMarkerRef.MatchString(s), hasUKMarker(s), "%q", s)
		require.Equal(t, stateZipRef.FindStringIndex(s) != nil, nextStateZip(s, 0) >= 0, "%q", s)
	}
	require.True(t, hasUKMarker("Exeter EX2 8PW"))
	require.True(t, hasUKMarker("VAT GB 123 4567 89."))
	require.False(t, hasUKMarker("EX2 8PWX"))
	require.Equal(t, 9, nextStateZip("Boulder, CO 80301", 0))
	require.Equal(t, -1, nextStateZip("CA 941071", 0))
}

// randomText joins n pieces drawn from pieces: text dense in near misses.
func randomText(r *rand.Rand, pieces []string, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func TestAddressScanners_AgreeWithTheirRegexpsOnRandomNearMisses(t *testing.T) {
	t.Parallel()
	pieces := []string{"A", "C", "G", "B", "X", "W", "EX", "SW1A", "GB", "CA", "NY", "DC", " ", "  ", ",", "-",
		"1", "12", "123", "1234", "12345", "\t", "\n", "é", "_", "a", ".", "8PW"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		s := randomText(r, pieces, 1+r.IntN(12))
		require.Equal(t, ukMarkerRef.MatchString(s), hasUKMarker(s), "%q", s)
		var want, got []int
		for _, m := range stateZipRef.FindAllStringIndex(s, -1) {
			want = append(want, m[0])
		}
		for at := nextStateZip(s, 0); at >= 0; at = nextStateZip(s, at+1) {
			got = append(got, at)
		}
		require.Equal(t, want, got, "%q", s)
	}
}
