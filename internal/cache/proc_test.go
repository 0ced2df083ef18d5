package cache

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The tests here run the test binary again as a child process: TestMain
// (in main_test.go) calls child when ChildEnv names a mode.

// ChildEnv names the mode of a child process, and childDir its cache.
const (
	ChildEnv = "CASTCHUNK_CACHE_TEST_CHILD"
	childDir = "CASTCHUNK_CACHE_TEST_DIR"
	childArg = "CASTCHUNK_CACHE_TEST_ARG"
)

// Child runs a child process's mode, and returns its exit status.
func Child(mode string) int {
	var err error
	switch mode {
	case "share":
		err = shareChild(os.Getenv(childDir), os.Getenv(childArg))
	case "write-forever":
		err = writeForever(os.Getenv(childDir), os.Getenv(childArg))
	default:
		err = fmt.Errorf("unknown mode %q", mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	return 0
}

// command is the test binary run as a child in mode.
func command(mode, dir, arg string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), ChildEnv+"="+mode, childDir+"="+dir, childArg+"="+arg)
	cmd.Stderr = os.Stderr
	return cmd
}

// shareEntries is how many entries each sharing child writes of its own;
// it also writes a quarter as many that both write.
const shareEntries = 2000

// shareKey is the key and entry of the i'th entry of child id ("both" for
// those both write).
func shareKey(c *Cache, id string, i int) (Key, Entry) {
	return c.Key("python", fmt.Appendf(nil, "%s-%d", id, i)), testEntry(uint64(i)<<8|uint64(len(id)), 1+i%60)
}

// shareChild writes its entries, and the shared ones, while reading the
// other child's as they come (each hit must be right); then it waits for
// the other's last entry, so that both ran at once, and reads all of the
// other's.
func shareChild(dir, id string) error {
	other := map[string]string{"a": "b", "b": "a"}[id]
	c, err := Open(dir, "v1")
	if err != nil {
		return err
	}
	check := func(who string, i int) (bool, error) {
		k, want := shareKey(c, who, i)
		got, ok := c.Get(k)
		if ok && !reflect.DeepEqual(got, want) {
			return false, fmt.Errorf("%s: entry %s-%d is wrong", id, who, i)
		}
		return ok, nil
	}
	r := rand.New(rand.NewPCG(uint64(len(id)), 1))
	for i := range shareEntries {
		k, e := shareKey(c, id, i)
		if err := c.Put(k, e); err != nil {
			return err
		}
		if i%4 == 0 {
			k, e := shareKey(c, "both", i/4)
			if err := c.Put(k, e); err != nil {
				return err
			}
		}
		if _, err := check(other, r.IntN(shareEntries)); err != nil {
			return err
		}
	}
	// No wall-clock limit: the parent's test times out if the other
	// child never writes.
	for {
		ok, err := check(other, shareEntries-1)
		if err != nil {
			return err
		}
		if ok {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	for i := range shareEntries {
		if ok, err := check(other, i); err != nil {
			return err
		} else if !ok {
			return fmt.Errorf("%s: entry %s-%d missing", id, other, i)
		}
	}
	if err := c.Repaired(); err != nil {
		return err
	}
	return c.Close()
}

// TestConcurrentProcesses: two processes share one cache, both writing
// (some of the same entries) and reading at once; every entry reads back
// right, in them and after.
func TestConcurrentProcesses(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for _, id := range []string{"a", "b"} {
		cmd := command("share", dir, id)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	c, err := Open(dir, "v1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, id := range []string{"a", "b", "both"} {
		n := shareEntries
		if id == "both" {
			n /= 4
		}
		for i := range n {
			k, want := shareKey(c, id, i)
			if got, ok := c.Get(k); !ok || !reflect.DeepEqual(got, want) {
				t.Fatalf("entry %s-%d: hit %v, right %v", id, i, ok, reflect.DeepEqual(got, want))
			}
		}
	}
	if s := c.Stats(); s.Entries != 2*shareEntries+shareEntries/4 {
		t.Errorf("%d entries, want %d", s.Entries, 2*shareEntries+shareEntries/4)
	}
	checkIntegrity(t, c)
}

// checkIntegrity runs SQLite's full check of c's database.
func checkIntegrity(t *testing.T, c *Cache) {
	t.Helper()
	c.dbMu.RLock()
	defer c.dbMu.RUnlock()
	var res string
	if err := c.db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check: %q, %v", res, err)
	}
}

// killKey is the key and entry number i of writeForever: some large, so
// that a write spans pages of overflow.
func killKey(c *Cache, i int) (Key, Entry) {
	n := 1 + i%30
	if i%17 == 0 {
		n = 3000 + i%1000
	}
	return c.Key("go", fmt.Appendf(nil, "kill-%d", i)), testEntry(uint64(i), n)
}

// writeForever puts entries from number from on, printing each number
// once Put returned, until it is killed.
func writeForever(dir, from string) error {
	i, err := strconv.Atoi(from)
	if err != nil {
		return err
	}
	c, err := Open(dir, "v1")
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	for ; ; i++ {
		k, e := killKey(c, i)
		if err := c.Put(k, e); err != nil {
			return err
		}
		if i%10 == 0 { // a hit now and then, and the time of use it writes
			c.Get(k)
		}
		fmt.Fprintln(out, i)
		out.Flush()
	}
}

// TestKillDuringWrites kills (SIGKILL) a process in the middle of writing
// entries, at random moments, several times over one cache. After each,
// every entry reads back exactly as written or is a miss, never wrong; the
// database needs no repair, passes SQLite's integrity check, and takes
// new entries.
func TestKillDuringWrites(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 3))
	next, hits := 0, 0
	for round := range 4 {
		cmd := command("write-forever", dir, strconv.Itoa(next))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it write a few batches, then kill it a moment later.
		sc := bufio.NewScanner(stdout)
		last, wait := next, 150+r.IntN(400)
		for sc.Scan() {
			if last, err = strconv.Atoi(strings.TrimSpace(sc.Text())); err != nil {
				t.Fatal(err)
			}
			if last-next >= wait {
				break
			}
		}
		time.Sleep(time.Duration(r.IntN(20)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		for sc.Scan() {
			last, _ = strconv.Atoi(strings.TrimSpace(sc.Text()))
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: the child was not killed: %v", round, err)
		}

		c, err := Open(dir, "v1")
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Repaired(); err != nil {
			t.Errorf("round %d: kill -9 damaged the database: %v", round, err)
		}
		roundHits := 0
		for i := 0; i <= last+batchMax; i++ {
			k, want := killKey(c, i)
			got, ok := c.Get(k)
			if ok && !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d: entry %d is wrong", round, i)
			}
			if ok && i >= next {
				roundHits++
			}
		}
		t.Logf("round %d: killed after entry %d; %d of entries %d to %d stored", round, last, roundHits, next, last)
		hits += roundHits
		checkIntegrity(t, c)
		k, e := c.Key("go", []byte("after")), testEntry(9, 9)
		if err := c.Put(k, e); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		next = last + batchMax + 1
	}
	if hits == 0 {
		t.Error("no entry written before a kill survived it")
	}
}
