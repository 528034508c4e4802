//go:build linux

package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// userHZ is the unit of the times in /proc/PID/stat: USER_HZ, which Linux
// fixes at 100 on every architecture it exports it to user space.
const userHZ = 100

// procCPU returns the CPU time (user + system, every thread, dead ones
// included) process pid has used, from /proc/PID/stat. Its resolution is
// 10 ms.
func procCPU(pid int) (time.Duration, error) {
	f, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	// After "pid (comm)": state is field 3, utime 14 and stime 15.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("read /proc/%d/stat: bad times", pid)
	}
	return time.Duration(ut+st) * time.Second / userHZ, nil
}

// procStat returns the fields of /proc/PID/stat after "pid (comm)".
func procStat(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 > len(b) {
		return nil, fmt.Errorf("read /proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 13 {
		return nil, fmt.Errorf("read /proc/%d/stat: unexpected format", pid)
	}
	return f, nil
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	ents, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(filepath.Base(filepath.Dir(e)))
		if err != nil {
			continue
		}
		f, err := procStat(n)
		if err != nil {
			continue
		}
		if pp, _ := strconv.Atoi(f[1]); pp == pid {
			out = append(out, n)
		}
	}
	return out
}

// selfCPU is the CPU time this process has used, from getrusage.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// threadCPU is the CPU time of the calling OS thread; the caller locks
// itself to its thread.
func threadCPU() time.Duration {
	const rusageThread = 1 // RUSAGE_THREAD
	var ru syscall.Rusage
	if syscall.Getrusage(rusageThread, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// childAttr makes a child process die with this one, so that an
// interrupted benchmark leaves nothing running.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// loadAverage is the one-minute load average.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// cpuModel names the processor.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

const Supported = true
