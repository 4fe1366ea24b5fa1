package pdf

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRead_AgreesWithPdftotext compares each real PDF's layout text with
// `pdftotext -layout` (poppler 22.12) on the same file, stored in
// testdata/pdftotext/: the same words, and the same lines once every run of
// two or more spaces (a column gap) counts as one separator.
func TestRead_AgreesWithPdftotext(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/pdftotext/*.txt")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	r := sharedReader(t)
	for _, golden := range files {
		name := strings.TrimSuffix(filepath.Base(golden), ".txt")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			pdfs, err := filepath.Glob(filepath.Join("testdata", "*", name+".pdf"))
			require.NoError(t, err)
			require.Len(t, pdfs, 1)
			data, err := os.ReadFile(pdfs[0])
			require.NoError(t, err)
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			f, err := r.Read(testContext(t), data)
			require.NoError(t, err)
			theirs := strings.Split(strings.TrimSuffix(string(want), "\f"), "\f")
			require.Len(t, f.Pages, len(theirs), "pages")
			for i, page := range f.Pages {
				words, nwords := differ(strings.Fields(page), strings.Fields(theirs[i]))
				lines, nlines := differ(columnLines(page), columnLines(theirs[i]))
				t.Logf("page %d: %d of %d words differ, %d of %d lines", i+1, words, nwords, lines, nlines)
				require.LessOrEqual(t, words, 2+nwords*maxWordsDiffering/100, "page %d words", i+1)
				require.LessOrEqual(t, lines, 2+nlines*maxLinesDiffering/100, "page %d lines", i+1)
			}
		})
	}
}

// Percentages allowed to differ, beyond two of each per page. Measured when
// the test was written: at most 4 of 130 words and 4 of 39 lines on a page.
// The word differences are spaces pdftotext drops where the page shows one
// ("19 %", "Seite 1 von 3" in pdf_zf_xrechnung_1.pdf); the line differences
// are wrapped cells split or joined differently.
const (
	maxWordsDiffering = 3
	maxLinesDiffering = 10
)

var columnGap = regexp.MustCompile(` {2,}`)

// columnLines returns a page's non-empty lines with each column gap as " | ".
func columnLines(page string) []string {
	var out []string
	for _, l := range strings.Split(page, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, columnGap.ReplaceAllString(l, " | "))
		}
	}
	return out
}

// differ returns how many items of the larger multiset have no partner in
// the other, and the larger's size.
func differ(a, b []string) (int, int) {
	count := map[string]int{}
	for _, s := range b {
		count[s]++
	}
	common := 0
	for _, s := range a {
		if count[s] > 0 {
			count[s]--
			common++
		}
	}
	n := max(len(a), len(b))
	return n - common, n
}
