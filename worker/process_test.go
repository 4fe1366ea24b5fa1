//go:build linux

package worker

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// Process-level tests: the real cmd/worker binary against a real
// redis-server, killed, stopped and terminated with real signals.
//
// Asynq hands the task of a dead (or stopped) worker to another one only
// after the lease has been expired for 30 s and its recoverer's next pass (at
// start-up, then every minute): 60–170 s after the death. The tests that need
// a recovery wait for the lease to be 30 s past expiry and only then start
// the rescuing worker, whose start-up pass recovers the task at once; they
// run in parallel, so the suite pays about one recovery (~65 s).

var workerBinary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if workerBinary.dir != "" {
		_ = os.RemoveAll(workerBinary.dir)
	}
	os.Exit(code)
}

// buildWorker builds ./cmd/worker once per test binary.
func buildWorker(t *testing.T) string {
	t.Helper()
	b := &workerBinary
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "relayops-worker-test-"); b.err != nil {
			return
		}
		b.path = filepath.Join(b.dir, "worker")
		out, err := exec.Command("go", "build", "-o", b.path, "github.com/relayops/relayops/cmd/worker").CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("go build ./cmd/worker: %v\n%s", err, out)
		}
	})
	require.NoError(t, b.err)
	return b.path
}

const procShards = 4

// env is one test's deployment: a redis-server and a store client.
type env struct {
	t     *testing.T
	ctx   context.Context
	srv   *redistest.Server
	rdb   *redis.Client
	store *jobs.Store
	insp  *asynq.Inspector
	bin   string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	if testing.Short() {
		t.Skip("process-level test: skipped with -short")
	}
	srv := redistest.Start(t, nil)
	e := &env{t: t, ctx: context.Background(), srv: srv, rdb: srv.Client(t), bin: buildWorker(t)}
	e.store = e.newStore(clock.Real{})
	e.insp = asynq.NewInspectorFromRedisClient(e.rdb)
	return e
}

func (e *env) newStore(c clock.Clock) *jobs.Store {
	s, err := jobs.NewStore(jobs.Config{Redis: e.rdb, Shards: procShards, Clock: c})
	require.NoError(e.t, err)
	return s
}

func (e *env) submit(k jobs.Key, content string, lim jobs.Limits) {
	e.t.Helper()
	_, err := e.store.Submit(e.ctx, jobs.SubmitRequest{Key: k, Content: content, Limits: lim})
	require.NoError(e.t, err)
}

func (e *env) job(k jobs.Key) *jobs.Job {
	e.t.Helper()
	j, err := e.store.Get(e.ctx, k)
	require.NoError(e.t, err)
	return j
}

func (e *env) waitState(k jobs.Key, want jobs.State, timeout time.Duration) {
	e.t.Helper()
	redistest.Eventually(e.t, timeout, func() bool {
		j, err := e.store.Get(e.ctx, k)
		return err == nil && j.State == want
	}, "job %s to be %s", k, want)
}

func (e *env) waitReview(k jobs.Key, timeout time.Duration) *jobs.Review {
	e.t.Helper()
	var r *jobs.Review
	redistest.Eventually(e.t, timeout, func() bool {
		var err error
		r, err = e.store.GetReview(e.ctx, k)
		return err == nil
	}, "review of %s", k)
	return r
}

// committedEvents counts k's extraction.committed outbox rows.
func (e *env) committedEvents(k jobs.Key) int {
	e.t.Helper()
	stream := fmt.Sprintf("ro:{%02d}:outbox", jobs.Shard(k.Tenant, k.DocumentID, procShards))
	msgs, err := e.rdb.XRange(e.ctx, stream, "-", "+").Result()
	require.NoError(e.t, err)
	n := 0
	for _, m := range msgs {
		if m.Values["k"] == k.String() && m.Values["t"] == jobs.EventExtractionCommitted {
			n++
		}
	}
	return n
}

// pendingRows counts k's delivered-but-unacked rows in the relay group of
// its shard.
func (e *env) pendingRows(k jobs.Key) int {
	e.t.Helper()
	stream := fmt.Sprintf("ro:{%02d}:outbox", jobs.Shard(k.Tenant, k.DocumentID, procShards))
	pending, err := e.rdb.XPendingExt(e.ctx, &redis.XPendingExtArgs{Stream: stream, Group: "relay", Start: "-", End: "+", Count: 1000}).Result()
	require.NoError(e.t, err)
	n := 0
	for _, p := range pending {
		msgs, err := e.rdb.XRange(e.ctx, stream, p.ID, p.ID).Result()
		require.NoError(e.t, err)
		if len(msgs) == 1 && msgs[0].Values["k"] == k.String() {
			n++
		}
	}
	return n
}

