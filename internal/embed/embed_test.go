package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/castchunk/castchunk/internal/cache"
	"github.com/castchunk/castchunk/internal/embed/embedtest"
)

const dim = 8

// newClient makes a Client of the fake server, whose waits between
// retries are recorded (in *waits, when not nil) instead of taken.
func newClient(t *testing.T, opt Options, waits *[]time.Duration) *Client {
	t.Helper()
	if opt.Model == "" {
		opt.Model = "fake-embed"
	}
	c, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		if waits != nil {
			*waits = append(*waits, d)
		}
		return ctx.Err()
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// want is what a Client must return for a text of the fake server.
func want(text string) []float32 {
	if text == "" {
		text = " "
	}
	v := embedtest.Vector(text, dim)
	if !normalize(v) {
		panic("a zero vector")
	}
	return v
}

func texts(n int) []string {
	var ts []string
	for i := range n {
		ts = append(ts, fmt.Sprintf("func f%d() { return %d }", i, i))
	}
	return ts
}

func checkVectors(t *testing.T, got [][]float32, ts []string) {
	t.Helper()
	if len(got) != len(ts) {
		t.Fatalf("%d vectors for %d texts", len(got), len(ts))
	}
	for i, v := range got {
		if !reflect.DeepEqual(v, want(ts[i])) {
			t.Fatalf("vector %d (%q): %v, want %v", i, ts[i], v, want(ts[i]))
		}
		var s float64
		for _, x := range v {
			s += float64(x) * float64(x)
		}
		if math.Abs(s-1) > 1e-5 {
			t.Fatalf("vector %d has squared length %v", i, s)
		}
	}
}

// TestBatchesInOrder: 10 texts in batches of 3 are 4 requests of 3, 3, 3
// and 1 texts, in flight together; the server answers them in the reverse
// of their arrival, each with its entries in reverse index order, and the
// vectors still come back in the texts' order.
func TestBatchesInOrder(t *testing.T) {
	s := embedtest.NewServer(t, dim)
	const batches = 4
	var (
		mu       sync.Mutex
		arrived  int
		all      = make(chan struct{})
		finished [batches + 1]chan struct{}
	)
	for i := range finished {
		finished[i] = make(chan struct{})
	}
	s.SetFault(func(w http.ResponseWriter, r *http.Request, req embedtest.Request) bool {
		mu.Lock()
		arrived++
		k := arrived
		if arrived == batches {
			close(all)
		}
		mu.Unlock()
		<-all
		if k < batches {
			<-finished[k+1]
		}
		s.Answer(w, req)
		http.NewResponseController(w).Flush()
		close(finished[k])
		return true
	})
	var progress [][2]int
	c := newClient(t, Options{URL: s.URL, Batch: 3, Concurrency: batches, Progress: func(done, total int) {
		progress = append(progress, [2]int{done, total})
	}}, nil)
	ts := texts(10)
	got, err := c.Embed(context.Background(), ts)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, got, ts)
	var sizes []int
	for _, r := range s.Log() {
		sizes = append(sizes, len(r.Input))
		i := slices.Index(ts, r.Input[0])
		if i%3 != 0 || !slices.Equal(r.Input, ts[i:min(i+3, len(ts))]) {
			t.Errorf("a request of %q: not a batch of consecutive texts", r.Input)
		}
		if r.Model != "fake-embed" || r.Format != "float" || r.Auth != "" {
			t.Errorf("request %+v", r)
		}
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{1, 3, 3, 3}) {
		t.Errorf("batch sizes %v, want 1, 3, 3, 3", sizes)
	}
	if st := c.Stats(); st != (Stats{Requests: 4, Texts: 10}) {
		t.Errorf("stats %+v", st)
	}
	if len(progress) != batches || progress[len(progress)-1] != [2]int{10, 10} {
		t.Errorf("progress %v: want 4 reports ending at 10 of 10", progress)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i][0] <= progress[i-1][0] {
			t.Errorf("progress %v does not increase", progress)
		}
	}
}

