package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/hibiken/asynq"

	"github.com/relayops/relayops/document"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// HandlerConfig configures a Handler.
type HandlerConfig struct {
	// Store is the job store. Required.
	Store *jobs.Store
	// Extractor runs the stages. Required.
	Extractor extract.Extractor
	// Reader is the read stage: it turns the input into a document.
	// Default: document.New(document.Config{}), which reads text and XML
	// e-invoices and refuses PDFs (a deployment gives it a PDF reader).
	Reader DocumentReader
	// VisibleTotal reads the total of a hybrid PDF's visible text; nil
	// skips that check.
	VisibleTotal VisibleTotal
	// Vision reads a scan's page images (RELAYOPS_LLM_VISION); nil: a scan
	// without OCR text is no_text_layer.
	Vision Vision
	// Policy is what the deployment books (RELAYOPS_ACCEPT_DOCUMENTS).
	// Default: every booked type.
	Policy extract.Policy
	// Memory reads a document with its supplier's profile and learns the
	// profile from corrections; nil: no supplier memory.
	Memory Memory
	// Faults injects failures; nil injects none.
	Faults *Faults
	// Clock is the source of "now" for deadlines. Default clock.Real{}.
	Clock clock.Clock
	// Logger receives structured logs. Default: discard.
	Logger *slog.Logger
	// Metrics counts outcomes. Default: NewMetrics(false).
	Metrics *Metrics
	// AttemptTimeout bounds one attempt (and never reaches past the job's
	// deadlineAt). Default 5m.
	AttemptTimeout time.Duration
	// OnEnd, if set, is called after an invocation that found the job
	// ended (it ended it, found it ended, or found no job): tenant
	// admission releases the job's slot there.
	OnEnd func(ctx context.Context, k jobs.Key)
}

func (c HandlerConfig) withDefaults() HandlerConfig {
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.Metrics == nil {
		c.Metrics = NewMetrics(false)
	}
	if c.AttemptTimeout == 0 {
		c.AttemptTimeout = 5 * time.Minute
	}
	if c.Reader == nil {
		c.Reader = document.New(document.Config{})
	}
	return c
}

func (c HandlerConfig) validate() error {
	var errs []error
	if c.Store == nil {
		errs = append(errs, errors.New("worker: HandlerConfig.Store is required"))
	}
	if c.Extractor == nil {
		errs = append(errs, errors.New("worker: HandlerConfig.Extractor is required"))
	}
	if c.AttemptTimeout < 0 {
		errs = append(errs, errors.New("worker: HandlerConfig.AttemptTimeout must not be negative"))
	}
	return errors.Join(errs...)
}

// Handler is the Asynq handler of task.TypeExtract: claim the job (fence),
// run classify → extract → validate, checkpointing the output of each stage
// the extractor says is expensive (Checkpointed), commit, ack.
//
// What it returns is what Asynq records, so it is only ever nil or a
// *CodeError:
//   - nil (ack): committed; the job was already succeeded or cancelled; the
//     deadline passed (cancelled); the job does not exist; or the fence was
//     stale. A stale invocation acks because the job belongs to the
//     invocation holding the current fence: an error would make Asynq retry
//     (a new claim would take the job away from its live owner) or archive
//     (Asynq would disagree with the record). The ack itself is harmless: a
//     stale invocation is one whose lease Asynq gave away, and Asynq writes
//     nothing for a delivery whose lease has expired (its in-process lease
//     expires 30 s before the recoverer can hand the task over).
//   - a dead-letter code (archived at once): the record is dead_lettered.
//   - a retry code: the record is retrying, or nothing could be recorded.
type Handler struct {
	store          *jobs.Store
	extractor      extract.Extractor
	reader         DocumentReader
	visibleTotal   VisibleTotal
	vision         Vision
	policy         extract.Policy
	memory         Memory
	faults         *Faults
	clock          clock.Clock
	logger         *slog.Logger
	metrics        *Metrics
	attemptTimeout time.Duration
	onEnd          func(ctx context.Context, k jobs.Key)
	newToken       func() string
	setupLog       *logLimiter // the ERROR line of a refused model setup, rate-limited
}