// requireExactlyOnce checks k succeeded with one event and one review.
func (e *env) requireExactlyOnce(k jobs.Key) *jobs.Job {
	e.t.Helper()
	j := e.job(k)
	require.Equal(e.t, jobs.StateSucceeded, j.State, k.String())
	require.Equal(e.t, 1, e.committedEvents(k), "one extraction.committed event for %s", k)
	r, err := e.store.GetReview(e.ctx, k)
	require.NoError(e.t, err, "review of %s", k)
	require.Equal(e.t, j.EventID, r.EventID, "one review, of the committed event")
	return j
}

// waitLeaseRecoverable waits until Asynq's recoverer would hand task id to
// another worker: its lease expired more than 30 s ago.
func (e *env) waitLeaseRecoverable(id string) {
	e.t.Helper()
	redistest.Eventually(e.t, 2*time.Minute, func() bool { return e.leaseRecoverable(id) },
		"lease of %s to be recoverable", id)
}

// leaseRecoverable reports whether task id holds a lease that expired more
// than 30 s ago.
func (e *env) leaseRecoverable(id string) bool {
	score, err := e.rdb.ZScore(e.ctx, "asynq:{"+task.QueueExtract+"}:lease", id).Result()
	return err == nil && time.Now().Unix() > int64(score)+31
}

// proc is one worker process.
type proc struct {
	t       *testing.T
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	state   *os.ProcessState
}

type procOpts struct {
	faults   string
	logLevel string // default debug (stage calls are counted from debug lines)
	env      []string
}

func (e *env) startWorker(name string, o procOpts) *proc {
	e.t.Helper()
	if o.logLevel == "" {
		o.logLevel = "debug"
	}
	logPath := filepath.Join(e.t.TempDir(), name+".log")
	logFile, err := os.Create(logPath)
	require.NoError(e.t, err)
	defer logFile.Close()
	cmd := exec.Command(e.bin)
	cmd.Env = append(workerEnv(),
		"RELAYOPS_REDIS_URL="+e.srv.URL, "RELAYOPS_METRICS_ADDR=127.0.0.1:0",
		fmt.Sprintf("RELAYOPS_SHARDS=%d", procShards), "RELAYOPS_LOG_LEVEL="+o.logLevel,
		"RELAYOPS_FAULTS="+o.faults, "RELAYOPS_CONCURRENCY=4")
	cmd.Env = append(cmd.Env, o.env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(e.t, cmd.Start())
	p := &proc{t: e.t, name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.done)
	}()
	e.t.Cleanup(func() {
		if !p.exited() {
			_ = cmd.Process.Signal(syscall.SIGCONT)
			_ = cmd.Process.Kill()
			<-p.done
		}
		if e.t.Failed() {
			e.t.Logf("--- log of worker %s ---\n%s", name, tail(p.logs(), 60))
		}
	})
	redistest.Eventually(e.t, 20*time.Second, func() bool { return p.has(`"msg":"worker starting"`) || p.exited() },
		"worker %s to start", name)
	require.False(e.t, p.exited(), "worker %s exited at start:\n%s", name, p.logs())
	return p
}

// workerEnv is the test's environment without RELAYOPS_ variables.
func workerEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "RELAYOPS_") {
			out = append(out, kv)
		}
	}
	return out
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) signal(sig syscall.Signal) { require.NoError(p.t, p.cmd.Process.Signal(sig)) }

func (p *proc) waitExit(timeout time.Duration) *os.ProcessState {
	p.t.Helper()
	select {
	case <-p.done:
		return p.state
	case <-time.After(timeout):
		p.t.Fatalf("worker %s did not exit within %s", p.name, timeout)
		return nil
	}
}

func (p *proc) logs() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

func (p *proc) has(s string) bool { return strings.Contains(p.logs(), s) }

// lines returns the JSON log lines whose fields include every pair of match.
func (p *proc) lines(match map[string]string) []map[string]any {
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader([]byte(p.logs())))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		ok := true
		for k, v := range match {
			if fmt.Sprint(line[k]) != v {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, line)
		}
	}
	return out
}

// stageCalls counts extractor calls of stage for k in the given processes.
func stageCalls(k jobs.Key, stage string, procs ...*proc) int {
	n := 0
	for _, p := range procs {
		n += len(p.lines(map[string]string{"msg": "stage ran", "job_key": k.String(), "stage": stage}))
	}
	return n
}

