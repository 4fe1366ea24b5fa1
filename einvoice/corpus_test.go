package einvoice

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// corpusDir holds the official examples (see its README.md).
const corpusDir = "../testdata/einvoice"

// notEInvoice are the corpus files that are not e-invoices at all: true
// for well-formed XML of another kind (ErrNotEInvoice), false for text
// that is not XML (*SyntaxError).
var notEInvoice = map[string]bool{
	"horstoeko/xml_dummy.xml":             true,  // <root><users>…: other XML
	"horstoeko/xml_invalid_1.xml":         true,  // <dummy></dummy>
	"horstoeko/xml_invalid_2.xml":         false, // "Bad XML"
	"mustang/validator/invalidV2Root.xml": true,  // root rsm:myinvoice: not a CII root (after a BOM)
}

// knownInvalid are the corpus files Check finds faults in, with every
// rule it reports, each fault verified by reading the XML. Whether the
// invoice is then rejected or committed with its faults flagged is the
// extract package's decision (Violation.Detail).
var knownInvalid = map[string][]string{
	// Negative examples by their source's own naming.
	"mustang/validator/invalidV1.xml": {"ZF1-NUMBER", "ZF1-DATE", "ZF1-TYPE", // ZUGFeRD 1.0 without number, date, type
		"ZF1-ALLOWANCE-TOTAL", "ZF1-CHARGE-TOTAL"}, // BT-107 10.00, BT-108 5.00 and no document allowance or charge
	"mustang/validator/invalidV1TooMinimal.xml": {"ZF1-NUMBER", "ZF1-DATE", "ZF1-TYPE", "ZF1-PROFILE", "ZF1-CURRENCY", // nearly empty
		"ZF1-SELLER", "ZF1-BUYER", "ZF1-LINES", "ZF1-TOTALS", "ZF1-SUMS"},
	"mustang/validator/invalidV1addition.xml":      {"ZF1-LINE-TOTAL", "ZF1-TAX-BASIS", "ZF1-GRAND-TOTAL"}, // BT-106 1496.00 for lines of 496.00
	"mustang/validator/invalidV2.xml":              {"BR-07", "BR-12", "BR-CO-15"},                         // no buyer name, no BT-106
	"mustang/validator/invalidXRV30.xml":           {"BR-CO-16", "BR-DE-15"},                               // due ≠ total − paid; no Leitweg-ID (BT-10 commented out)
	"mustang/validator/invalidXRV30_BR-DEC-23.xml": {"BR-DEC-23"},
	// Files not named invalid whose fault Check finds.
	"horstoeko/xml_en16931_5.xml":               {"BR-06", "BR-08"},       // no seller party at all
	"mustang/library/line-total-4-decimals.xml": {"BR-DEC-23"},            // BT-131 47.0504 in an EN 16931 invoice
	"mustang/library/ubl/BT-128.ubl.xml":        {"BR-CO-10", "BR-CO-15"}, // lines 2000, BT-106 200: a one-field test
	// The OASIS UBL sample: no BT-24 nor type code, totals off by 0.30.
	"mustang/library/ubl-creditnote.xml":                     {"BR-01", "BR-04", "BR-CO-15", "BR-CO-16", "BR-S-08"},
	"mustang/library/ubl/UBL-CreditNote-2.1-Example.ubl.xml": {"BR-01", "BR-04", "BR-CO-15", "BR-CO-16"},
	// easybill's ZUGFeRD 1.0 builder and reader fixtures: the VAT breakdown
	// (19.25 and 37.62) is not the VAT total (37.62); the builder lists a
	// 1.00 allowance beside an allowance total of 0.00.
	"easybill/zugferd10/builder.zugferd.xml": {"ZF1-ALLOWANCE-TOTAL", "ZF1-TAX-TOTAL"},
	"easybill/zugferd10/reader.zugferd.xml":  {"ZF1-TAX-TOTAL"},
	// ZUGFeRD 1.0 lines without ids, converted by Mustang to an EN 16931 invoice.
	"mustang/library/migration/reference/ZUGFeRD2_EXTENDED_Warenrechnung.xml": {"BR-LIN-01", "BR-LIN-03"},
}

