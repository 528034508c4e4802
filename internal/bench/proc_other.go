//go:build !linux

package bench

import (
	"errors"
	"runtime"
	"syscall"
	"time"
)

// moltgate bench reads the CPU time of its child processes from /proc,
// which only Linux has.
const Supported = false

var errNoProc = errors.New("moltgate bench needs Linux (/proc)")

func procCPU(pid int) (time.Duration, error) { return 0, errNoProc }
func childrenOf(pid int) []int               { return nil }
func selfCPU() time.Duration                 { return 0 }
func threadCPU() time.Duration               { return 0 }
func childAttr() *syscall.SysProcAttr        { return nil }
func loadAverage() float64                   { return -1 }
func cpuModel() string                       { return runtime.GOARCH }