// NewHandler checks cfg and returns a Handler.
func NewHandler(cfg HandlerConfig) (*Handler, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Handler{
		store: cfg.Store, extractor: cfg.Extractor, reader: cfg.Reader, visibleTotal: cfg.VisibleTotal,
		vision: cfg.Vision, policy: cfg.Policy, memory: cfg.Memory, faults: cfg.Faults, clock: cfg.Clock,
		logger: cfg.Logger, metrics: cfg.Metrics, attemptTimeout: cfg.AttemptTimeout, onEnd: cfg.OnEnd,
		newToken: uuid.NewString, setupLog: newLogLimiter(cfg.Clock, setupLogEvery),
	}, nil
}

// ProcessTask handles one delivery of an extract task.
func (h *Handler) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := task.ParseExtractPayload(t.Payload())
	var key jobs.Key
	if err == nil {
		key, err = jobs.ParseKey(p.JobKey)
	}
	if err != nil {
		h.logger.Warn("invalid extract task; archiving it", "code", CodeInvalidTask)
		h.logger.Debug("invalid extract task", "error", err.Error())
		h.metrics.jobOutcome("", OutcomeNotFound)
		return deadLetter(CodeInvalidTask)
	}
	a := &attempt{h: h, key: key, log: h.logger.With("tenant", key.Tenant, "job_key", key.String())}
	err = a.run(ctx)
	if h.onEnd != nil && endedOutcome(a.outcome) {
		h.onEnd(context.WithoutCancel(ctx), key)
	}
	return err
}

// endedOutcome reports whether an invocation with this outcome leaves the
// job ended (or found none): its tenant admission slot is free.
func endedOutcome(outcome string) bool {
	switch outcome {
	case OutcomeSucceeded, OutcomeDeduped, OutcomeDeadLettered, OutcomeCancelled, OutcomeNotFound:
		return true
	}
	return false
}

// attempt is one handler invocation for one job.
type attempt struct {
	h       *Handler
	key     jobs.Key
	log     *slog.Logger
	claim   *jobs.Claim // set once the job is claimed and running
	claimed time.Time   // when the claim answered: queue wait ends here
	outcome string      // the outcome counted for this invocation
}

// claimTries bounds re-runs of Claim with the same token after an error
// (the script returns the same fence to the same token).
const claimTries = 3

func (a *attempt) run(ctx context.Context) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = a.recovered(ctx, v)
		}
		a.observeQueueWait()
	}()
	// A transient or permanent fault before the claim fails the attempt as
	// soon as it is claimed, so the record and Asynq still agree.
	held := a.h.faults.Hit(PointBeforeClaim)
	c, err := a.claimJob(ctx)
	switch {
	case errors.Is(err, jobs.ErrNotFound):
		a.log.Warn("task names no job; acking it")
		a.count(OutcomeNotFound)
		return nil
	case errors.Is(err, jobs.ErrStaleFence):
		return a.stale()
	case err != nil:
		return a.unavailable("claim", err)
	case c.State != jobs.StateRunning:
		return a.terminal(c)
	}
	a.claim, a.claimed = c, a.h.clock.Now()
	if c.Recovered {
		a.h.metrics.crashRecovered(a.key.Tenant)
	}
	a.log = a.log.With("attempt", c.Attempt, "fence", c.Fence)
	a.log.Debug("attempt started", "recovered", c.Recovered, "recoveries", c.Recoveries)
	if held == nil {
		held = a.h.faults.Hit(PointAfterClaim)
	}
	if held != nil {
		return a.fail(ctx, held)
	}
	actx, cancel := a.attemptContext(ctx)
	defer cancel()
	result, err := a.pipeline(actx)
	if err == nil {
		err = actx.Err() // out of time: judged as a failure even if the stages finished
	}
	if err != nil {
		return a.fail(ctx, err)
	}
	return a.commit(ctx, result)
}

func (a *attempt) claimJob(ctx context.Context) (*jobs.Claim, error) {
	token := a.h.newToken()
	var err error
	for try := 1; ; try++ {
		var c *jobs.Claim
		c, err = a.h.store.Claim(ctx, a.key, token)
		if err == nil || errors.Is(err, jobs.ErrNotFound) || errors.Is(err, jobs.ErrStaleFence) || try == claimTries {
			return c, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(time.Duration(try) * 50 * time.Millisecond):
		}
	}
}

