package proctest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr: without a group, the kernel SIGKILLs the process when the
// test binary dies without its cleanups (a panic, a -timeout). A group
// leader is killed by the cleanup, which kills its whole group.
func sysProcAttr(group bool) *syscall.SysProcAttr {
	if group {
		return &syscall.SysProcAttr{Setpgid: true}
	}
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// listening reports whether the process pid (with group, any process of its
// group) holds the listening TCP socket of addr: one of the socket inodes
// among its file descriptors is a listener on that port in
// /proc/<pid>/net/tcp.
func listening(pid int, group bool, addr string) bool {
	_, port, _ := net.SplitHostPort(addr)
	want, err := strconv.Atoi(port)
	if err != nil {
		return false
	}
	pids := []int{pid}
	if group {
		pids = groupMembers(pid)
	}
	for _, p := range pids {
		if listensOn(p, want) {
			return true
		}
	}
	return false
}

func listensOn(pid, port int) bool {
	dir := fmt.Sprintf("/proc/%d", pid)
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return false
	}
	sockets := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(dir, "fd", fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			sockets[strings.TrimSuffix(inode, "]")] = true
		}
	}
	table, err := os.ReadFile(dir + "/net/tcp")
	if err != nil {
		return false
	}
	// Columns: sl local_address rem_address st … uid timeout inode; st 0A is LISTEN.
	for _, line := range strings.Split(string(table), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 10 || f[3] != "0A" || !sockets[f[9]] {
			continue
		}
		_, hexPort, _ := strings.Cut(f[1], ":")
		if n, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(n) == port {
			return true
		}
	}
	return false
}

// groupMembers lists the processes of process group pgid.
func groupMembers(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := syscall.Getpgid(pid); err == nil && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Memory reports the process's resident memory from /proc/<pid>/status:
// its peak since it started (VmHWM, the high-water mark) and now (VmRSS),
// in bytes. Child processes (OCR) are not counted.
func (p *Process) Memory() (peak, now int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid()))
	if err != nil {
		return 0, 0, fmt.Errorf("proctest: memory of %s: %w", p.Name, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmHWM" && name != "VmRSS") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("proctest: memory of %s: %s: %w", p.Name, line, err)
		}
		if name == "VmHWM" {
			peak = kb << 10
		} else {
			now = kb << 10
		}
	}
	if peak == 0 {
		return 0, 0, fmt.Errorf("proctest: memory of %s: no VmHWM in /proc/%d/status", p.Name, p.Pid())
	}
	return peak, now, nil
}
