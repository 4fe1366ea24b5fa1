package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/relayops/relayops/internal/clock"
)

// DelivererConfig configures a Deliverer.
type DelivererConfig struct {
	Registry *Registry // required
	Clock    clock.Clock
	Logger   *slog.Logger // default: discard
	Metrics  *Metrics     // nil: none
	// AttemptTimeout bounds one request, connection included. Default 10s.
	AttemptTimeout time.Duration
	// ConnectTimeout bounds the connect and the TLS handshake of a request,
	// HeaderTimeout the wait for its response headers: a receiver that
	// hangs holds a slot that long, not AttemptTimeout. Defaults 3s and 5s,
	// at most AttemptTimeout.
	ConnectTimeout, HeaderTimeout time.Duration
	// Isolation caps what one endpoint and one tenant may hold of the
	// slots and opens the circuit of an endpoint that keeps timing out
	// (gate.go). Zero fields take its defaults.
	Isolation Isolation
	// Window is how long a delivery is retried before it is dead. Default
	// 24h.
	Window time.Duration
	// RetryBase and RetryMax shape the backoff: RetryBase·2^n, capped at
	// RetryMax, less up to 20% jitter. Defaults 5s and 1h.
	RetryBase, RetryMax time.Duration
	// DisableAfter disables an endpoint after this many failed attempts in
	// a row (any delivery); 0 takes the default, 100; negative never.
	DisableAfter int
	// Client sends the requests. Default: the registry policy's NewClient.
	Client *http.Client
	// AfterSend, if set, runs after the receiver answered and before the
	// attempt is recorded (fault injection: a crash here is a delivery the
	// receiver got and nobody recorded). An error leaves the attempt
	// unrecorded and the delivery to be tried again.
	AfterSend func(ctx context.Context) error
}

func (c DelivererConfig) withDefaults() DelivererConfig {
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	def(&c.AttemptTimeout, 10*time.Second)
	def(&c.ConnectTimeout, min(3*time.Second, c.AttemptTimeout))
	def(&c.HeaderTimeout, min(5*time.Second, c.AttemptTimeout))
	def(&c.Window, 24*time.Hour)
	def(&c.RetryBase, 5*time.Second)
	def(&c.RetryMax, time.Hour)
	if c.DisableAfter == 0 {
		c.DisableAfter = 100
	}
	if c.Client == nil && c.Registry != nil {
		c.Client = c.Registry.Policy().NewClient(ClientTimeouts{Connect: c.ConnectTimeout, Header: c.HeaderTimeout, Total: c.AttemptTimeout})
	}
	return c
}

func (c DelivererConfig) validate() error {
	var errs []error
	if c.Registry == nil {
		errs = append(errs, errors.New("webhook: DelivererConfig.Registry is required"))
	}
	if c.AttemptTimeout <= 0 || c.Window <= 0 || c.ConnectTimeout <= 0 || c.HeaderTimeout <= 0 {
		errs = append(errs, errors.New("webhook: DelivererConfig.AttemptTimeout, ConnectTimeout, HeaderTimeout and Window must be positive"))
	}
	if c.RetryBase <= 0 || c.RetryMax < c.RetryBase {
		errs = append(errs, fmt.Errorf("webhook: DelivererConfig.RetryBase must be positive and RetryMax at least RetryBase, got %s and %s", c.RetryBase, c.RetryMax))
	}
	return errors.Join(errs...)
}

// Deliverer is the Asynq handler of delivery tasks: it signs and sends one
// event to one endpoint, records the attempt and tells Asynq whether and
// when to try again.
type Deliverer struct {
	cfg  DelivererConfig
	reg  *Registry
	log  *slog.Logger
	gate *gate
}

// NewDeliverer checks cfg and returns a Deliverer.
func NewDeliverer(cfg DelivererConfig) (*Deliverer, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Deliverer{cfg: cfg, reg: cfg.Registry, log: cfg.Logger.With("component", "webhook.deliverer"), gate: newGate(cfg.Isolation)}, nil
}