func killedBy(s *os.ProcessState) syscall.Signal {
	ws, ok := s.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0
	}
	return ws.Signal()
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Scenarios 1 and 7 share one recovery wait. Worker A1 is SIGKILLed at
// after_extract on job J7, worker A2 at after_commit_before_ack on job J1;
// worker B later receives both redeliveries. Worker A3 is SIGKILLed in its
// relay after enqueuing job J3 but before acking the outbox row; B's relay
// takes the row over and republishes it, which the TaskID absorbs.
func TestProcess_SIGKILL_RedeliveryDedupesAndResumesFromCheckpoint(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	j7 := mustKey(t, "acme", "kill-after-extract", 1)
	j1 := mustKey(t, "acme", "kill-after-commit", 1)
	j3 := mustKey(t, "acme", "kill-in-relay", 1)

	a1 := e.startWorker("A1", procOpts{faults: "after_extract=kill#1"})
	e.submit(j7, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	require.Equal(t, syscall.SIGKILL, killedBy(a1.waitExit(30*time.Second)))
	require.Equal(t, jobs.StateRunning, e.job(j7).State)

	a2 := e.startWorker("A2", procOpts{faults: "after_commit_before_ack=kill#1"})
	e.submit(j1, readSample(t, "valid-tax-usd.txt"), jobs.DefaultLimits)
	require.Equal(t, syscall.SIGKILL, killedBy(a2.waitExit(30*time.Second)))
	require.Equal(t, jobs.StateSucceeded, e.job(j1).State, "committed before the kill")
	for _, k := range []jobs.Key{j7, j1} {
		info, err := e.insp.GetTaskInfo(task.QueueExtract, k.String())
		require.NoError(t, err)
		require.Equal(t, asynq.TaskStateActive, info.State, "Asynq still thinks %s is running", k)
	}

	a3 := e.startWorker("A3", procOpts{faults: "relay_after_enqueue_before_ack=kill#1"})
	e.submit(j3, readSample(t, "valid-jpy-no-decimals.txt"), jobs.DefaultLimits)
	require.Equal(t, syscall.SIGKILL, killedBy(a3.waitExit(30*time.Second)))
	require.Equal(t, 1, e.pendingRows(j3), "the row was enqueued but never acked")
	toRecover := []jobs.Key{j7, j1}
	if info, err := e.insp.GetTaskInfo(task.QueueExtract, j3.String()); err == nil && info.State == asynq.TaskStateActive {
		toRecover = append(toRecover, j3) // A3's processor picked it up before dying
	}

	for _, k := range toRecover {
		e.waitLeaseRecoverable(k.String())
	}
	b := e.startWorker("B", procOpts{})
	e.waitReview(j7, time.Minute)
	e.waitReview(j1, time.Minute)
	e.waitReview(j3, time.Minute)
	redistest.Eventually(t, time.Minute, func() bool { return e.pendingRows(j3) == 0 }, "B's relay took the row over and acked it")
	e.requireExactlyOnce(j3)
	redistest.Eventually(t, 30*time.Second, func() bool {
		return len(b.lines(map[string]string{"msg": "job already succeeded; acking redelivery", "job_key": j1.String()})) == 1
	}, "B acks J1's redelivery as a dedupe")

	// Scenario 1: the redelivery of a committed job is a dedupe.
	job1 := e.requireExactlyOnce(j1)
	require.Equal(t, 1, job1.Attempt)
	for _, s := range Stages {
		require.LessOrEqual(t, stageCalls(j1, s, a2, b), 2, "extractor stage %s called at most twice", s)
		require.Zero(t, stageCalls(j1, s, b), "B never ran %s for the committed job", s)
	}
	// Scenario 7: the rules extractor's stages are cheap and deterministic,
	// so none is checkpointed: the redelivery recomputes them and commits
	// the one result. (A checkpointed stage is never run again:
	// TestProcess_LLM_KilledAfterTheModelAnswered_NeverCallsItAgain.)
	job7 := e.requireExactlyOnce(j7)
	require.Equal(t, 1, job7.Attempt, "a crash recovery is not a business attempt")
	require.Equal(t, 1, job7.Recoveries)
	require.Equal(t, 1, stageCalls(j7, StageClassify, b), "recomputed by the redelivery")
	require.Equal(t, 1, stageCalls(j7, StageExtract, b), "recomputed by the redelivery")
	require.Equal(t, 2, stageCalls(j7, StageExtract, a1, b))
	require.Equal(t, 1, stageCalls(j7, StageValidate, b))
	for _, k := range []jobs.Key{j7, j1} {
		redistest.Eventually(t, 10*time.Second, func() bool {
			info, err := e.insp.GetTaskInfo(task.QueueExtract, k.String())
			return err == nil && info.State == asynq.TaskStateCompleted
		}, "task %s completed in Asynq", k)
	}
}

// Scenario 2: worker A is stopped (SIGSTOP) inside an attempt past its
// lease; worker B recovers and completes the job; after SIGCONT, A's write
// (its commit) reaches Redis and is rejected as stale.
func TestProcess_Zombie_StaleWritesRejectedAfterSIGCONT(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := mustKey(t, "acme", "zombie", 1)
	a := e.startWorker("A", procOpts{faults: "after_claim=pause:5s#1"})
	e.submit(k, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	redistest.Eventually(t, 20*time.Second, func() bool {
		return len(a.lines(map[string]string{"msg": "FAULT INJECTED", "point": PointAfterClaim})) == 1
	}, "A pauses inside the attempt")
	a.signal(syscall.SIGSTOP)
	require.EqualValues(t, 1, e.job(k).Fence, "A holds fence 1")

	e.waitLeaseRecoverable(k.String())
	b := e.startWorker("B", procOpts{})
	e.waitReview(k, time.Minute)
	job := e.requireExactlyOnce(k)
	require.Equal(t, 2, int(job.Fence), "B claimed with a newer fence")
	require.Equal(t, 1, job.Recoveries)

	a.signal(syscall.SIGCONT)
	redistest.Eventually(t, 30*time.Second, func() bool {
		return len(a.lines(map[string]string{"msg": "stale fence: another invocation owns the job; acking without changes", "job_key": k.String()})) > 0
	}, "A's write is rejected as stale")

	after := e.requireExactlyOnce(k)
	require.Equal(t, job.EventID, after.EventID)
	require.Equal(t, job.FinishedAt, after.FinishedAt, "A changed nothing")
	// The rules extractor checkpoints nothing: A's first write after waking
	// is its commit, refused for its stale fence.
	require.Equal(t, 1, stageCalls(k, StageValidate, a), "A's stages ran, and wrote nothing")
	require.Equal(t, 1, stageCalls(k, StageValidate, b))
	a.signal(syscall.SIGTERM)
	require.True(t, a.waitExit(40*time.Second).Success())
}

// Scenario 3: a permanent failure is dead-lettered on attempt 1 and Asynq
// archives the task with exactly "permanent_error"; the secret in the
// document appears neither there nor in the info logs.
func TestProcess_PermanentFailure_ArchivedWithTheCodeOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const secret = "IBAN-DE44-5001-0517-5407-3249-31"
	k := mustKey(t, "acme", "mismatch", 1)
	a := e.startWorker("A", procOpts{logLevel: "info"})
	content := strings.Replace(readSample(t, "invalid-total-mismatch.txt"), "Total: 420.00", "Total: 420.00 "+secret, 1)
	e.submit(k, content, jobs.DefaultLimits)

	e.waitState(k, jobs.StateDeadLettered, 20*time.Second)
	job := e.job(k)
	require.Equal(t, 1, job.Attempt)
	require.Equal(t, jobs.CodePermanent, job.ErrorCode)
	var info *asynq.TaskInfo
	redistest.Eventually(t, 10*time.Second, func() bool {
		var err error
		info, err = e.insp.GetTaskInfo(task.QueueExtract, k.String())
		return err == nil && info.State == asynq.TaskStateArchived
	}, "task archived")
	require.Equal(t, "permanent_error", info.LastErr)
	require.Equal(t, 0, info.Retried)
	require.NotContains(t, a.logs(), secret)
	require.True(t, extract.ValidReason(job.ErrorReason), "the record says why: %q", job.ErrorReason)
	require.NotEmpty(t, a.lines(map[string]string{"msg": "attempt failed", "job_key": k.String(), "reason": job.ErrorReason}),
		"the failed attempt's info line carries the reason")
	dlq, err := e.store.ListDLQ(e.ctx, jobs.DLQOptions{})
	require.NoError(t, err)
	require.Len(t, dlq.Jobs, 1)
}

// Scenario 4: a job that always fails transiently gets exactly three
// attempts, then max_attempts_exceeded.
func TestProcess_AlwaysTransient_ThreeAttemptsThenMaxAttemptsExceeded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	k := mustKey(t, "acme", "flaky", 1)
	a := e.startWorker("A", procOpts{faults: "extract=transient@1"})
	e.submit(k, readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)

	e.waitState(k, jobs.StateDeadLettered, 30*time.Second)
	job := e.job(k)
	require.Equal(t, 3, job.Attempt)
	require.Equal(t, jobs.CodeMaxAttemptsExceeded, job.ErrorCode)
	var info *asynq.TaskInfo
	redistest.Eventually(t, 10*time.Second, func() bool {
		var err error
		info, err = e.insp.GetTaskInfo(task.QueueExtract, k.String())
		return err == nil && info.State == asynq.TaskStateArchived
	}, "task archived")
	require.Equal(t, "max_attempts_exceeded", info.LastErr)
	require.Equal(t, 2, info.Retried, "two retries, never a fourth attempt")
	require.Len(t, a.lines(map[string]string{"msg": "FAULT INJECTED", "point": PointExtract}), 3)
	require.Equal(t, 3, stageCalls(k, StageClassify, a), "the rules' classify is cheap: recomputed, not checkpointed")
}