// TestConcurrencyIsBounded: never more requests in flight than
// Concurrency.
func TestConcurrencyIsBounded(t *testing.T) {
	s := embedtest.NewServer(t, dim)
	var mu sync.Mutex
	inflight, most := 0, 0
	s.SetFault(func(w http.ResponseWriter, r *http.Request, req embedtest.Request) bool {
		mu.Lock()
		inflight++
		most = max(most, inflight)
		mu.Unlock()
		s.Answer(w, req)
		mu.Lock()
		inflight--
		mu.Unlock()
		return true
	})
	c := newClient(t, Options{URL: s.URL, Batch: 1, Concurrency: 2}, nil)
	ts := texts(20)
	got, err := c.Embed(context.Background(), ts)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, got, ts)
	if most > 2 || s.Requests() != 20 {
		t.Errorf("%d requests, %d at most in flight: want 20, at most 2", s.Requests(), most)
	}
}

// TestRepeatsAndEmptyTexts: a text repeated is sent once, and each copy
// gets its own slice; "" (which the server refuses) is sent as a space.
func TestRepeatsAndEmptyTexts(t *testing.T) {
	s := embedtest.NewServer(t, dim)
	c := newClient(t, Options{URL: s.URL}, nil)
	ts := []string{"a b", "", "a b", "c", ""}
	got, err := c.Embed(context.Background(), ts)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, got, ts)
	if log := s.Log(); len(log) != 1 || !slices.Equal(log[0].Input, []string{"a b", " ", "c"}) {
		t.Errorf("requests %+v: want one of a b, space, c", log)
	}
	got[0][0] = 42
	if got[2][0] == 42 {
		t.Error("two texts share a vector's numbers")
	}
	if got, err := c.Embed(context.Background(), nil); err != nil || len(got) != 0 {
		t.Errorf("no texts: %v, %v", got, err)
	}
}