// terminal answers a redelivery of a job that is already terminal (or that
// the claim itself ended: past its deadline, or over its recovery cap).
func (a *attempt) terminal(c *jobs.Claim) error {
	a.log = a.log.With("state", string(c.State), "code", c.ErrorCode)
	switch c.State {
	case jobs.StateSucceeded:
		a.log.Info("job already succeeded; acking redelivery")
		a.count(OutcomeDeduped)
		return nil
	case jobs.StateCancelled:
		a.log.Info("job cancelled; acking")
		a.count(OutcomeCancelled)
		a.observeIfClaimEnded(c, OutcomeCancelled)
		return nil
	case jobs.StateDeadLettered:
		a.log.Info("job dead-lettered; archiving task")
		a.count(OutcomeDeadLettered)
		a.observeIfClaimEnded(c, OutcomeDeadLettered)
		code := c.ErrorCode
		if code == "" {
			code = jobs.CodePermanent
		}
		return deadLetter(code)
	}
	a.log.Error("claim answered a non-terminal state other than running")
	a.count(OutcomeRequeued)
	return retryLater(CodeUnavailable)
}

// attemptContext bounds the attempt by min(attempt timeout, deadlineAt).
func (a *attempt) attemptContext(ctx context.Context) (context.Context, context.CancelFunc) {
	budget := a.h.attemptTimeout
	if dl := a.claim.DeadlineAt; !dl.IsZero() {
		budget = min(budget, dl.Sub(a.h.clock.Now()))
	}
	return context.WithTimeout(ctx, budget)
}

func (a *attempt) pastDeadline() bool {
	dl := a.claim.DeadlineAt
	return !dl.IsZero() && !a.h.clock.Now().Before(dl)
}

// errStale reports a write rejected for a stale fence.
var errStale = errors.New("worker: stale fence")

// errBadOutput is a stage output that is not JSON: an extractor bug.
var errBadOutput = &CodeError{Code: jobs.CodeInternal}

// pipeline runs the stages, resuming after the last checkpointed one: the
// read stage first, then the structured path for a document that carries an
// e-invoice, else classify → extract → validate on its text.
func (a *attempt) pipeline(ctx context.Context) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(a.claim.Corrections) > 0 {
		return a.corrected(ctx)
	}
	ckpts := a.claim.Checkpoints // the claim read them with the job
	doc, err := a.read(ctx)
	if err != nil {
		return nil, err
	}
	out, err := a.extractDocument(ctx, doc, ckpts)
	if err != nil {
		return nil, keepSeller(keepFlags(err, doc.Flags), doc)
	}
	return withSeller(doc, out)
}

// extractDocument runs the stages after the read: the structured path for
// a document that carries an e-invoice, the vision model for a scan kept
// for it, else classify → extract → validate on the text.
func (a *attempt) extractDocument(ctx context.Context, doc *document.Document, ckpts map[string][]byte) ([]byte, error) {
	if doc.EInvoice != nil {
		return a.structured(ctx, doc)
	}
	if doc.Scan {
		return a.scanned(ctx, ckpts)
	}
	text := doc.Text()
	x := a.h.extractor
	cls, err := a.stage(ctx, extract.StageClassify, ckpts, func() ([]byte, error) {
		return x.Classify(ctx, text)
	})
	if err != nil {
		return nil, err
	}
	ext, err := a.stage(ctx, extract.StageExtract, ckpts, func() ([]byte, error) {
		return a.inference(func() ([]byte, error) { return x.Extract(ctx, text, cls) })
	})
	if err != nil {
		return nil, err
	}
	ext = a.withProfile(ctx, doc, ext)
	out, err := a.stage(ctx, extract.StageValidate, ckpts, func() ([]byte, error) {
		return x.Validate(ctx, ext)
	})
	a.countRead(ctx, ext, err)
	if err != nil {
		return nil, err
	}
	if out, err = doc.MarkOCR(out); err != nil {
		return nil, badResult(err)
	}
	out, err = document.WithFlags(out, doc.Flags)
	return out, badResult(err)
}

