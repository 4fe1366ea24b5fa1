package main

import "syscall"

// sysProcAttr: the kernel SIGKILLs a process the replay started when the
// replay itself dies without stopping it (SIGKILL, a crash), so no
// redis-server, api or worker outlives it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