// TestRetries: 429 and 503 are retried after the backoff, doubling with
// jitter, or the server's Retry-After (capped); past Retries the error
// names the status, the message and the retries.
func TestRetries(t *testing.T) {
	ts := texts(2)
	for _, tc := range []struct {
		name       string
		fault      embedtest.Fault
		retries    int
		waits      [][2]time.Duration // each wait's range
		err        string             // "" for success
		requests   int
		retriedNum int
	}{
		{
			name:  "429 with Retry-After",
			fault: embedtest.Status(2, http.StatusTooManyRequests, "7", "Rate limit reached"),
			waits: [][2]time.Duration{{7 * time.Second, 7 * time.Second}, {7 * time.Second, 7 * time.Second}},
		},
		{
			name:  "503 backs off",
			fault: embedtest.Status(3, http.StatusServiceUnavailable, "", "loading model"),
			waits: [][2]time.Duration{{250 * time.Millisecond, 500 * time.Millisecond}, {500 * time.Millisecond, time.Second}, {time.Second, 2 * time.Second}},
		},
		{
			name:  "Retry-After capped",
			fault: embedtest.Status(1, http.StatusTooManyRequests, "3600", "slow down"),
			waits: [][2]time.Duration{{32 * time.Second, 32 * time.Second}},
		},
		{
			name:  "Retry-After as a date in the past",
			fault: embedtest.Status(1, http.StatusServiceUnavailable, "Mon, 02 Jan 2006 15:04:05 GMT", "busy"),
			waits: [][2]time.Duration{{0, 0}},
		},
		{
			name:    "gives up",
			fault:   embedtest.Status(100, http.StatusServiceUnavailable, "", "Service overloaded, try later"),
			retries: 2,
			waits:   [][2]time.Duration{{250 * time.Millisecond, 500 * time.Millisecond}, {500 * time.Millisecond, time.Second}},
			err:     `: HTTP 503 Service Unavailable: "Service overloaded, try later" (after 2 retries)`,
		},
		{
			name:    "no retries",
			fault:   embedtest.Status(100, http.StatusInternalServerError, "", "oops"),
			retries: -1,
			err:     `: HTTP 500 Internal Server Error: "oops"`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := embedtest.NewServer(t, dim)
			s.SetFault(tc.fault)
			var waits, told []time.Duration
			c := newClient(t, Options{URL: s.URL, Retries: tc.retries, OnRetry: func(err error, wait time.Duration) {
				if !strings.HasPrefix(err.Error(), "embedder "+s.URL+"/embeddings: HTTP ") {
					t.Errorf("OnRetry(%v)", err)
				}
				told = append(told, wait)
			}}, &waits)
			got, err := c.Embed(context.Background(), ts)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				checkVectors(t, got, ts)
			} else {
				if err == nil || !strings.HasPrefix(err.Error(), "embedder "+s.URL+"/embeddings: ") || !strings.HasSuffix(err.Error(), tc.err) {
					t.Fatalf("error %v, want one ending %s", err, tc.err)
				}
				var e *Error
				if !errors.As(err, &e) || e.Status == 0 || e.Retries != max(tc.retries, 0) {
					t.Errorf("error %#v", e)
				}
			}
			if len(waits) != len(tc.waits) || !slices.Equal(waits, told) {
				t.Fatalf("waits %v, told %v, want %d", waits, told, len(tc.waits))
			}
			for i, w := range waits {
				if w < tc.waits[i][0] || w > tc.waits[i][1] {
					t.Errorf("wait %d: %v, want %v to %v", i, w, tc.waits[i][0], tc.waits[i][1])
				}
			}
			if st := c.Stats(); st.Requests != len(tc.waits)+1 || st.Retried != len(tc.waits) || s.Requests() != st.Requests {
				t.Errorf("stats %+v, %d requests served: want %d retries", st, s.Requests(), len(tc.waits))
			}
		})
	}
}

