package ocr

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxStdoutBytes bounds what is kept of the command's standard output
// (only --list-langs writes there).
const maxStdoutBytes = 1 << 20

// run runs the command with args in dir (no shell: argv is passed as is),
// bounded in memory when bounded (a page, not --list-langs),
// in a process group of its own that is killed when ctx ends, so a
// tesseract that forks cannot leave children behind.
//
// The memory bound is RLIMIT_AS. When the prlimit command (util-linux) is
// present, the command is started under `prlimit --as=N --`, which sets the
// limit before it executes tesseract, so the limit holds from the first
// allocation. Without prlimit the limit is set with prlimit(2) right after
// the process starts: tesseract's first large allocation (the image) comes
// after it has loaded its language models, well after that call, but the
// bound is then best effort.
//
// Standard error is discarded: the caller's errors never carry what the
// command printed.
func (e *Engine) run(ctx context.Context, dir string, bounded bool, args ...string) (*result, error) {
	argv := append([]string{e.command}, args...)
	bounded = bounded && e.cfg.MaxMemoryBytes > 0
	if bounded && e.prlimit != "" {
		argv = append([]string{e.prlimit, "--as=" + strconv.FormatInt(e.cfg.MaxMemoryBytes, 10), "--"}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	// One thread per page: the worker runs pages in parallel itself, and
	// OpenMP threads on a shared machine make each page slower.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// After the kill, Wait gives up on output pipes a stray child may hold.
	cmd.WaitDelay = 2 * time.Second
	out := &capped{limit: maxStdoutBytes}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		return nil, ErrFailed
	}
	start := time.Now()
	if bounded && e.prlimit == "" {
		lim := &unix.Rlimit{Cur: uint64(e.cfg.MaxMemoryBytes), Max: uint64(e.cfg.MaxMemoryBytes)}
		_ = unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_AS, lim, nil)
	}
	err := cmd.Wait()
	// The group may hold children that outlived the command.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		return nil, ErrFailed
	}
	return &result{
		stdout: out.buf,
		wall:   time.Since(start),
		cpu:    cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
	}, nil
}

// result is what a successful run gave.
type result struct {
	stdout    []byte
	wall, cpu time.Duration
}

// capped keeps the first limit bytes written to it and drops the rest.
type capped struct {
	buf   []byte
	limit int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.limit - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
