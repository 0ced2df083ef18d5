package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// resetPeak resets castbench's own peak resident size to its current size
// and returns that: the floor of the ru_maxrss of the next child.
func resetPeak() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	return selfHWM()
}

// selfHWM is castbench's peak resident size (VmHWM), in bytes; 0 if unknown.
func selfHWM() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// treeEvery is how often watchTree samples a process tree's memory.
const treeEvery = 20 * time.Millisecond

// treePeak is the most a process tree held at one sample.
type treePeak struct {
	rss   int64 // bytes: the resident sizes of the process and its descendants, summed
	procs int   // the most processes alive at one sample
}

// watchTree samples, every treeEvery until the returned function is
// called, the resident size of process pid and of all its descendants
// (summed: pages shared between them, such as a re-executed binary's
// text, count once per process), and that function returns the peak. A
// spike shorter than treeEvery may fall between two samples.
func watchTree(pid int) (stop func() treePeak) {
	done := make(chan struct{})
	result := make(chan treePeak, 1)
	go func() {
		var peak treePeak
		t := time.NewTicker(treeEvery)
		defer t.Stop()
		for {
			// The first sample is a tick after the start: until its exec the
			// child is a copy of castbench.
			select {
			case <-done:
				result <- peak
				return
			case <-t.C:
			}
			rss, procs := treeRSS(pid)
			peak.rss, peak.procs = max(peak.rss, rss), max(peak.procs, procs)
		}
	}()
	return func() treePeak {
		close(done)
		return <-result
	}
}

// treeRSS is the resident size of process root and its descendants,
// summed, and how many of them are alive (a zombie holds no memory and is
// not counted).
func treeRSS(root int) (rss int64, procs int) {
	pids := []int{root}
	var parents map[int][]int // from /proc/*/stat, when /proc/PID/task/TID/children is missing
	for i := 0; i < len(pids); i++ {
		pid := pids[i]
		if r := procRSS(pid); r > 0 {
			rss += r
			procs++
		}
		kids, ok := procChildren(pid)
		if !ok {
			if parents == nil {
				parents = procParents()
			}
			kids = parents[pid]
		}
		pids = append(pids, kids...)
	}
	return rss, procs
}

// procRSS is a process's resident size in bytes (/proc/PID/statm); 0 if
// it is gone or a zombie.
func procRSS(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// procChildren lists a process's children from /proc/PID/task/TID/children
// (a child belongs to the thread that forked it); ok is false when the
// kernel has no such file (CONFIG_PROC_CHILDREN off). A process that is
// gone has no children.
func procChildren(pid int) (kids []int, ok bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, true
	}
	for _, t := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, t.Name(), "children"))
		if os.IsNotExist(err) {
			if _, statErr := os.Stat(filepath.Join(dir, t.Name())); statErr == nil {
				return nil, false // the thread is there but not the file
			}
			continue // the thread ended meanwhile
		}
		for _, f := range strings.Fields(string(data)) {
			if k, err := strconv.Atoi(f); err == nil {
				kids = append(kids, k)
			}
		}
	}
	return kids, true
}

// procParents maps every process's parent to its children, from the
// fourth field of /proc/PID/stat (after the command's name in parentheses).
func procParents() map[int][]int {
	m := map[int][]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return m
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			m[ppid] = append(m[ppid], pid)
		}
	}
	return m
}