// keepFlags adds the read's flags to what a rejection keeps, so a version
// corrected from it commits them too.
func keepFlags(err error, flags []string) error {
	var r *extract.Rejection
	if len(flags) > 0 && errors.As(err, &r) && r.Extraction != nil {
		x := *r.Extraction
		for _, f := range flags {
			if !slices.Contains(x.Flags, f) {
				x.Flags = append(x.Flags, f)
			}
		}
		r.Extraction = &x
	}
	return err
}

// admit is the deployment's policy on what it books
// (RELAYOPS_ACCEPT_DOCUMENTS): a judged credit note where only invoices
// are booked is rejected document_not_accepted, keeping what was read.
func (a *attempt) admit(result []byte) error {
	var inv extract.Invoice
	if err := json.Unmarshal(result, &inv); err != nil {
		return errBadOutput
	}
	x := extract.ExtractionOf(inv)
	return a.h.policy.Admit(&inv, &x)
}

// stage returns the checkpointed output of stage name, or runs it (fault
// point first), checkpoints its output when the extractor says the stage is
// expensive (a cheap deterministic stage is recomputed after a crash
// instead), and passes the after_<name> point.
func (a *attempt) stage(ctx context.Context, name string, ckpts map[string][]byte, run func() ([]byte, error)) ([]byte, error) {
	if out, ok := ckpts[name]; ok {
		a.log.Debug("stage resumed from checkpoint", "stage", name)
		return out, nil
	}
	if err := a.h.faults.Hit(name); err != nil {
		return nil, err
	}
	start := time.Now()
	out, err := run()
	a.h.metrics.stageRun(name, err)
	a.log.Debug("stage ran", "stage", name, "ok", err == nil, "duration_ms", time.Since(start).Milliseconds())
	if err != nil {
		return nil, err
	}
	if !json.Valid(out) {
		return nil, errBadOutput
	}
	// validate's output is the result: the commit that follows stores it
	// atomically and is its checkpoint, one script fewer per job.
	if name != extract.StageValidate && a.h.extractor.Checkpointed(name) {
		if err := a.h.store.Checkpoint(context.WithoutCancel(ctx), a.key, a.claim.Fence, name, out); err != nil {
			if errors.Is(err, jobs.ErrStaleFence) {
				return nil, errStale
			}
			return nil, fmt.Errorf("checkpoint %s: %w", name, err)
		}
	}
	if err := a.h.faults.Hit("after_" + name); err != nil {
		return nil, err
	}
	return out, nil
}

// input is the job's content, read by the claim.
func (a *attempt) input() (string, error) {
	if a.claim.InputExpired {
		return "", deadLetter(CodeInputExpired)
	}
	return a.claim.Input, nil
}

// commit writes the result, the extraction.committed event and the ledger
// entry atomically. It uses a context that ignores cancellation: the fence,
// not the context, decides whether the write may land.
func (a *attempt) commit(ctx context.Context, result []byte) error {
	res, err := a.h.store.CommitWith(context.WithoutCancel(ctx), a.key, a.claim.Fence, a.claim.PayloadHash, result,
		commitOpts(a.key.Tenant, result))
	switch {
	case errors.Is(err, jobs.ErrStaleFence):
		return a.stale()
	case errors.Is(err, jobs.ErrIdempotencyConflict):
		a.h.metrics.commitConflict(a.key.Tenant)
		return a.fail(ctx, deadLetter(CodeIdempotencyConflict))
	case err != nil:
		// Unknown whether it landed: the redelivery's claim will tell
		// (succeeded → ack, running → a recovery that resumes from the
		// checkpoints).
		return a.unavailable("commit", err)
	}
	outcome := OutcomeSucceeded
	if res.Deduped {
		outcome = OutcomeDeduped
	}
	a.log.Info("job succeeded", "event_id", res.EventID, "deduped", res.Deduped)
	a.count(outcome)
	if !res.Deduped {
		a.observeEndToEnd(outcome)
	}
	if err := a.h.faults.Hit(PointAfterCommitBeforeAck); err != nil {
		// The job is committed: whatever the fault, the honest answer is a
		// redelivery, which acks as a dedupe.
		return retryLater(jobs.CodeTransient)
	}
	return nil
}

