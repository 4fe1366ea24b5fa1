//go:build linux && slow

package e2e

import (
	"syscall"
	"testing"
	"time"

	"github.com/relayops/relayops/internal/proctest"
)

// A worker SIGKILLed in the review consumer after it claimed a committed
// invoice's fingerprint and before it created the review, on a 3-master
// cluster: the rows it held stay pending; two other workers take them over
// after the relay's reclaim idle, claim again (the same answer) and create
// each review once, one of them marked a possible duplicate of the other.
func TestE2E_RedisCluster_KilledBetweenFingerprintAndReview_DuplicateFlaggedOnce(t *testing.T) {
	t.Parallel()
	s := setup(t, options{cluster: true, noWorker: true})
	doomed := proctest.Start(t, proctest.Options{
		Name: "worker-doomed", Bin: proctest.Binary(t, "cmd/worker"),
		Env:      s.env("RELAYOPS_FAULTS=consumer_after_fingerprint_before_review=kill#1", "RELAYOPS_CONCURRENCY=4"),
		AddrVars: []string{"RELAYOPS_METRICS_ADDR"},
	})
	content := sample(t, "valid-basic-eur.txt")
	a := s.submitNew(t, tokA, "mail-4411", content)
	b := s.submitNew(t, tokA, "scan-0094", content)
	if sig := proctest.KilledBy(doomed.Wait(jobTimeout)); sig != syscall.SIGKILL {
		t.Fatalf("want the worker killed by its fault, got %v", sig)
	}
	s.workers = []*proctest.Process{s.startWorker("worker-2", ""), s.startWorker("worker-3", "")}
	s.waitState(t, tokA, a.JobID, stateSucceeded)
	s.waitState(t, tokA, b.JobID, stateSucceeded)
	// The killed relay's rows are taken over after its 30 s reclaim idle.
	ra, rb := s.waitReviewWithin(t, tokA, a.JobID, 2*time.Minute), s.waitReviewWithin(t, tokA, b.JobID, 2*time.Minute)
	if (ra.Duplicate == nil) == (rb.Duplicate == nil) {
		t.Fatalf("want exactly one review marked a duplicate, got: %v and %v", ra, rb)
	}
	if rs := items[review](t, s, tokA, "/v1/reviews"); len(rs) != 2 {
		t.Fatalf("want exactly one review per job, got: %v", rs)
	}
}
