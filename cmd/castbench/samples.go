package main

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
)

// sample is one measured run.
type sample struct {
	wall, cpu time.Duration
	rss       int64 // peak resident memory of the child, bytes
	floor     int64 // castbench's own resident size when it started the child: rss is never below it
}

type samples []sample

func (s samples) walls() []time.Duration {
	var w []time.Duration
	for _, x := range s {
		w = append(w, x.wall)
	}
	slices.Sort(w)
	return w
}

func (s samples) best() time.Duration { return s.walls()[0] }

func (s samples) median() time.Duration {
	w := s.walls()
	if len(w)%2 == 1 {
		return w[len(w)/2]
	}
	return (w[len(w)/2-1] + w[len(w)/2]) / 2
}

func (s samples) medianCPU() time.Duration {
	var c []time.Duration
	for _, x := range s {
		c = append(c, x.cpu)
	}
	slices.Sort(c)
	if len(c)%2 == 1 {
		return c[len(c)/2]
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2
}

func (s samples) bestCPU() time.Duration {
	c := s[0].cpu
	for _, x := range s {
		c = min(c, x.cpu)
	}
	return c
}

func (s samples) maxRSS() int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.rss)
	}
	return m
}

func (s samples) maxFloor() int64 {
	var m int64
	for _, x := range s {
		m = max(m, x.floor)
	}
	return m
}

func (s samples) rate(bytes int) float64 { return mb(bytes) / s.best().Seconds() }

func (s samples) times() string { return fmt.Sprintf("%s (%s)", secs(s.best()), secs(s.median())) }

func mb(n int) float64            { return float64(n) / 1e6 }
func mib(n int64) float64         { return float64(n) / (1 << 20) }
func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
func ms(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func sortedKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func head(s []string, n int) string {
	if len(s) > n {
		return strings.Join(s[:n], ", ") + ", …"
	}
	return strings.Join(s, ", ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