// AttemptError is a failed attempt, as the handler returns it to Asynq: its
// Error() is a short code (Asynq stores it verbatim; it never quotes a
// response). Delay is when to try again; a final one unwraps to
// asynq.SkipRetry (the task is archived: dead, or its endpoint gone or
// disabled). A deferred one sent nothing: the gate held it back (Code is
// a Defer* reason), and it is no failure (IsDeferral).
type AttemptError struct {
	Code     string
	Delay    time.Duration
	Final    bool
	Deferred bool
}

func (e *AttemptError) Error() string { return e.Code }

// Unwrap makes a final AttemptError asynq.SkipRetry.
func (e *AttemptError) Unwrap() error {
	if e.Final {
		return asynq.SkipRetry
	}
	return nil
}

// RetryDelay is the delay a failed delivery asked for, for Asynq's
// RetryDelayFunc; false when err is not a delivery's.
func RetryDelay(err error) (time.Duration, bool) {
	var ae *AttemptError
	if errors.As(err, &ae) && ae.Delay > 0 {
		return ae.Delay, true
	}
	return 0, false
}

// IsDeferral reports whether err is a delivery the gate deferred: Asynq's
// IsFailure should answer false, so that the deferral neither counts as a
// retry (the attempt number stays) nor as a failure of the queue.
func IsDeferral(err error) bool {
	var ae *AttemptError
	return errors.As(err, &ae) && ae.Deferred
}

// ProcessTask delivers one task.
func (d *Deliverer) ProcessTask(ctx context.Context, t *asynq.Task) error {
	del, err := ParseDelivery(t.Payload())
	if err != nil {
		d.log.Warn("invalid webhook delivery task; archiving it")
		return &AttemptError{Code: "invalid_task", Final: true}
	}
	n, _ := asynq.GetRetryCount(ctx)
	return d.Deliver(ctx, del, n+1)
}

// Deliver makes attempt n (from 1) of delivery del, when the gate admits
// it; otherwise it defers the delivery (see Isolation).
func (d *Deliverer) Deliver(ctx context.Context, del Delivery, n int) error {
	log := d.log.With("tenant", del.Tenant, "endpoint", del.Endpoint, "webhook_id", del.WebhookID, "attempt", n)
	t, def := d.gate.wait(ctx, del.Tenant, del.Endpoint, d.cfg.Clock.Now)
	if def != nil {
		return d.deferDelivery(ctx, del, n, def, log)
	}
	held := true
	release := func(sent, timedOut bool) {
		if !held {
			return
		}
		held = false
		if opened, until := d.gate.release(t, sent, timedOut, d.cfg.Clock.Now()); opened {
			d.cfg.Metrics.circuitOpen()
			log.Warn("webhook endpoint keeps timing out: circuit open, its deliveries deferred", "until", until.UTC().Format(time.RFC3339))
		}
	}
	defer release(false, false)
	return d.deliver(ctx, del, n, log, release)
}