// Scenario 5: a job picked up after its deadline, and a job whose handler
// passes it, are cancelled: acked (completed in Asynq, not archived) and not
// in the DLQ.
func TestProcess_DeadlinePassed_CancelledNeitherArchivedNorInDLQ(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	late := mustKey(t, "acme", "late", 1)
	slow := mustKey(t, "acme", "slow", 1)
	// Submitted an hour ago with a one-minute deadline.
	past := e.newStore(clock.NewStub(time.Now().Add(-time.Hour)))
	_, err := past.Submit(e.ctx, jobs.SubmitRequest{Key: late, Content: readSample(t, "valid-basic-eur.txt"),
		Limits: jobs.Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: time.Minute}})
	require.NoError(t, err)
	e.startWorker("A", procOpts{faults: "after_classify=pause:3s"})
	e.submit(slow, readSample(t, "valid-basic-eur.txt"), jobs.Limits{MaxAttempts: 3, MaxRecoveries: 5, Deadline: 2 * time.Second})

	for _, k := range []jobs.Key{late, slow} {
		e.waitState(k, jobs.StateCancelled, 20*time.Second)
		require.Equal(t, jobs.CodeDeadlineExceeded, e.job(k).ErrorCode)
		redistest.Eventually(t, 10*time.Second, func() bool {
			info, err := e.insp.GetTaskInfo(task.QueueExtract, k.String())
			return err == nil && info.State == asynq.TaskStateCompleted
		}, "task of %s acked, not archived", k)
		_, err := e.store.GetReview(e.ctx, k)
		require.ErrorIs(t, err, jobs.ErrReviewNotFound)
	}
	dlq, err := e.store.ListDLQ(e.ctx, jobs.DLQOptions{IncludeReprocessed: true})
	require.NoError(t, err)
	require.Empty(t, dlq.Jobs)
	archived, err := e.insp.ListArchivedTasks(task.QueueExtract)
	require.NoError(t, err)
	require.Empty(t, archived)
}

