//go:build linux && slow

package e2e

// The cluster tests that wait for Asynq's 30 s lease or the relay's 30 s
// reclaim of rows a dead connection left unacked: about a minute each, so
// only under -tags slow (make test).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
	"github.com/relayops/relayops/jobs"
)

// Failover pacing: submissions flow for failoverFlow, and the master is
// killed once failoverKillAt of them were acknowledged, mid-flow.
const (
	failoverDocs   = 160
	failoverFlow   = 5 * time.Second
	failoverKillAt = failoverDocs * 3 / 10
)

// With RELAYOPS_REDIS_WAIT_REPLICAS=1 a master is SIGKILLed while jobs flow
// through the api and two workers; its replica is promoted and the dead
// node comes back as a replica. Every job the api acknowledged (202, or 200
// for a retried submission that the first, unconfirmed try had created)
// reaches succeeded with exactly one review, and no committed event is
// applied twice (a redelivery after a lost reply finds it applied).
func TestE2E_RedisCluster_MasterFailover_WaitReplicas_EveryAcknowledgedJobReviewedOnce(t *testing.T) {
	t.Parallel()
	run := failover(t, "RELAYOPS_REDIS_WAIT_REPLICAS=1")
	if len(run.lost) > 0 || len(run.stuck) > 0 {
		t.Fatalf("want every acknowledged job succeeded with its review, lost %v, not finished %v", run.lost, run.stuck)
	}
	// Exactly one review per job is checked on the store (awaitReviewed).
	// The review script applies an event at most once: a delivery whose
	// reply the failover lost is delivered again and found applied
	// (duplicate_event), so duplicates may be counted, applications never
	// more than the jobs.
	if run.applied > float64(len(run.acknowledged)) || run.applied+run.duplicates < float64(len(run.acknowledged)) {
		t.Fatalf("want %d reviews applied once each (applied, or found applied on a redelivery), got %v applied and %v found applied",
			len(run.acknowledged), run.applied, run.duplicates)
	}
	t.Logf("%v reviews applied, %v redeliveries found them applied", run.applied, run.duplicates)
}

// The same failover without WAIT. Replication is asynchronous, so a write
// the master acknowledged in the instant before it died may be missing on
// the promoted replica. This run only reports what was lost (docs/cluster.md
// quotes it); it asserts nothing beyond the run itself.
func TestE2E_RedisCluster_MasterFailover_NoWait_ReportsLostJobs(t *testing.T) {
	t.Parallel()
	run := failover(t, "RELAYOPS_REDIS_WAIT_REPLICAS=0")
	t.Logf("without WAIT: %d acknowledged, %d lost (record gone), %d not finished (record kept, work lost), %v reviews applied, %v duplicate events",
		len(run.acknowledged), len(run.lost), len(run.stuck), run.applied, run.duplicates)
}

// failoverRun is what one failover run saw.
type failoverRun struct {
	acknowledged []string // job IDs the api acknowledged
	refused      int      // answers that acknowledged nothing (503, no answer), retried
	lost         []string // acknowledged, then unknown to the api (404)
	stuck        []string // acknowledged, not succeeded with a review by the deadline
	applied      float64  // reviews the workers' relays applied
	duplicates   float64  // committed events the review consumer saw again
}

