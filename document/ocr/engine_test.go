package ocr

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// fakeCommand writes an executable script standing in for tesseract:
// `--list-langs` prints langs; a page run does body, with $1 the input
// image and $2 the output base name (tesseract writes "$2.tsv").
func fakeCommand(t *testing.T, langs, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fake-tesseract")
	script := "#!/bin/sh\n" +
		"if [ \"$1\" = --list-langs ]; then\n" +
		"  echo 'List of available languages in \"/fake/\" (2):'\n" +
		"  for l in " + langs + "; do echo $l; done\n  exit 0\nfi\n" + body + "\n"
	require.NoError(t, os.WriteFile(path, []byte(script), 0o700))
	return path
}

func samplePNG(t *testing.T) []byte { return encodePNG(t, grayPage(64, 32, 10)) }

func TestNew_MissingCommand_IsNotInstalledWithAdvice(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"relayops-no-such-ocr-command", "/nonexistent/tesseract"} {
		_, err := New(Config{Command: cmd})
		require.ErrorIs(t, err, ErrNotInstalled, cmd)
		require.Contains(t, err.Error(), "apt-get install tesseract-ocr")
	}
}

func TestNew_NoRequestedLanguageInstalled_IsNotInstalled(t *testing.T) {
	t.Parallel()
	cmd := fakeCommand(t, "osd jpn", "exit 0")
	_, err := New(Config{Command: cmd})
	require.ErrorIs(t, err, ErrNotInstalled)
}

func TestNew_LanguagesAreReducedToThoseInstalled(t *testing.T) {
	t.Parallel()
	cmd := fakeCommand(t, "osd fra eng", "exit 0")
	e, err := New(Config{Command: cmd})
	require.NoError(t, err)
	require.Equal(t, "eng+fra", e.Languages())
}

func TestNew_LanguageThatReadsAsAnOption_IsRefused(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Command: fakeCommand(t, "eng", "exit 0"), Languages: "eng+--psm"})
	require.ErrorContains(t, err, "Config.Languages")
}

func TestPage_ReadsTheCommandsTSVIntoLayoutText(t *testing.T) {
	t.Parallel()
	fixture, err := filepath.Abs("testdata/MustangBeispiel20221026-300dpi.tsv")
	require.NoError(t, err)
	tmp := t.TempDir()
	cmd := fakeCommand(t, "eng deu", `case "$1" in "`+tmp+`"/relayops-ocr-*/page.pgm) ;; *) exit 3;; esac
[ "$3 $4 $5 $6 $7" = "-l deu --psm 3 tsv" ] || exit 4
cp '`+fixture+`' "$2.tsv"`)
	e, err := New(Config{Command: cmd, Languages: "deu", TempDir: tmp})
	require.NoError(t, err)
	p, err := e.Page(context.Background(), samplePNG(t))
	require.NoError(t, err)
	require.Contains(t, p.Text, "Rechnung RE1001\n")
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, entries, "the page's private directory is removed")
}

func TestPage_CommandFails_IsFailedAndLeavesNothing(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	e, err := New(Config{Command: fakeCommand(t, "eng", "echo 'customer data' >&2; exit 1"), TempDir: tmp})
	require.NoError(t, err)
	_, err = e.Page(context.Background(), samplePNG(t))
	require.ErrorIs(t, err, ErrFailed)
	require.NotContains(t, err.Error(), "customer")
	entries, _ := os.ReadDir(tmp)
	require.Empty(t, entries)
}

func TestPage_OutputThatIsNotTSV_IsFailed(t *testing.T) {
	t.Parallel()
	e, err := New(Config{Command: fakeCommand(t, "eng", `echo garbage > "$2.tsv"`)})
	require.NoError(t, err)
	_, err = e.Page(context.Background(), samplePNG(t))
	require.ErrorIs(t, err, ErrFailed)
}

func TestPage_HungCommand_IsKilledWithItsChildrenAtTheTimeout(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	// The script starts a child that would outlive it and waits forever.
	cmd := fakeCommand(t, "eng", "sleep 600 &\necho $! > '"+pidFile+"'\nwait")
	e, err := New(Config{Command: cmd, PageTimeout: 300 * time.Millisecond, TempDir: tmp})
	require.NoError(t, err)
	_, err = e.Page(context.Background(), samplePNG(t))
	require.ErrorIs(t, err, ErrTimeout)

	raw, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	require.NoError(t, err)
	redistest.Eventually(t, 10*time.Second, func() bool { return !alive(pid) }, "the hung command's child to die")
	entries, _ := os.ReadDir(tmp)
	require.Empty(t, entries)
}

func TestPage_CallerCancels_IsTheContextsError(t *testing.T) {
	t.Parallel()
	started := filepath.Join(t.TempDir(), "started")
	e, err := New(Config{Command: fakeCommand(t, "eng", "touch '"+started+"'\nexec sleep 600")})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		// Cancel once the command runs (or after 10 s, which fails the
		// test's own assertions): a ticker, since Eventually may not be
		// called off the test's goroutine.
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); <-tick.C {
			if _, err := os.Stat(started); err == nil {
				return
			}
		}
	}()
	_, err = e.Page(ctx, samplePNG(t))
	require.ErrorIs(t, err, context.Canceled)
	require.False(t, errors.Is(err, ErrTimeout))
}

func TestPage_BadImage_IsRefusedBeforeTheCommandRuns(t *testing.T) {
	t.Parallel()
	marker := filepath.Join(t.TempDir(), "ran")
	e, err := New(Config{Command: fakeCommand(t, "eng", "touch '"+marker+"'")})
	require.NoError(t, err)
	_, err = e.Page(context.Background(), pngHeaderOnly(100000, 100000))
	require.ErrorIs(t, err, ErrImageTooLarge)
	_, err = e.Page(context.Background(), []byte("not an image"))
	require.ErrorIs(t, err, ErrUnsupportedMediaType)
	require.NoFileExists(t, marker)
}

// alive: the process exists and is not a zombie waiting to be reaped.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}