// Scenario 6: SIGTERM in the middle of processing. The worker stops
// fetching, lets running handlers finish, drains the relay and exits 0;
// another worker finishes the rest. Every job ends exactly once.
func TestProcess_SIGTERM_EveryJobEndsExactlyOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const n = 120
	keys := make([]jobs.Key, n)
	a := e.startWorker("A", procOpts{faults: "classify=pause:40ms", logLevel: "info"})
	for i := range keys {
		keys[i] = mustKey(t, "acme", fmt.Sprintf("batch-%03d", i), 1)
		e.submit(keys[i], readSample(t, "valid-basic-eur.txt"), jobs.DefaultLimits)
	}
	redistest.Eventually(t, 30*time.Second, func() bool {
		return len(a.lines(map[string]string{"msg": "job succeeded"})) >= 15
	}, "A is mid-batch")
	a.signal(syscall.SIGTERM)
	st := a.waitExit(40 * time.Second)
	require.True(t, st.Success(), "graceful stop exits 0, got %v", st)
	require.NotEmpty(t, a.lines(map[string]string{"msg": "relay drained"}))

	doneByA := 0
	for _, k := range keys {
		j := e.job(k)
		require.NotEqual(t, jobs.StateRunning, j.State, "A finished every handler it started (%s)", k)
		if j.State == jobs.StateSucceeded {
			doneByA++
			_, err := e.store.GetReview(e.ctx, k)
			require.NoError(t, err, "A drained the relay: %s has its review", k)
		}
	}
	require.Less(t, doneByA, n, "SIGTERM landed mid-batch")

	e.startWorker("B", procOpts{logLevel: "info"})
	for _, k := range keys {
		e.waitReview(k, 60*time.Second)
	}
	for _, k := range keys {
		j := e.requireExactlyOnce(k)
		require.Equal(t, 1, j.Attempt, k.String())
		require.Zero(t, j.Recoveries, k.String())
	}
	archived, err := e.insp.ListArchivedTasks(task.QueueExtract)
	require.NoError(t, err)
	require.Empty(t, archived)
}