// TestFinalAnswers: 4xx other than 429, and 501, are not retried, and say
// what to check.
func TestFinalAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, key, serverKey string
		fault                embedtest.Fault
		want                 string
	}{
		{name: "401 without a key", serverKey: "sk-right",
			want: `: HTTP 401 Unauthorized: "Incorrect API key provided." (no key was sent: set CASTCHUNK_EMBED_KEY)`},
		{name: "401 with a wrong key", key: "sk-wrong", serverKey: "sk-right",
			want: `: HTTP 401 Unauthorized: "Incorrect API key provided." (check the key in CASTCHUNK_EMBED_KEY)`},
		{name: "403", key: "k", fault: embedtest.Status(100, http.StatusForbidden, "", "forbidden"),
			want: `: HTTP 403 Forbidden: "forbidden" (check the key in CASTCHUNK_EMBED_KEY)`},
		{name: "404", fault: embedtest.Status(100, http.StatusNotFound, "", `model "fake-embed" not found, try pulling it first`),
			want: `: HTTP 404 Not Found: "model \"fake-embed\" not found, try pulling it first" (check the URL, the API's base such as http://127.0.0.1:11434/v1 or its /embeddings, and the model "fake-embed")`},
		{name: "400", fault: embedtest.Status(100, http.StatusBadRequest, "", "input is too large to process"),
			want: `: HTTP 400 Bad Request: "input is too large to process" (the request held 2 texts, the longest 25 bytes)`},
		{name: "501", fault: embedtest.Status(100, http.StatusNotImplemented, "", "This server does not support embeddings. Start it with `--embeddings`"),
			want: ": HTTP 501 Not Implemented: \"This server does not support embeddings. Start it with `--embeddings`\""},
		{name: "a long message, with control characters", fault: embedtest.Status(100, http.StatusBadRequest, "", "bad\x1b[31m\n"+strings.Repeat("é", 300)),
			want: `: HTTP 400 Bad Request: "bad [31m ` + strings.Repeat("é", 95) + `…" (the request held 2 texts, the longest 25 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := embedtest.NewServer(t, dim)
			s.SetKey(tc.serverKey)
			s.SetFault(tc.fault)
			c := newClient(t, Options{URL: s.URL, Key: tc.key}, nil)
			_, err := c.Embed(context.Background(), []string{"func f0() { return 0 }   ", "x"})
			if err == nil || err.Error() != "embedder "+s.URL+"/embeddings"+tc.want {
				t.Fatalf("error\n%v\nwant\nembedder %s/embeddings%s", err, s.URL, tc.want)
			}
			if s.Requests() != 1 {
				t.Errorf("%d requests: want 1 (no retry)", s.Requests())
			}
			if tc.key != "" {
				if auth := s.Log()[0].Auth; auth != "Bearer "+tc.key {
					t.Errorf("Authorization %q", auth)
				}
			}
		})
	}
}

// TestDeadEndpoints: a closed port, a peer that accepts and never
// answers, one that hangs at the HTTP level and one that drops the
// connection mid-answer each end in an error, retried and named.
func TestDeadEndpoints(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedURL := "http://" + closed.Addr().String() + "/v1"
	closed.Close()

	mute := muteListener(t)
	hang := embedtest.NewServer(t, dim)
	hang.SetFault(embedtest.Hang)
	drop := embedtest.NewServer(t, dim)
	drop.SetFault(embedtest.Drop)

	for _, tc := range []struct {
		name, url string
		timeout   time.Duration // 0: the default, which a failing peer never reaches
		want      string
		is        error
	}{
		{"connection refused", closedURL, 0, "connection refused (after 2 retries)", syscall.ECONNREFUSED},
		{"accepts, never answers", mute, 50 * time.Millisecond, "no answer within 50ms (after 2 retries)", context.DeadlineExceeded},
		{"HTTP request held", hang.URL, 50 * time.Millisecond, "no answer within 50ms (after 2 retries)", context.DeadlineExceeded},
		{"dropped mid-answer", drop.URL, 0, "the connection closed before the answer ended (after 2 retries)", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var waits []time.Duration
			c := newClient(t, Options{URL: tc.url, Retries: 2, Timeout: tc.timeout}, &waits)
			_, err := c.Embed(context.Background(), texts(3))
			if err == nil || !strings.HasPrefix(err.Error(), "embedder "+strings.TrimSuffix(tc.url, "/v1")) || !strings.HasSuffix(err.Error(), tc.want) {
				t.Fatalf("error %v, want one ending %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if len(waits) != 2 || c.Stats().Requests != 3 {
				t.Errorf("%d waits, %+v", len(waits), c.Stats())
			}
		})
	}
}

// TestNotAnEndpoint: a peer that does not speak HTTP, or speaks HTTP to
// an https:// URL, is not retried.
func TestNotAnEndpoint(t *testing.T) {
	garbled := embedtest.NewServer(t, dim)
	garbled.SetFault(func(w http.ResponseWriter, r *http.Request, req embedtest.Request) bool {
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			conn.Close()
		}
		return true
	})
	plain := embedtest.NewServer(t, dim)
	for url, want := range map[string]string{
		garbled.URL: `: not an HTTP server: malformed HTTP response "SSH-2.0-OpenSSH_9.6"`,
		"https://" + strings.TrimPrefix(plain.URL, "http://"): ": the server speaks HTTP, not HTTPS: use an http:// URL",
	} {
		c := newClient(t, Options{URL: url}, nil)
		_, err := c.Embed(context.Background(), texts(1))
		if err == nil || !strings.HasSuffix(err.Error(), want) || c.Stats().Requests != 1 {
			t.Errorf("error %v, %+v: want one request and an error ending %s", err, c.Stats(), want)
		}
	}
}

// muteListener accepts connections, reads them and never answers; it
// returns the URL of an endpoint there.
func muteListener(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				buf := make([]byte, 4096)
				for {
					if _, err := conn.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/v1"
}

// answer is a Fault that answers 200 with body(req).
func answer(body func(req embedtest.Request) string) embedtest.Fault {
	return func(w http.ResponseWriter, r *http.Request, req embedtest.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body(req)))
		return true
	}
}

// entries writes an answer's data entries: index i, vector v(i).
func entries(n int, index func(i int) string, v func(i int) []float32) string {
	var es []string
	for i := range n {
		b, _ := json.Marshal(v(i))
		es = append(es, fmt.Sprintf(`{"object":"embedding",%s"embedding":%s}`, index(i), b))
	}
	return `{"object":"list","data":[` + strings.Join(es, ",") + `]}`
}

func plainIndex(i int) string  { return fmt.Sprintf(`"index":%d,`, i) }
func fullVector(int) []float32 { return []float32{1, 2, 3} }

// TestBadAnswers: an answer that is not one vector per text, of one
// length, is an error, not retried.
func TestBadAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		body func(req embedtest.Request) string
		want string
	}{
		{"one vector shorter", func(req embedtest.Request) string {
			return entries(3, plainIndex, func(i int) []float32 { return fullVector(i)[:3-i/2] })
		}, "the answer holds vectors of 3 and of 2 numbers (index 2)"},
		{"an index missing", func(req embedtest.Request) string {
			return entries(3, func(i int) string {
				if i == 1 {
					return ""
				}
				return plainIndex(i)
			}, fullVector)
		}, "entry 1 of the answer has no index"},
		{"an index twice", func(req embedtest.Request) string {
			return entries(3, func(i int) string { return plainIndex(min(i, 1)) }, fullVector)
		}, "the answer has index 1 twice (and lacks another)"},
		{"an index out of range", func(req embedtest.Request) string {
			return entries(3, func(i int) string { return plainIndex(i + 1) }, fullVector)
		}, "the answer has index 3, for 3 texts"},
		{"too few vectors", func(req embedtest.Request) string {
			return entries(2, plainIndex, fullVector)
		}, "the answer holds 2 vectors for 3 texts"},
		{"empty vectors", func(req embedtest.Request) string {
			return entries(3, plainIndex, func(int) []float32 { return []float32{} })
		}, "the vector of index 0 is empty"},
		{"a zero vector", func(req embedtest.Request) string {
			return entries(3, plainIndex, func(i int) []float32 { return []float32{0, float32(i % 2), 0} })
		}, `the vector of text 0 ("func f0() { return 0 }") is all zeros, which has no direction: it cannot be scaled to unit length`},
		{"too long vectors", func(req embedtest.Request) string {
			return entries(3, plainIndex, func(int) []float32 { return make([]float32, MaxDim+1) })
		}, "the vector of index 0 holds 16385 numbers, over the limit of 16384"},
		{"a number too large", func(req embedtest.Request) string {
			return `{"data":[{"index":0,"embedding":[1e39]},{"index":1,"embedding":[1]},{"index":2,"embedding":[1]}]}`
		}, "the answer is not an embeddings response: json: cannot unmarshal number 1e39 into Go struct field .data.embedding of type float32"},
		{"base64", func(req embedtest.Request) string {
			return `{"data":[{"index":0,"embedding":"AACAPw=="}]}`
		}, "the answer is not an embeddings response: json: cannot unmarshal string into Go struct field .data.embedding of type []float32"},
		{"not JSON", func(req embedtest.Request) string {
			return "<html><body>502 Bad Gateway</body></html>"
		}, `the answer is not JSON (invalid character '<' looking for beginning of value): "<html><body>502 Bad Gateway</body></html>"`},
		{"no data", func(req embedtest.Request) string { return `{"object":"list"}` },
			`the answer is not an embeddings response: it has no "data"`},
		{"an error in a 200", func(req embedtest.Request) string { return `{"error":{"message":"model is loading"}}` },
			`the server answered an error: "model is loading"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := embedtest.NewServer(t, dim)
			s.SetFault(answer(tc.body))
			c := newClient(t, Options{URL: s.URL}, nil)
			_, err := c.Embed(context.Background(), texts(3))
			if err == nil || err.Error() != "embedder "+s.URL+"/embeddings: "+tc.want {
				t.Fatalf("error\n%v\nwant\n%s", err, tc.want)
			}
			if s.Requests() != 1 {
				t.Errorf("%d requests: want 1", s.Requests())
			}
		})
	}
}