// deliver is Deliver once admitted; release frees the slot as soon as the
// receiver answered or failed to.
func (d *Deliverer) deliver(ctx context.Context, del Delivery, n int, log *slog.Logger, release func(sent, timedOut bool)) error {
	ep, err := d.reg.Get(ctx, del.Endpoint)
	switch {
	case errors.Is(err, ErrNotFound):
		d.cfg.Metrics.attempt(OutcomeEndpointDeleted, 0, false)
		log.Info("webhook endpoint deleted; delivery dropped")
		return nil
	case err != nil:
		d.cfg.Metrics.attempt(OutcomeStoreError, 0, false)
		return &AttemptError{Code: "store_unavailable", Delay: d.backoff(n)}
	case ep.Disabled != nil:
		d.cfg.Metrics.attempt(StatusDisabled, 0, false)
		log.Info("webhook endpoint disabled; delivery archived", "reason", ep.Disabled.Reason)
		return &AttemptError{Code: "endpoint_disabled", Final: true}
	}
	start := d.cfg.Clock.Now()
	code, errCode, retryAfter := d.send(ctx, ep, del, start)
	release(true, errCode == codeTimeout)
	a := Attempt{
		WebhookID: del.WebhookID, EventID: del.EventID, EventType: del.EventType, JobID: del.JobID,
		Attempt: n, StatusCode: code, Error: errCode, At: start.UTC().Truncate(time.Millisecond),
		ResentBy: del.ResentBy,
	}
	end := d.cfg.Clock.Now()
	a.LatencyMs = end.Sub(start).Milliseconds()
	result := d.judge(&a, del, n, retryAfter, end)
	if d.cfg.AfterSend != nil {
		if err := d.cfg.AfterSend(ctx); err != nil {
			return &AttemptError{Code: "not_recorded", Delay: d.backoff(n)}
		}
	}
	rec, err := d.reg.record(context.WithoutCancel(ctx), del.Tenant, del.Endpoint, a, d.cfg.DisableAfter)
	if err != nil {
		// Nothing recorded: Asynq tries again, with the same webhook-id,
		// which the receiver drops if it already has it.
		d.cfg.Metrics.attempt(OutcomeStoreError, end.Sub(start).Seconds(), true)
		return &AttemptError{Code: "store_unavailable", Delay: d.backoff(n)}
	}
	d.cfg.Metrics.attempt(a.Status, end.Sub(start).Seconds(), true)
	if a.Status == StatusDelivered {
		d.cfg.Metrics.delivered(end.Sub(time.UnixMilli(del.CommittedAt)).Seconds())
	}
	if rec.disabled != "" {
		d.cfg.Metrics.disable(rec.disabled)
		log.Warn("webhook endpoint disabled", "reason", rec.disabled, "consecutive_failures", rec.failures)
	}
	if a.Status == StatusDead {
		log.Warn("webhook delivery dead: retry window over", "error", a.Error)
	}
	return result
}

// deferDelivery hands a delivery the gate held back to Asynq for later,
// without sending it: counted by reason, and recorded in the endpoint's
// attempts once per opening of its circuit. A deferral past the retry
// window ends the delivery (dead), as a failed attempt would.
func (d *Deliverer) deferDelivery(ctx context.Context, del Delivery, n int, def *deferral, log *slog.Logger) error {
	now := d.cfg.Clock.Now()
	d.cfg.Metrics.deferred(def.reason)
	a := Attempt{
		WebhookID: del.WebhookID, EventID: del.EventID, EventType: del.EventType, JobID: del.JobID,
		Attempt: n, Error: def.reason, At: now.UTC().Truncate(time.Millisecond), ResentBy: del.ResentBy,
	}
	if now.Add(def.delay).After(time.UnixMilli(del.FirstAt).Add(d.cfg.Window)) {
		a.Status = StatusDead
		if _, err := d.reg.record(context.WithoutCancel(ctx), del.Tenant, del.Endpoint, a, d.cfg.DisableAfter); err != nil {
			return &AttemptError{Code: "store_unavailable", Delay: d.backoff(n)}
		}
		d.cfg.Metrics.attempt(StatusDead, 0, false)
		log.Warn("webhook delivery dead: retry window over", "error", a.Error)
		return &AttemptError{Code: def.reason, Final: true}
	}
	if def.announce {
		until := def.until.UTC().Truncate(time.Millisecond)
		a.Status, a.NextAttemptAt = StatusDeferred, &until
		// Best effort: the deferral stands whether or not it is recorded.
		_, _ = d.reg.record(context.WithoutCancel(ctx), del.Tenant, del.Endpoint, a, d.cfg.DisableAfter)
	}
	return &AttemptError{Code: def.reason, Delay: def.delay, Deferred: true}
}

