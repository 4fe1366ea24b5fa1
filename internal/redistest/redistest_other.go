//go:build !linux

package redistest

import "syscall"

// sysProcAttr has nothing to add off Linux, which has no Pdeathsig: a server
// whose test process dies without cleanups is left running.
func sysProcAttr() *syscall.SysProcAttr { return nil }
