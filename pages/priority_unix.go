//go:build unix

package pages

import "syscall"

// lowerPriority sets process pid's nice value.
func lowerPriority(pid, nice int) error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice)
}
