package extract

import "testing"

// CheckDecode and ExtractionVariants let the external tests drive the
// strict reader with the rules extractor's own output.
var (
	CheckDecode               = checkDecode
	CheckDecodeClassification = checkDecodeClassification
	ExtractionVariants        = extractionVariants
)

// ReadsStrictly reports whether the strict reader reads b whole.
func ReadsStrictly(t *testing.T, b []byte) bool {
	t.Helper()
	_, ok := readExtraction(b)
	return ok
}
