package pages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// childEnv makes this test binary a renderer process (TestMain).
const childEnv = "PAGES_TEST_RENDERER_PROCESS"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		if err := Serve(childReader{}, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childReader is the renderer process's reader: "hang" never answers,
// "die" ends the process, "bomb" fails, anything else has 3 pages and
// renders as "png:<page>:<pid>".
type childReader struct{}

func (childReader) act(data []byte) error {
	switch string(data) {
	case "hang":
		select {}
	case "die":
		os.Exit(3)
	case "bomb":
		return errors.New("pdf: unreadable document: took longer than 10s")
	}
	return nil
}

func (c childReader) PageCount(_ context.Context, data []byte) (int, error) {
	if err := c.act(data); err != nil {
		return 0, err
	}
	return 3, nil
}

func (c childReader) Render(_ context.Context, data []byte, page, _ int) ([]byte, error) {
	if err := c.act(data); err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "png:%d:%d", page, os.Getpid()), nil
}

func newTestRenderer(t *testing.T, mod func(*RendererConfig)) *Renderer {
	t.Helper()
	cfg := RendererConfig{Command: []string{os.Args[0], "-test.run=^$"}, Env: append(os.Environ(), childEnv+"=1"),
		Timeout: 2 * time.Second}
	if mod != nil {
		mod(&cfg)
	}
	r, err := NewRenderer(cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// pidOf reads the renderer process's pid from a render.
func pidOf(t *testing.T, png []byte) int {
	t.Helper()
	parts := strings.Split(string(png), ":")
	require.Len(t, parts, 3, "%q", png)
	pid, err := strconv.Atoi(parts[2])
	require.NoError(t, err)
	return pid
}

func TestRenderer_RendersAndCountsInOneProcess_ADocumentsErrorComesBackAndReplacesTheProcess(t *testing.T) {
	t.Parallel()
	r := newTestRenderer(t, nil)
	ctx := context.Background()
	a, err := r.Render(ctx, []byte("pdf"), 2, 1000)
	require.NoError(t, err)
	require.NotEqual(t, os.Getpid(), pidOf(t, a), "rendered in another process")
	n, err := r.PageCount(ctx, []byte("pdf"))
	require.NoError(t, err)
	require.Equal(t, 3, n)
	b, err := r.Render(ctx, []byte("pdf"), 1, 1000)
	require.NoError(t, err)
	require.Equal(t, pidOf(t, a), pidOf(t, b), "one process renders one document after another")
	_, err = r.Render(ctx, []byte("bomb"), 1, 1000)
	require.EqualError(t, err, "pdf: unreadable document: took longer than 10s")
	require.False(t, cutShort(err), "the document's verdict: kept by the gate")
	c, err := r.Render(ctx, []byte("pdf"), 1, 1000)
	require.NoError(t, err)
	require.NotEqual(t, pidOf(t, a), pidOf(t, c), "a process that failed on a document is replaced, its memory returned")
	require.False(t, alive(pidOf(t, a)))
}

// A call past the Timeout kills its process (a document verdict, not a
// context error); the next call starts a new process.
func TestRenderer_CallOutlivesTheTimeout_ProcessKilledNextCallStartsAnother(t *testing.T) {
	t.Parallel()
	r := newTestRenderer(t, func(c *RendererConfig) { c.Timeout = 300 * time.Millisecond })
	ctx := context.Background()
	first, err := r.Render(ctx, []byte("pdf"), 1, 1000)
	require.NoError(t, err)
	_, err = r.Render(ctx, []byte("hang"), 1, 1000)
	require.ErrorContains(t, err, "took longer than 300ms")
	require.False(t, cutShort(err), "the document's fault: kept by the gate")
	require.False(t, alive(pidOf(t, first)), "the hanging process is gone")
	next, err := r.Render(ctx, []byte("pdf"), 1, 1000)
	require.NoError(t, err)
	require.NotEqual(t, pidOf(t, first), pidOf(t, next))
}

func TestRenderer_CallerGoesAway_ProcessKilledContextErrorNotTheDocuments(t *testing.T) {
	t.Parallel()
	r := newTestRenderer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := r.Render(ctx, []byte("hang"), 1, 1000)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.True(t, cutShort(err), "not kept by the gate")
	_, err = r.Render(context.Background(), []byte("pdf"), 1, 1000)
	require.NoError(t, err)
}

func TestRenderer_ProcessDiesOnADocument_ErrorThenANewProcess(t *testing.T) {
	t.Parallel()
	r := newTestRenderer(t, nil)
	_, err := r.Render(context.Background(), []byte("die"), 1, 1000)
	require.ErrorContains(t, err, "the renderer process ended")
	require.False(t, cutShort(err))
	_, err = r.Render(context.Background(), []byte("pdf"), 1, 1000)
	require.NoError(t, err)
}

func TestRenderer_CannotStart_ErrUnavailableNotKept(t *testing.T) {
	t.Parallel()
	r := newTestRenderer(t, func(c *RendererConfig) { c.Command = []string{"/nonexistent/relayops-renderer"} })
	_, err := r.Render(context.Background(), []byte("pdf"), 1, 1000)
	require.ErrorIs(t, err, ErrUnavailable)
	require.True(t, cutShort(err))
}

func TestRenderer_ProcessRunsAtTheLowerPriority(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	r := newTestRenderer(t, func(c *RendererConfig) { c.Nice = 7 })
	png, err := r.Render(context.Background(), []byte("pdf"), 1, 1000)
	require.NoError(t, err)
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pidOf(t, png)))
	require.NoError(t, err)
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	require.Equal(t, "7", fields[16], "nice, field 19 of /proc/<pid>/stat")
}

func TestNewRenderer_BadConfig_NamesTheField(t *testing.T) {
	t.Parallel()
	_, err := NewRenderer(RendererConfig{Processes: 65, Nice: 20, Timeout: -1})
	for _, want := range []string{"RendererConfig.Command", "RendererConfig.Processes", "RendererConfig.Nice", "RendererConfig.Timeout"} {
		require.ErrorContains(t, err, want)
	}
}

// alive reports whether process pid still exists (and is not a zombie of
// ours: the Renderer waits for its processes).
func alive(pid int) bool {
	_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	return err == nil
}