// TestLengthsAcrossBatches: a later batch whose vectors have another
// length than the first's is an error naming both.
func TestLengthsAcrossBatches(t *testing.T) {
	s := embedtest.NewServer(t, dim)
	s.SetFault(func(w http.ResponseWriter, r *http.Request, req embedtest.Request) bool {
		if req.N == 1 {
			return false
		}
		answer(func(req embedtest.Request) string {
			return entries(len(req.Input), plainIndex, func(int) []float32 { return []float32{1, 2} })
		})(w, r, req)
		return true
	})
	c := newClient(t, Options{URL: s.URL, Batch: 2, Concurrency: 1}, nil)
	_, err := c.Embed(context.Background(), texts(4))
	if err == nil || !strings.HasSuffix(err.Error(), `: the endpoint gave vectors of 8 and of 2 numbers for model "fake-embed"`) {
		t.Fatalf("error %v", err)
	}
}

// TestHugeAnswer: an answer of 300 MB is refused once it passes the limit
// (2 MiB for one text): the client neither reads nor keeps the rest.
func TestHugeAnswer(t *testing.T) {
	s := embedtest.NewServer(t, dim)
	const total = 300 << 20
	written := make(chan int, 1)
	s.SetFault(func(w http.ResponseWriter, r *http.Request, req embedtest.Request) bool {
		w.Header().Set("Content-Type", "application/json")
		n, _ := w.Write([]byte(`{"data":[{"index":0,"embedding":[`))
		chunk := []byte(strings.Repeat("0.125,", 64<<10/6))
		for n < total {
			m, err := w.Write(chunk)
			n += m
			if err != nil {
				break
			}
		}
		written <- n
		return true
	})
	c := newClient(t, Options{URL: s.URL}, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := c.Embed(context.Background(), []string{"one text"})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.HasSuffix(err.Error(), ": the response to 1 text is larger than 1 MiB (512 KiB per text, and 512 KiB): refused") {
		t.Fatalf("error %v", err)
	}
	if n := <-written; n >= total {
		t.Errorf("the server wrote all its %d bytes", n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("%d MiB allocated", alloc>>20)
	}
}

// TestCancel: cancelling the context ends a call at once, whether a
// request is in flight or the client is waiting to retry.
func TestCancel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault func(arrived chan<- struct{}) embedtest.Fault
	}{
		{"in flight", func(arrived chan<- struct{}) embedtest.Fault {
			return func(w http.ResponseWriter, r *http.Request, req embedtest.Request) bool {
				arrived <- struct{}{}
				<-r.Context().Done()
				return true
			}
		}},
		{"waiting to retry", func(arrived chan<- struct{}) embedtest.Fault {
			return func(w http.ResponseWriter, r *http.Request, req embedtest.Request) bool {
				embedtest.Status(1, http.StatusServiceUnavailable, "", "busy")(w, r, req)
				arrived <- struct{}{}
				return true
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := embedtest.NewServer(t, dim)
			arrived := make(chan struct{}, 100)
			s.SetFault(tc.fault(arrived))
			c, err := New(Options{URL: s.URL, Model: "m", Backoff: time.Hour, Timeout: time.Hour, Batch: 1, Concurrency: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-arrived
				cancel()
			}()
			_, err = c.Embed(ctx, texts(10))
			if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "embedder "+s.URL) {
				t.Fatalf("error %v, want one wrapping context.Canceled", err)
			}
			if n := s.Requests(); n > 2 {
				t.Errorf("%d requests after the cancel", n)
			}
		})
	}
}

// TestCacheSavesRequests: a second Client over the same cache folder sends
// no request for texts it has seen, with the same model; another model
// misses.
func TestCacheSavesRequests(t *testing.T) {
	dir := t.TempDir()
	s := embedtest.NewServer(t, dim)
	ts := append(texts(7), "func f0() { return 0 }")
	first := newClient(t, Options{URL: s.URL, CacheDir: dir, Batch: 3}, nil)
	got, err := first.Embed(context.Background(), ts)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, got, ts)
	first.Close()
	if n := s.Texts(); n != 7 {
		t.Fatalf("%d texts embedded, want 7", n)
	}
	if w := first.Warnings(); len(w) != 0 {
		t.Errorf("warnings %v", w)
	}

	var progress [][2]int
	second := newClient(t, Options{URL: s.URL, CacheDir: dir, Progress: func(done, total int) {
		progress = append(progress, [2]int{done, total})
	}}, nil)
	got, err = second.Embed(context.Background(), ts)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, got, ts)
	if s.Requests() != 3 {
		t.Errorf("%d requests, want the first Client's 3 only", s.Requests())
	}
	if st := second.Stats(); st != (Stats{Cached: 7}) {
		t.Errorf("stats %+v, want 7 cached", st)
	}
	if !slices.Equal(progress, [][2]int{{8, 8}}) {
		t.Errorf("progress %v", progress)
	}
	// One new text: one request, of it alone.
	more := append(slices.Clone(ts), "new text")
	if _, err := second.Embed(context.Background(), more); err != nil {
		t.Fatal(err)
	}
	if log := s.Log(); len(log) != 4 || !slices.Equal(log[3].Input, []string{"new text"}) {
		t.Errorf("requests %+v", log)
	}

	other := newClient(t, Options{URL: s.URL, CacheDir: dir, Model: "other-model"}, nil)
	if _, err := other.Embed(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
	if st := other.Stats(); st.Cached != 0 || st.Texts != 7 {
		t.Errorf("another model: %+v, want every text sent", st)
	}
}