// judge sets the attempt's status and returns what Asynq is told.
func (d *Deliverer) judge(a *Attempt, del Delivery, n int, retryAfter time.Duration, now time.Time) error {
	switch {
	case a.StatusCode >= 200 && a.StatusCode < 300:
		a.Status = StatusDelivered
		return nil
	case a.StatusCode == http.StatusGone:
		a.Status = StatusGone
		return &AttemptError{Code: a.Error, Final: true}
	}
	delay := max(d.backoff(n), retryAfter)
	if now.Add(delay).After(time.UnixMilli(del.FirstAt).Add(d.cfg.Window)) {
		a.Status = StatusDead
		return &AttemptError{Code: a.Error, Final: true}
	}
	a.Status = StatusRetrying
	next := now.Add(delay).UTC().Truncate(time.Millisecond)
	a.NextAttemptAt = &next
	return &AttemptError{Code: a.Error, Delay: delay}
}

// backoff is the delay after failed attempt n (from 1): RetryBase·2^(n-1)
// capped at RetryMax, less up to 20% jitter, so that deliveries failing
// together do not retry together.
func (d *Deliverer) backoff(n int) time.Duration {
	delay := d.cfg.RetryMax
	if s := n - 1; s >= 0 && s < 62 && d.cfg.RetryBase<<s > 0 && d.cfg.RetryBase<<s < delay {
		delay = d.cfg.RetryBase << s
	}
	return delay - rand.N(delay/5+1)
}

// maxRetryAfter bounds what a receiver's Retry-After can ask for.
const maxRetryAfter = 6 * time.Hour

// responseLimit is how much of a response body is read (and dropped), so
// the connection can be reused without reading an unbounded body.
const responseLimit = 4 << 10

// send signs and POSTs the delivery; it returns the status code (0: no
// answer), a short error code for a failure, and the receiver's
// Retry-After on 429 and 503.
func (d *Deliverer) send(ctx context.Context, ep *Endpoint, del Delivery, now time.Time) (int, string, time.Duration) {
	body := []byte(del.Body)
	sig, err := sign(ep.secrets.signing(now), del.WebhookID, now, body)
	if err != nil {
		return 0, "bad_secret", 0
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, bytes.NewReader(body))
	if err != nil {
		return 0, "bad_url", 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "relayops-webhooks/1")
	req.Header.Set(standardwebhooks.HeaderWebhookID, del.WebhookID)
	req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
	req.Header.Set(standardwebhooks.HeaderWebhookSignature, sig)
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		return 0, transportError(err), 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, responseLimit))
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return code, "", 0
	}
	var retryAfter time.Duration
	if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		retryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
	}
	return code, "http_" + strconv.Itoa(code), retryAfter
}

// sign returns the webhook-signature header: one "v1,<base64>" per secret,
// space-separated, computed by the Standard Webhooks library.
func sign(secrets []string, id string, at time.Time, body []byte) (string, error) {
	sigs := make([]string, 0, len(secrets))
	for _, s := range secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err != nil {
			return "", err
		}
		sig, err := wh.Sign(id, at, body)
		if err != nil {
			return "", err
		}
		sigs = append(sigs, sig)
	}
	return strings.Join(sigs, " "), nil
}

// codeTimeout is the error of an attempt that got no answer in time (connect,
// headers or the whole request): the one that counts toward opening the
// endpoint's circuit.
const codeTimeout = "timeout"

// transportError classifies a request that got no answer.
func transportError(err error) string {
	var ne net.Error
	switch {
	case refused(err):
		return "forbidden_address"
	case errors.Is(err, errRedirect):
		return "redirect_refused"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return codeTimeout
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return "dns_failed"
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return "connect_failed"
	}
	return "request_failed"
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date, bounded by
// maxRetryAfter; 0 when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	var d time.Duration
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		d = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}
