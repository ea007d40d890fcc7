// Go helper for run --spread (tests/cli/run_spread_hostile.sh): the main
// goroutine keeps the main thread (locked in init), another goroutine locks
// a thread of its own and calls syscall.Exec there, so the exec comes from
// a thread other than the main one. Usage: exec_thread PROG ARG...
package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

func init() { runtime.LockOSThread() }

func main() {
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		done <- syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	}()
	fmt.Fprintln(os.Stderr, "exec_thread: exec:", <-done)
	os.Exit(121)
}
