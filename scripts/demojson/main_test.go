package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func runString(t *testing.T, in string, args ...string) (string, error) {
	t.Helper()
	var out strings.Builder
	err := run(args, strings.NewReader(in), &out)
	return out.String(), err
}

func TestQuote_RoundTripsEveryAwkwardCharacter(t *testing.T) {
	t.Parallel()
	in := "line 1\nquote \" backslash \\ tab \t cr \r bell \a nul \x00 <&> é 日本\n"
	out, err := runString(t, in, "quote")
	require.NoError(t, err)
	require.NotContains(t, out, "\n")
	var back string
	require.NoError(t, json.Unmarshal([]byte(out), &back))
	require.Equal(t, in, back)
	require.Contains(t, out, "<&>", "HTML characters stay readable")
}

func TestQuote_InvalidUTF8_Fails(t *testing.T) {
	t.Parallel()
	_, err := runString(t, "bad \xff byte", "quote")
	require.ErrorContains(t, err, "UTF-8")
}

func TestGet_PrintsOneLinePerPath(t *testing.T) {
	t.Parallel()
	in := `{"jobId":"acme:a:v1","deduped":true,"attempt":2,"note":"a\nb","error":{"code":"idempotency_conflict"},"gone":null}`
	out, err := runString(t, in, "get", "jobId", "deduped", "attempt", "note", "error.code", "gone", "missing.deep")
	require.NoError(t, err)
	require.Equal(t, "acme:a:v1\ntrue\n2\na\\nb\nidempotency_conflict\n\n\n", out)
}

func TestGet_NotJSON_Fails(t *testing.T) {
	t.Parallel()
	_, err := runString(t, "<html>", "get", "state")
	require.Error(t, err)
}

func TestCountAndTable_FilterItemsByJobID(t *testing.T) {
	t.Parallel()
	in := `{"items":[{"jobId":"acme:run1-a:v1","state":"succeeded"},{"jobId":"acme:run2-b:v1","state":"queued","errorCode":"x"}],"nextCursor":null}`
	out, err := runString(t, in, "count", "-match", "run2")
	require.NoError(t, err)
	require.Equal(t, "1\n", out)

	out, err = runString(t, in, "table", "-match", "run", "jobId", "state", "errorCode")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	require.Len(t, lines, 3)
	require.Equal(t, []string{"jobId", "state", "errorCode"}, strings.Fields(lines[0]))
	require.Equal(t, []string{"acme:run1-a:v1", "succeeded", "-"}, strings.Fields(lines[1]))

	out, err = runString(t, in, "count", "-match", "acme:", "-where", "state=queued")
	require.NoError(t, err)
	require.Equal(t, "1\n", out)

	out, err = runString(t, in, "table", "-match", "nothing", "jobId")
	require.NoError(t, err)
	require.Equal(t, "  (none)\n", out)
}