// failover runs the flow: a 3-master cluster with the api and two workers
// (env on top of the suite's settings), submissions paced over
// failoverFlow, the master of shard 0's slot SIGKILLed during it, its
// replica promoted, the dead node restarted as a replica; then it waits for
// every acknowledged job.
func failover(t *testing.T, env ...string) failoverRun {
	// A task the relay enqueued on the dying master may be lost with it
	// (Asynq's writes are not WAITed for) while its outbox row was acked:
	// the job then waits for the reconciler, which republishes an open job
	// whose task is gone. At its defaults (every minute, jobs older than
	// ten) that recovery outlasts the wait below; here it runs every second
	// on jobs older than five, so the run exercises it instead of racing it.
	env = append(env, "RELAYOPS_RECONCILE_INTERVAL=1s", "RELAYOPS_RECONCILE_AFTER=5s")
	s := setup(t, options{cluster: true, workers: 2, env: env})
	content := sample(t, "valid-basic-eur.txt")
	var (
		mu  sync.Mutex
		run failoverRun
		wg  sync.WaitGroup
	)
	var unacknowledged []string
	begin := time.Now()
	for g := range 4 {
		wg.Go(func() {
			for i := g; i < failoverDocs; i += 4 {
				// Paced, open loop: document i is due at its share of the flow.
				<-time.After(time.Until(begin.Add(failoverFlow * time.Duration(i) / failoverDocs)))
				doc := fmt.Sprintf("fo-%03d", i)
				id, refused := s.submitUntilAcknowledged(doc, content, begin.Add(failoverFlow+2*jobTimeout))
				mu.Lock()
				if id == "" {
					unacknowledged = append(unacknowledged, doc)
				} else {
					run.acknowledged = append(run.acknowledged, id)
				}
				run.refused += refused
				mu.Unlock()
			}
		})
	}
	redistest.Eventually(t, failoverFlow, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(run.acknowledged) >= failoverKillAt
	}, "%d jobs acknowledged before the master is killed", failoverKillAt)
	killedAt := time.Now()
	killed := s.cluster.KillMasterOf(t, "ro:{00}:outbox")
	s.cluster.AwaitOK(t, 30*time.Second)
	promoted := time.Since(killedAt)
	s.cluster.Restart(t, killed)
	s.cluster.AwaitOK(t, 30*time.Second)
	wg.Wait()
	if len(unacknowledged) > 0 {
		t.Fatalf("the api never acknowledged %v, after the cluster healed", unacknowledged)
	}
	t.Logf("master %s killed %s into the flow (%d acknowledged); promoted %s later; %d jobs acknowledged after %d refused tries",
		killed, killedAt.Sub(begin).Round(time.Millisecond), failoverKillAt, promoted.Round(time.Millisecond), len(run.acknowledged), run.refused)

	settled := time.Now()
	s.awaitReviewed(t, &run)
	t.Logf("every acknowledged job reviewed (or given up on) %s after the cluster settled", time.Since(settled).Round(time.Millisecond))
	t.Logf("the reconcilers republished %v jobs whose task was lost",
		s.workersMetric("relayops_reconciler_jobs_total", map[string]string{"action": "republished"}))
	run.applied = s.workersMetric("relayops_relay_events_total", map[string]string{"type": "extraction.committed", "outcome": "applied"})
	run.duplicates = s.workersMetric("relayops_relay_events_total", map[string]string{"type": "extraction.committed", "outcome": "duplicate_event"})
	return run
}

// submitUntilAcknowledged submits version 1 of doc until the api
// acknowledges it (202 created, or 200 deduped: an earlier try that was
// answered 503 had written it) and returns the job ID and how many tries
// were refused; past deadline it gives up and returns no ID. It runs on
// its own goroutine: it reports nothing to t.
func (s *system) submitUntilAcknowledged(doc, content string, deadline time.Time) (string, int) {
	body, _ := json.Marshal(submitRequest{DocumentID: doc, OperationVersion: 1, Content: content})
	retry := time.NewTicker(50 * time.Millisecond) // between refused tries
	defer retry.Stop()
	refused := 0
	for ; time.Now().Before(deadline); refused++ {
		req, _ := http.NewRequest(http.MethodPost, s.api.URL("/v1/jobs"), bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tokA)
		resp, err := s.client.Do(req)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var j job
			if (resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusOK) && json.Unmarshal(b, &j) == nil {
				return j.JobID, refused
			}
		}
		<-retry.C
	}
	return "", refused
}

