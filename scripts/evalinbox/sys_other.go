//go:build !linux

package main

import "syscall"

// sysProcAttr: only Linux can end a child with its parent; elsewhere the
// replay stops its processes itself (at the end, on Ctrl-C).
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