// undetected are negative examples of their source whose fault is outside
// the rules Check implements (schema, code lists, XRechnung's BR-DE
// rules, the profile's own Schematron): they read as valid here, and are
// listed so that a change in that is seen.
var undetected = map[string]string{
	"mustang/library/not_validating_full_invoice_based_onTest_EeISI_300_CENfullmodel.cii.xml":     "schema and code lists",
	"mustang/library/not_validating_full_invoice_based_onTest_EeISI_300_CENfullmodel.ubl.xml":     "schema and code lists",
	"mustang/library/ubl/not_validating_full_invoice_based_onTest_EeISI_300_CENfullmodel.ubl.xml": "schema and code lists",
	"mustang/library/subinvoicelines/invalidSubInvoiceLineHierarchy.xml":                          "Extended line hierarchy",
	"mustang/validator/invalidSubInvoiceLineHierarchy.xml":                                        "Extended line hierarchy",
	"mustang/validator/invalidArithmetics.xml":                                                    "Mustang's own test expects it valid",
	"mustang/validator/invalidV1ExtraTags.xml":                                                    "schema: unknown elements",
	"mustang/validator/invalidV2Profile.xml":                                                      "unknown profile URN",
	"mustang/validator/invalidXRSchemav2.xml":                                                     "XRechnung schema",
	"mustang/validator/invalidXRv2.xml":                                                           "XRechnung BR-DE rules",
	"mustang/validator/FAIL_zugferd_2p1_MINIMUM_Rechnung_380.xml":                                 "MINIMUM schema",
}

// corpusFiles lists the XML files under corpusDir, relative to it.
func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(corpusDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".xml") {
			rel, _ := filepath.Rel(corpusDir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 250, "the corpus is missing")
	return files
}

// Every official example parses, and Check passes for each valid one; the
// known negative examples fail with the rule named above. The log shows
// the table of syntax × parsed × checks passed.
func TestCorpus_EveryExampleParses_AndTheValidOnesPassCheck(t *testing.T) {
	t.Parallel()
	type row struct{ files, parsed, passed int }
	table := map[string]*row{}
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(filepath.Join(corpusDir, f))
		require.NoError(t, err)
		inv, err := Parse(data)
		source := strings.SplitN(f, "/", 2)[0]
		if otherXML, ok := notEInvoice[f]; ok {
			var se *SyntaxError
			key := source + " | (not an e-invoice)"
			if otherXML {
				require.ErrorIs(t, err, ErrNotEInvoice, f)
			} else {
				require.ErrorAs(t, err, &se, f)
				key = source + " | (malformed XML)"
			}
			if table[key] == nil {
				table[key] = &row{}
			}
			table[key].files++
			continue
		}
		require.NoError(t, err, f)
		key := source + " | " + string(inv.Syntax)
		if table[key] == nil {
			table[key] = &row{}
		}
		table[key].files++
		table[key].parsed++
		vs := inv.Check()
		if want, ok := knownInvalid[f]; ok {
			require.Equal(t, want, rules(vs), "%s: %v", f, vs)
			continue
		}
		require.Empty(t, vs, f)
		table[key].passed++
	}
	keys := make([]string, 0, len(table))
	for k := range table {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "\n%-42s %6s %7s %14s\n", "source | syntax", "files", "parsed", "checks passed")
	for _, k := range keys {
		r := table[k]
		fmt.Fprintf(&b, "%-42s %6d %7d %14d\n", k, r.files, r.parsed, r.passed)
	}
	t.Log(b.String())
}

// Every file the tables above name exists, so a renamed file cannot make
// an expectation silently vacuous.
func TestCorpus_ExpectationsNameExistingFiles(t *testing.T) {
	t.Parallel()
	for f := range knownInvalid {
		require.FileExists(t, filepath.Join(corpusDir, f))
	}
	for f := range undetected {
		require.FileExists(t, filepath.Join(corpusDir, f))
	}
	for f := range notEInvoice {
		require.FileExists(t, filepath.Join(corpusDir, f))
	}
	for f := range undetected {
		data, err := os.ReadFile(filepath.Join(corpusDir, f))
		require.NoError(t, err)
		inv, err := Parse(data)
		require.NoError(t, err, f)
		require.Empty(t, inv.Check(), "%s now fails Check: move it to knownInvalid", f)
	}
}

// The corpus holds each syntax the package reads, and every file's syntax
// is what Sniff tells from its root.
func TestCorpus_SniffAgreesWithParse(t *testing.T) {
	t.Parallel()
	seen := map[Syntax]int{}
	for _, f := range corpusFiles(t) {
		data, err := os.ReadFile(filepath.Join(corpusDir, f))
		require.NoError(t, err)
		syntax, ok := Sniff(data)
		inv, err := Parse(data)
		if err != nil {
			require.False(t, ok, f)
			require.True(t, errors.Is(err, ErrNotEInvoice) || errors.As(err, new(*SyntaxError)), f)
			continue
		}
		require.True(t, ok, f)
		require.Equal(t, inv.Syntax, syntax, f)
		seen[syntax]++
	}
	for _, s := range []Syntax{UBLInvoice, UBLCreditNote, CII, ZUGFeRD1} {
		require.Positive(t, seen[s], "no %s example", s)
	}
}
