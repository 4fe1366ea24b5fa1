package rules

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// The regular expressions the inline scanners replaced, kept as their
// reference.
var (
	spaceMarkersRef = regexp.MustCompile(`(?i)(^|[\s(])x(\d)|[×@=]`)
	atRef           = regexp.MustCompile(`(?i)(?:@|\bat\b)`)
)

func spaceInlineRef(s string) string {
	return spaceMarkersRef.ReplaceAllStringFunc(s, func(m string) string {
		if len(m) >= 2 && (m[len(m)-1] >= '0' && m[len(m)-1] <= '9') {
			return m[:len(m)-1] + " " + m[len(m)-1:]
		}
		return " " + m + " "
	})
}

func lastAtRef(s string) ([2]int, bool) {
	ats := atRef.FindAllStringIndex(s, -1)
	if len(ats) == 0 {
		return [2]int{}, false
	}
	return [2]int{ats[len(ats)-1][0], ats[len(ats)-1][1]}, true
}

var inlineSeeds = []string{
	"", "x3", "X3", " x3", "(x3", "ax3", "3 x 4.00", "3x4.00", "Widget x2 @ 4.00 = 8.00", "x", "x ", "@", "=",
	"2×3", "×", "\xc3\xc3\x97", "\xe0\xc3\x97", "at", "AT 4", "cat at", "at_", "_at", "éat", "até", "flat rate at $5",
	"\tx9", "\nx9", "\fx9", "\rx9", "\vx9", "x3x4", " x3 x4", "=x5", "@ x5", "Waiting staff (3.25 hours @ $31.95)",
}

func checkInlineScanners(t *testing.T, s string) {
	require.Equal(t, spaceInlineRef(s), spaceInline(s), "%q", s)
	wantAt, wantOK := lastAtRef(s)
	gotAt, gotOK := lastAt(s)
	require.Equal(t, wantOK, gotOK, "%q", s)
	require.Equal(t, wantAt, gotAt, "%q", s)
}

func FuzzInlineScanners_MatchTheRegexps(f *testing.F) {
	for _, s := range inlineSeeds {
		f.Add(s)
	}
	f.Fuzz(checkInlineScanners)
}

func TestInlineScanners_AgreeWithTheirRegexps(t *testing.T) {
	t.Parallel()
	for _, s := range inlineSeeds {
		checkInlineScanners(t, s)
	}
	pieces := []string{"x", "X", "3", "12", " ", "(", "@", "=", "×", "at", "AT", "a", "t", "_", "é", "\t", "\xc3", "\x97", "4.00"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		checkInlineScanners(t, randomText(r, pieces, 1+r.IntN(10)))
	}
}
