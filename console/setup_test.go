package console_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/credential"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

const (
	tokAcme  = "tok-acme-0123456789"
	tokAlice = "tok-alice-0123456789"
	tokBob   = "tok-bob-0123456789ab"
)

var (
	tenants   = []credential.Credential{{Name: "acme", Token: tokAcme}, {Name: "globex", Token: "tok-globex-0123456789"}}
	operators = []credential.Credential{{Name: "alice", Token: tokAlice}, {Name: "bob", Token: tokBob}}
	alice     = auth{"alice", tokAlice}
	bob       = auth{"bob", tokBob}
	t0        = time.Now().UTC().Truncate(time.Millisecond)
)

// auth is HTTP Basic credentials; a zero name sends the token as bearer.
type auth struct{ name, token string }

// bundle is one API server, console included, over its own Redis.
type bundle struct {
	h     http.Handler
	mini  *miniredis.Miniredis
	store *jobs.Store
	rdb   redis.UniversalClient
	clock *clock.Stub
}

func setup(t *testing.T, modify func(*api.Config)) *bundle {
	t.Helper()
	mini, rdb := redistest.Mini(t)
	clk := clock.NewStub(t0)
	store, err := jobs.NewStore(jobs.Config{Redis: rdb, Clock: clk, Shards: 4})
	require.NoError(t, err)
	cfg := api.Config{Store: store, Tenants: tenants, Operators: operators, Clock: clk,
		Registry: prometheus.NewRegistry(), Logger: slog.New(slog.DiscardHandler)}
	if modify != nil {
		modify(&cfg)
	}
	srv, err := api.New(cfg)
	require.NoError(t, err)
	return &bundle{h: srv.Handler(), mini: mini, store: store, rdb: rdb, clock: clk}
}

// page is a received answer.
type page struct {
	status int
	header http.Header
	body   string
}

func (b *bundle) send(t *testing.T, req *http.Request, a auth) *page {
	t.Helper()
	switch {
	case a.name != "":
		req.SetBasicAuth(a.name, a.token)
	case a.token != "":
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	rec := httptest.NewRecorder()
	b.h.ServeHTTP(rec, req)
	body, err := io.ReadAll(rec.Result().Body)
	require.NoError(t, err)
	return &page{status: rec.Code, header: rec.Header(), body: string(body)}
}

func (b *bundle) get(t *testing.T, path string, a auth) *page {
	t.Helper()
	return b.send(t, httptest.NewRequest(http.MethodGet, path, nil), a)
}

func (b *bundle) post(t *testing.T, path string, form url.Values, a auth) *page {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.send(t, req, a)
}

var csrfRe = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf reads the token of the forms of a page.
func (p *page) csrf(t *testing.T) string {
	t.Helper()
	m := csrfRe.FindStringSubmatch(p.body)
	require.NotNil(t, m, "the page has a form with a CSRF token: %s", p.body)
	return m[1]
}

// invoiceResult is a committed extraction result, as the worker writes it.
const invoiceResult = `{"documentType":"invoice","invoiceNumber":"INV-7","vendor":"Acme Supplies","issueDate":"2026-03-04",
"currency":"EUR","lineItems":[{"description":"Widgets","quantity":"2","unitPrice":"50.00","amount":"100.00"}],
"subtotal":"100.00","tax":"20.00","total":"120.00","source":{"extractor":"rules"}}`

func key(t *testing.T, id string) jobs.Key {
	t.Helper()
	k, err := jobs.ParseKey(id)
	require.NoError(t, err)
	return k
}

func (b *bundle) submit(t *testing.T, id, content string) jobs.Key {
	t.Helper()
	k := key(t, id)
	_, err := b.store.Submit(context.Background(), jobs.SubmitRequest{Key: k, Content: content, Limits: jobs.DefaultLimits})
	require.NoError(t, err)
	return k
}

func (b *bundle) claim(t *testing.T, k jobs.Key) *jobs.Claim {
	t.Helper()
	c, err := b.store.Claim(context.Background(), k, "claim-"+k.String())
	require.NoError(t, err)
	return c
}

// pendingReview submits, commits and reviews a job: a pending review.
func (b *bundle) pendingReview(t *testing.T, id, content string) jobs.Key {
	t.Helper()
	k := b.submit(t, id, content)
	c := b.claim(t, k)
	cr, err := b.store.Commit(context.Background(), k, c.Fence, c.PayloadHash, []byte(invoiceResult))
	require.NoError(t, err)
	_, err = b.store.ApplyCommitted(context.Background(), k, cr.EventID)
	require.NoError(t, err)
	return k
}

// rejected submits a job and dead-letters it as a rejected document.
func (b *bundle) rejected(t *testing.T, id, content, reason string) jobs.Key {
	t.Helper()
	k := b.submit(t, id, content)
	require.NoError(t, b.store.Reject(context.Background(), k, b.claim(t, k).Fence, reason, nil))
	return k
}

// snapshot dumps every key, to prove a request changed nothing.
func (b *bundle) snapshot(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := b.rdb.Keys(ctx, "*").Result()
	require.NoError(t, err)
	out := map[string]string{}
	for _, k := range keys {
		var v any
		switch typ := b.rdb.Type(ctx, k).Val(); typ {
		case "string":
			v = b.rdb.Get(ctx, k).Val()
		case "hash":
			v = b.rdb.HGetAll(ctx, k).Val()
		case "zset":
			v = b.rdb.ZRangeWithScores(ctx, k, 0, -1).Val()
		case "stream":
			v = b.rdb.XRange(ctx, k, "-", "+").Val()
		default:
			v = typ
		}
		out[k] = fmt.Sprint(v)
	}
	return out
}
