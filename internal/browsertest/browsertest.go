// Package browsertest runs headless Chromium for the tests that drive a page
// (the dashboard, the console): it finds the browser or skips loudly, starts
// it with a fresh profile, keeps it on the test server (every other host
// fails, so a page cannot reach beyond this machine), and answers HTTP auth
// challenges for it.
package browsertest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// RequireEnv turns a missing Chromium from a skip into a failure (CI sets
// it).
const RequireEnv = "RELAYOPS_REQUIRE_BROWSER"

// Chromium returns the browser binary, or skips loudly (fails under
// RELAYOPS_REQUIRE_BROWSER=1) when there is none.
func Chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	msg := "browsertest: chromium not found (Debian package chromium); browser test skipped"
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s, but %s=1", msg, RequireEnv)
	}
	fmt.Fprintln(os.Stderr, "WARNING: "+msg)
	t.Skip(msg)
	return ""
}

// New starts a headless Chromium with a fresh profile and returns its
// context, which ends after timeout. DNS resolves nothing but loopback.
// extra are further allocator options (a window size, say).
func New(t *testing.T, timeout time.Duration, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.UserDataDir(t.TempDir()),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts, extra...)...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// Credentials answers an HTTP auth challenge: the user name and password,
// or ok false to cancel the prompt.
type Credentials func() (user, password string, ok bool)

// Guard takes over the browser's network: requests to other hosts than host
// fail (and are counted in external, which may be nil), and each HTTP auth
// challenge is answered with creds.
func Guard(t *testing.T, ctx context.Context, host string, creds Credentials, external *atomic.Int64) {
	t.Helper()
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	challenges := chromedp.Events(ctx, fetch.AuthRequired)
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if u, err := url.Parse(ev.Request.URL); err == nil && u.Host == host {
				_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
				continue
			}
			if external != nil {
				external.Add(1)
			}
			_, _ = chromedp.Call(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		}
	}()
	go func() {
		for ev, err := range challenges {
			if err != nil {
				return
			}
			answer := &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseCancelAuth}
			if user, password, ok := creds(); ok {
				answer = &fetch.AuthChallengeResponse{Response: fetch.AuthChallengeResponseResponseProvideCredentials, Username: user, Password: password}
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueWithAuth, fetch.ContinueWithAuthParams{RequestID: ev.RequestID, AuthChallengeResponse: answer})
		}
	}()
	handle := true
	_, err := chromedp.Call(ctx, fetch.Enable, fetch.EnableParams{HandleAuthRequests: &handle})
	require.NoError(t, err)
}