// TestCacheOfAnotherLength: vectors of the model in the cache whose length
// differs from what the endpoint now gives are an error naming both.
func TestCacheOfAnotherLength(t *testing.T) {
	dir := t.TempDir()
	s := embedtest.NewServer(t, dim)
	c := newClient(t, Options{URL: s.URL, CacheDir: dir}, nil)
	if _, err := c.Embed(context.Background(), texts(2)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	wider := embedtest.NewServer(t, 2*dim)
	want := fmt.Sprintf(`: model "fake-embed" now gives vectors of 16 numbers, but the vector cache holds vectors of 8 for it: if the model changed under its name, use a new cache folder (or delete %s) to embed everything again`, dir)
	for _, ts := range [][]string{texts(3), {"no text of this call is cached"}} {
		c = newClient(t, Options{URL: wider.URL, CacheDir: dir}, nil)
		_, err := c.Embed(context.Background(), ts)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Fatalf("%q: error %v, want one ending %s", ts, err, want)
		}
		c.Close()
	}
	// The other model's vectors are not mixed in: its own length is kept.
	c = newClient(t, Options{URL: wider.URL, CacheDir: dir, Model: "wider"}, nil)
	if _, err := c.Embed(context.Background(), texts(3)); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedCache: a cache database that is garbage is replaced, with a
// warning, and the run goes on, embedding again; a folder that cannot be
// a cache is an error of New; one that cannot be made is a warning.
func TestDamagedCache(t *testing.T) {
	dir := t.TempDir()
	s := embedtest.NewServer(t, dim)
	ts := texts(4)
	c := newClient(t, Options{URL: s.URL, CacheDir: dir}, nil)
	if _, err := c.Embed(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := os.WriteFile(filepath.Join(dir, "cache.db"), []byte(strings.Repeat("garbage ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	c = newClient(t, Options{URL: s.URL, CacheDir: dir}, nil)
	got, err := c.Embed(context.Background(), ts)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, got, ts)
	c.Close()
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0].Error(), "was damaged (not a SQLite database): replaced by a new, empty cache") {
		t.Errorf("warnings %v", w)
	}
	if st := c.Stats(); st.Cached != 0 || st.Texts != 4 {
		t.Errorf("stats %+v", st)
	}

	foreign := t.TempDir()
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	if _, err := New(Options{URL: s.URL, Model: "m", CacheDir: foreign}); !errors.Is(err, cache.ErrNotCache) {
		t.Errorf("a folder of other files: %v, want ErrNotCache", err)
	}

	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	c = newClient(t, Options{URL: s.URL, CacheDir: filepath.Join(file, "cache")}, nil)
	if _, err := c.Embed(context.Background(), ts); err != nil {
		t.Fatal(err)
	}
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0].Error(), "cannot use it, going on without it") {
		t.Errorf("warnings %v", w)
	}
}

