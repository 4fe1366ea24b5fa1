//go:build unix && !linux

package proctest

import (
	"errors"
	"syscall"
)

func sysProcAttr(group bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: group}
}

// listening cannot look into another process here: the answer on the
// address is taken as the process's own.
func listening(int, bool, string) bool { return true }

// Memory is known on Linux only (/proc/<pid>/status).
func (p *Process) Memory() (peak, now int64, err error) {
	return 0, 0, errors.New("proctest: process memory is read from /proc, on Linux only")
}
