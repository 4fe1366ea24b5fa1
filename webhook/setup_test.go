package webhook

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/keyring"
	"github.com/relayops/relayops/jobs"
)

// bundle is one test's webhook parts on a miniredis.
type bundle struct {
	ctx      context.Context
	mini     *miniredis.Miniredis
	rdb      *redis.Client
	clock    *clock.Stub
	reg      *Registry
	enq      *fakeEnqueuer
	notifier *Notifier
	del      *Deliverer
}

type setupOpts struct {
	deliverer DelivererConfig // Registry, Clock and Client are filled in when unset
	keys      *keyring.Ring   // the registry's data keys; nil: secrets in clear
}

func setup(t *testing.T, o *setupOpts) *bundle {
	t.Helper()
	if o == nil {
		o = &setupOpts{}
	}
	m := miniredis.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: m.Addr(), MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	b := &bundle{ctx: context.Background(), mini: m, rdb: rdb, clock: clock.NewStub(time.Now()), enq: &fakeEnqueuer{}}
	var err error
	// Tests reach httptest receivers on 127.0.0.1 over http.
	b.reg, err = NewRegistry(RegistryConfig{Redis: rdb, Clock: b.clock, Policy: TargetPolicy{AllowInsecure: true, AllowPrivate: true},
		RotationGrace: time.Minute, Keys: o.keys})
	require.NoError(t, err)
	b.notifier, err = NewNotifier(NotifierConfig{Registry: b.reg, Enqueuer: b.enq, Clock: b.clock})
	require.NoError(t, err)
	dc := o.deliverer
	dc.Registry, dc.Clock = b.reg, b.clock
	if dc.RetryBase == 0 {
		dc.RetryBase, dc.RetryMax = time.Second, time.Minute
	}
	b.del, err = NewDeliverer(dc)
	require.NoError(t, err)
	return b
}

// register registers an endpoint for tenant acme and returns it and its secret.
func (b *bundle) register(t *testing.T, url string, events ...string) (*Endpoint, string) {
	t.Helper()
	if len(events) == 0 {
		events = EventTypes
	}
	ep, secret, err := b.reg.Create(b.ctx, Registration{Tenant: "acme", URL: url, Events: events})
	require.NoError(t, err)
	return ep, secret
}

// committed is an extraction.committed outbox row of acme:<doc>:v1.
func committed(t *testing.T, doc string) jobs.Event {
	t.Helper()
	k, err := jobs.BuildKey("acme", doc, 1)
	require.NoError(t, err)
	return jobs.Event{Type: jobs.EventExtractionCommitted, Key: k, EventID: "0123456789abcdef0123456789abcdef", At: time.Now()}
}

// deliveries are the delivery tasks enqueued so far, decoded.
func (b *bundle) deliveries(t *testing.T) []Delivery {
	t.Helper()
	b.enq.mu.Lock()
	defer b.enq.mu.Unlock()
	out := make([]Delivery, 0, len(b.enq.tasks))
	for _, tk := range b.enq.tasks {
		d, err := ParseDelivery(tk.Payload())
		require.NoError(t, err)
		out = append(out, d)
	}
	return out
}

// fakeEnqueuer records tasks and refuses a second task with a known TaskID,
// as Asynq does.
type fakeEnqueuer struct {
	mu    sync.Mutex
	tasks []*asynq.Task
	ids   map[string]bool
	opts  [][]asynq.Option
	fail  error
}

func (f *fakeEnqueuer) EnqueueContext(_ context.Context, t *asynq.Task, opts ...asynq.Option) (*asynq.TaskInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail != nil {
		return nil, f.fail
	}
	var id string
	for _, o := range opts {
		if o.Type() == asynq.TaskIDOpt {
			id = o.Value().(string)
		}
	}
	if f.ids == nil {
		f.ids = map[string]bool{}
	}
	if f.ids[id] {
		return nil, asynq.ErrTaskIDConflict
	}
	f.ids[id] = true
	f.tasks = append(f.tasks, t)
	f.opts = append(f.opts, opts)
	return &asynq.TaskInfo{ID: id}, nil
}

// receiver is an httptest endpoint that records every request and answers
// with the next of its scripted statuses (200 once they run out).
type receiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests []received
	statuses []int
	header   http.Header // added to every answer
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	t.Helper()
	r := &receiver{statuses: statuses, header: http.Header{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.requests = append(r.requests, received{header: req.Header.Clone(), body: body})
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		for k, v := range r.header {
			w.Header()[k] = v
		}
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) got() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.requests...)
}

func attemptError(t *testing.T, err error) *AttemptError {
	t.Helper()
	var ae *AttemptError
	require.True(t, errors.As(err, &ae), "want an *AttemptError, got %v", err)
	return ae
}