// TestNew: the URL forms, and what New refuses.
func TestNew(t *testing.T) {
	for raw, want := range map[string][2]string{
		"http://127.0.0.1:11434/v1":               {"http://127.0.0.1:11434/v1/embeddings", "http://127.0.0.1:11434/v1/embeddings"},
		"http://127.0.0.1:11434/v1/":              {"http://127.0.0.1:11434/v1/embeddings", "http://127.0.0.1:11434/v1/embeddings"},
		"https://api.example.com/v1/embeddings":   {"https://api.example.com/v1/embeddings", "https://api.example.com/v1/embeddings"},
		"http://localhost:8080":                   {"http://localhost:8080/embeddings", "http://localhost:8080/embeddings"},
		"http://u:secret@h/v1?api-version=2#frag": {"http://u:secret@h/v1/embeddings?api-version=2", "http://h/v1/embeddings"},
	} {
		c, err := New(Options{URL: raw, Model: "m"})
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		if c.endpoint != want[0] || c.shown != want[1] {
			t.Errorf("%s: %s shown as %s, want %s shown as %s", raw, c.endpoint, c.shown, want[0], want[1])
		}
	}
	for _, tc := range []struct {
		opt  Options
		want string
	}{
		{Options{URL: "ftp://h/v1", Model: "m"}, `embedder "ftp://h/v1": not an http:// or https:// URL (such as http://127.0.0.1:11434/v1)`},
		{Options{URL: "127.0.0.1:11434", Model: "m"}, `embedder "127.0.0.1:11434": not an http:// or https:// URL (such as http://127.0.0.1:11434/v1)`},
		{Options{URL: "http:///v1", Model: "m"}, `embedder "http:///v1": not an http:// or https:// URL (such as http://127.0.0.1:11434/v1)`},
		{Options{URL: "http://h/%zz", Model: "m"}, `embedder "http://h/%zz": not a URL: invalid URL escape "%zz"`},
		{Options{URL: "http://h/v1", Model: " "}, `embedder http://h/v1/embeddings: no model named (the endpoint serves a model by its name)`},
		{Options{URL: "http://h/v1", Model: "m", Key: "sk\n"}, `embedder http://h/v1/embeddings: the key (CASTCHUNK_EMBED_KEY) holds a control character or a line break`},
		{Options{URL: "http://h/v1", Model: "m", Batch: -1}, `embedder http://h/v1/embeddings: a batch of -1 texts`},
	} {
		if _, err := New(tc.opt); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %s", tc.opt, err, tc.want)
		}
	}
}