// fail records a failed attempt with the fenced write its kind calls for.
// The write ignores cancellation and is judged by the fence.
func (a *attempt) fail(ctx context.Context, cause error) error {
	if errors.Is(cause, errStale) {
		return a.stale()
	}
	kind := Classify(cause)
	if kind == KindTransient && a.pastDeadline() {
		kind = KindCancelled // a retry could only be cancelled by its claim
	}
	if kind == KindTransient && errors.Is(cause, extract.ErrSetup) {
		return a.hold(ctx, cause)
	}
	code, reason := codeOf(cause, kind), Reason(cause)
	attrs := append([]any{"kind", kind.String(), "code", code, "reason", reason}, modelAttrs(cause)...)
	a.log.Info("attempt failed", append(attrs, limitAttrs(cause)...)...)
	a.log.Debug("attempt failed: cause", "error", cause.Error())
	wctx := context.WithoutCancel(ctx)
	switch {
	case kind == KindCancelled:
		return a.end(a.h.store.Cancel(wctx, a.key, a.claim.Fence, code), OutcomeCancelled, nil)
	case kind == KindPermanent && reason != "" && code == jobs.CodePermanent:
		err := a.h.store.Reject(wctx, a.key, a.claim.Fence, reason, rejectionDetail(cause))
		if err == nil {
			a.h.metrics.rejected(reason)
		}
		return a.end(err, OutcomeDeadLettered, deadLetter(code))
	case kind == KindPermanent:
		return a.end(a.h.store.DeadLetter(wctx, a.key, a.claim.Fence, code), OutcomeDeadLettered, deadLetter(code))
	}
	st, err := a.h.store.Fail(wctx, a.key, a.claim.Fence, code)
	if err == nil && st == jobs.StateDeadLettered {
		return a.end(nil, OutcomeDeadLettered, deadLetter(jobs.CodeMaxAttemptsExceeded))
	}
	ret := &CodeError{Code: code, Retry: true}
	if me := modelError(cause); me != nil {
		ret.RetryAfter = me.RetryAfter // 429's Retry-After
	}
	return a.end(err, OutcomeRetried, ret)
}

// hold puts the job back when the model endpoint refuses the deployment's
// settings (extract.ErrSetup: a wrong API key, model or URL). No document is
// at fault and no attempt can succeed until an operator fixes the settings,
// so dead-lettering would empty the backlog into the DLQ for one wrong key:
// instead the attempt is released uncounted (the record's attempt count is
// taken back; Asynq's IsFailure is false) and retried after the extractor's
// cool-down, until the settings work or the job's deadline cancels it. The
// operator learns of it from a rate-limited ERROR line, the
// relayops_model_settings_refused gauge, the worker's /readyz and the job's
// errorCode.
func (a *attempt) hold(ctx context.Context, cause error) error {
	code := CodeModelSetup
	ret := &CodeError{Code: code, Retry: true, Uncounted: true}
	if me := modelError(cause); me != nil {
		ret.Code, ret.RetryAfter = me.Code, me.RetryAfter
	}
	attrs := append([]any{"code", ret.Code}, modelAttrs(cause)...)
	if a.h.setupLog.allow() {
		a.h.logger.Error("model endpoint refuses this deployment's settings (RELAYOPS_LLM_API_KEY, RELAYOPS_LLM_MODEL, RELAYOPS_LLM_BASE_URL): jobs wait, uncounted, until they are fixed or their deadline passes", attrs...)
	}
	a.log.Debug("attempt released: model settings refused", attrs...) // the ERROR line above speaks for all
	err := a.h.store.Release(context.WithoutCancel(ctx), a.key, a.claim.Fence, ret.Code)
	switch {
	case errors.Is(err, jobs.ErrStaleFence):
		return a.stale()
	case err != nil:
		return a.unavailable("release attempt", err)
	}
	a.count(OutcomeHeld)
	return ret
}