// awaitReviewed waits until every acknowledged job is succeeded with a
// review, or the deadline passes; then it sorts the rest into lost and
// stuck, and checks that the tenant's reviews are exactly one per job.
func (s *system) awaitReviewed(t *testing.T, run *failoverRun) {
	t.Helper()
	want := slices.Sorted(slices.Values(run.acknowledged))
	var reviewed []string
	deadline := time.Now().Add(2 * jobTimeout)
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	for time.Now().Before(deadline) {
		reviewed = reviewed[:0]
		for _, rv := range items[review](t, s, tokA, "/v1/reviews") {
			reviewed = append(reviewed, rv.JobID)
		}
		slices.Sort(reviewed)
		if len(reviewed) >= len(want) {
			break
		}
		<-poll.C
	}
	if n := len(slices.Compact(slices.Clone(reviewed))); n != len(reviewed) {
		t.Fatalf("want one review per job, got a job listed twice: %v", reviewed)
	}
	for _, id := range want {
		if _, ok := slices.BinarySearch(reviewed, id); ok {
			continue
		}
		r := s.do(t, http.MethodGet, "/v1/jobs/"+id, tokA, nil)
		if r.status == http.StatusNotFound {
			run.lost = append(run.lost, id)
			continue
		}
		run.stuck = append(run.stuck, fmt.Sprintf("%s(%s)", id, decode[job](t, r.expect(t, http.StatusOK)).State))
	}
	for _, id := range reviewed {
		if _, ok := slices.BinarySearch(want, id); !ok {
			t.Fatalf("want reviews only of acknowledged jobs, got one of %s", id)
		}
	}
	redistest.Eventually(t, jobTimeout, func() bool {
		return s.workersMetric("relayops_relay_events_total", map[string]string{"type": "extraction.committed", "outcome": "applied"})+
			s.workersMetric("relayops_relay_events_total", map[string]string{"type": "extraction.committed", "outcome": "duplicate_event"}) >= float64(len(reviewed))
	}, "the workers to count the %d reviews, applied or found applied", len(reviewed))
}

// A worker SIGKILLed in the middle of its jobs on the cluster: the jobs it
// had claimed stay running until Asynq's lease on their tasks expires; then
// the two healthy workers take them over (a crash recovery, not a failed
// attempt), and every job succeeds with exactly one review.
func TestE2E_RedisCluster_WorkerKilledMidJob_TwoOthersFinishEveryJobOnce(t *testing.T) {
	t.Parallel()
	s := setup(t, options{cluster: true, noWorker: true})
	doomed := proctest.Start(t, proctest.Options{
		Name: "worker-doomed", Bin: proctest.Binary(t, "cmd/worker"),
		Env:      s.env("RELAYOPS_FAULTS=classify=kill#1", "RELAYOPS_CONCURRENCY=4"),
		AddrVars: []string{"RELAYOPS_METRICS_ADDR"},
	})
	var ids []string
	for _, doc := range []string{"inv-k1", "inv-k2", "inv-k3"} {
		ids = append(ids, s.submitNew(t, tokA, doc, sample(t, "valid-basic-eur.txt")).JobID)
	}
	if sig := proctest.KilledBy(doomed.Wait(jobTimeout)); sig != syscall.SIGKILL {
		t.Fatalf("want the worker killed by its fault, got %v", sig)
	}
	var running []string
	for _, id := range ids {
		if s.job(t, tokA, id).State == "running" {
			running = append(running, id)
		}
	}
	if len(running) == 0 {
		t.Fatalf("want the killed worker to leave a job running, got none of %v", ids)
	}
	for _, id := range running {
		s.waitLeaseRecoverable(t, id)
	}
	s.workers = []*proctest.Process{s.startWorker("worker-2", ""), s.startWorker("worker-3", "")}
	for _, id := range ids {
		if j := s.waitState(t, tokA, id, stateSucceeded); j.Attempt != 1 {
			t.Fatalf("want %s to succeed on attempt 1 (a crash is no failed attempt), got: %v", id, j)
		}
		s.waitReview(t, tokA, id)
	}
	if rs := items[review](t, s, tokA, "/v1/reviews"); len(rs) != len(ids) {
		t.Fatalf("want exactly one review per job (%d), got: %v", len(ids), rs)
	}
	t.Logf("%d of %d jobs were running in the killed worker; the two others finished them", len(running), len(ids))
}

// waitLeaseRecoverable waits until Asynq's recoverer would hand the task of
// job id to another worker: its lease, in the queue of the job's shard,
// expired more than 30 s ago.
func (s *system) waitLeaseRecoverable(t *testing.T, id string) {
	t.Helper()
	k, err := jobs.ParseKey(id)
	if err != nil {
		t.Fatal(err)
	}
	lease := "asynq:{" + task.NewLayout(0, shards, true).Queue(jobs.Shard(k.Tenant, k.DocumentID, shards)) + "}:lease"
	redistest.Eventually(t, 2*time.Minute, func() bool {
		score, err := s.cluster.Client.ZScore(context.Background(), lease, id).Result()
		return err == nil && time.Now().Unix() > int64(score)+31
	}, "the lease of %s to be recoverable", id)
}
