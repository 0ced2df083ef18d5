package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/castchunk/castchunk/internal/embed/embedtest"
)

// TestRedirectsAreRefused: an endpoint that redirects, here to another port
// of the same host (where Go's client would send the Authorization header
// along), is a failure naming the redirect (without its credentials and
// query), not retried, and the request and its key never reach the
// redirect's target.
func TestRedirectsAreRefused(t *testing.T) {
	target := embedtest.NewServer(t, dim)
	for _, code := range []int{http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		redirector := embedtest.NewServer(t, dim)
		redirector.SetFault(func(w http.ResponseWriter, r *http.Request, req embedtest.Request) bool {
			http.Redirect(w, r, "http://user:pw@"+strings.TrimPrefix(target.URL, "http://")+"/embeddings?token=x", code)
			return true
		})
		c := newClient(t, Options{URL: redirector.URL, Key: "sk-secret", Retries: 2}, nil)
		_, err := c.Embed(context.Background(), []string{"x"})
		want := fmt.Sprintf("embedder %s/embeddings: HTTP %d %s to %s/embeddings: redirects are refused, so that the request and its key go nowhere else (give that URL, if it is the endpoint)",
			redirector.URL, code, http.StatusText(code), target.URL)
		if err == nil || err.Error() != want {
			t.Errorf("%d: error\n%v\nwant\n%s", code, err, want)
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != code {
			t.Errorf("%d: error %#v, want an *Error with status %d", code, err, code)
		}
		if redirector.Requests() != 1 {
			t.Errorf("%d: %d requests, want 1 (no retry)", code, redirector.Requests())
		}
	}
	if log := target.Log(); len(log) != 0 {
		t.Errorf("the redirect's target got %d requests, with Authorization %q", len(log), log[0].Auth)
	}
}