// modelAttrs are the log attributes of a failed model call in err: codes
// and the HTTP status, never the endpoint's message.
func modelAttrs(err error) []any {
	me := modelError(err)
	if me == nil {
		return nil
	}
	attrs := []any{"model_code", me.Code, "model_status", me.Status}
	if me.ProviderCode != "" {
		attrs = append(attrs, "provider_code", me.ProviderCode)
	}
	return attrs
}

// end finishes fail: a stale write acks, an unreachable store retries
// without a record, otherwise outcome is counted and ret returned.
func (a *attempt) end(writeErr error, outcome string, ret error) error {
	switch {
	case errors.Is(writeErr, jobs.ErrStaleFence):
		return a.stale()
	case writeErr != nil:
		return a.unavailable("record failure", writeErr)
	}
	a.log.Info("attempt ended", "outcome", outcome, "code", codeString(ret))
	a.count(outcome)
	if outcome != OutcomeRetried {
		a.observeEndToEnd(outcome)
	}
	return ret
}

func codeString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// stale acks: another invocation holds the current fence and owns the job.
func (a *attempt) stale() error {
	a.log.Info("stale fence: another invocation owns the job; acking without changes")
	a.count(OutcomeStale)
	return nil
}

// unavailable asks Asynq to retry when the store could not be reached;
// nothing was recorded, and IsFailure does not count it as a failure.
func (a *attempt) unavailable(op string, err error) error {
	a.log.Warn("store unreachable; Asynq will redeliver", "op", op, "code", CodeUnavailable)
	a.log.Debug("store error", "op", op, "error", err.Error())
	a.count(OutcomeRequeued)
	return retryLater(CodeUnavailable)
}

// recovered turns a panic into internal_error: dead-lettered when the job is
// claimed, else retried (nothing could be recorded).
func (a *attempt) recovered(ctx context.Context, v any) error {
	pe := &panicError{Value: v, Stack: debug.Stack()}
	// The stack holds no document content; the panic value might.
	a.log.Error("handler panicked", "code", jobs.CodeInternal, "stack", string(pe.Stack))
	a.log.Debug("handler panicked: value", "panic", fmt.Sprint(v))
	if a.claim == nil {
		a.count(OutcomeRequeued)
		return retryLater(jobs.CodeInternal)
	}
	return a.fail(ctx, pe)
}

// count counts the invocation's outcome; run observes the attempt's queue
// wait with it when the invocation returns.
func (a *attempt) count(outcome string) {
	a.outcome = outcome
	a.h.metrics.jobOutcome(a.key.Tenant, outcome)
}

// observeQueueWait observes a claimed attempt's queue wait, labelled with
// the invocation's outcome. A crash recovery is not an attempt, and its
// EnqueuedAt predates the run that crashed: it is not observed.
func (a *attempt) observeQueueWait() {
	if a.claim == nil || a.claim.Recovered || a.outcome == "" {
		return
	}
	a.h.metrics.observeQueueWait(a.key.Tenant, a.outcome, a.claimed.Sub(a.claim.EnqueuedAt))
}

// inference runs the extract stage's Extractor call and observes its
// duration; a panic is observed as an error on its way out.
func (a *attempt) inference(extract func() ([]byte, error)) ([]byte, error) {
	start, outcome := a.h.clock.Now(), InferenceError
	defer func() { a.h.metrics.observeInference(a.key.Tenant, outcome, a.h.clock.Now().Sub(start)) }()
	out, err := extract()
	if err == nil {
		outcome = InferenceOK
	}
	return out, err
}

// observeEndToEnd observes submission → end for a job this invocation just
// ended with outcome.
func (a *attempt) observeEndToEnd(outcome string) {
	a.h.metrics.observeEndToEnd(a.key.Tenant, outcome, a.h.clock.Now().Sub(a.claim.CreatedAt))
}

// observeIfClaimEnded observes the end-to-end time of a job the claim itself
// ended (deadline passed before pickup, crash loop); a redelivery of a job
// that ended before is not observed.
func (a *attempt) observeIfClaimEnded(c *jobs.Claim, outcome string) {
	if c.EndedNow && !c.CreatedAt.IsZero() {
		a.h.metrics.observeEndToEnd(a.key.Tenant, outcome, a.h.clock.Now().Sub(c.CreatedAt))
	}
}
