package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The table counts each file under its source, syntax and profile: a
// valid UBL example parses, passes and is committed, one whose total with
// VAT is off is rejected with the rule, other XML is counted as not an
// e-invoice, and -v names the failing file and its fate without quoting
// it.
func TestRun_PrintsTheTableBySourceAndSyntax(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, err := os.ReadFile("../../testdata/einvoice/en16931/ubl/ubl-tc434-example1.xml")
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "cen"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cen", "a.xml"), src, 0o644))
	broken := bytes.Replace(src, []byte(">250.33<"), []byte(">250.34<"), 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cen", "b.xml"), broken, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cen", "c.xml"), []byte("<other/>"), 0o644))

	var out bytes.Buffer
	require.NoError(t, run(&out, dir, true))
	text := out.String()
	require.Regexp(t, `cen\s+xml\s+ubl-invoice\s+en16931\s+2\s+2\s+1\s+1\s+0\s+1\n`, text)
	require.Regexp(t, `cen\s+xml\s+\(not an e-invoice\)\s+1\s+0\s+0\s+0\s+0\s+0\n`, text)
	require.Regexp(t, `total\s+3\s+2\s+1\s+1\s+0\s+1\n`, text)
	require.Contains(t, text, "not marked invalid: 2 parsed, 1 committed (0 of them flagged), 1 rejected")
	require.Regexp(t, `cen/b.xml: BR-CO-15 BT-112,BT-109,BT-110; .* → rejected invalid_einvoice:BR-CO-15\n`, text)
	require.False(t, strings.Contains(text, "250.34"))
}
