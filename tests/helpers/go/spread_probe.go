// Go probe for run --spread (tests/cli/run_spread.sh): Go creates its
// threads with clone(2) directly, not through pthread_create. N goroutines
// each lock an OS thread and hold it until all have started, so the runtime
// makes new threads; then every thread of the process prints its TID and
// its CPU list (Cpus_allowed_list), the main thread first as "main".
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

func cpus(pid, tid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/status", pid, tid))
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "Cpus_allowed_list:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "Cpus_allowed_list:"))
		}
	}
	return "?"
}

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	var started, done sync.WaitGroup
	started.Add(n)
	done.Add(1)
	for i := 0; i < n; i++ {
		go func() {
			runtime.LockOSThread()
			started.Done()
			done.Wait()
		}()
	}
	started.Wait()
	pid := os.Getpid()
	entries, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var tids []int
	for _, e := range entries {
		tid, _ := strconv.Atoi(e.Name())
		tids = append(tids, tid)
	}
	sort.Ints(tids)
	fmt.Printf("main %s\n", cpus(pid, pid))
	for _, tid := range tids {
		if tid != pid {
			fmt.Printf("thread %s\n", cpus(pid, tid))
		}
	}
	done.Done()
}
