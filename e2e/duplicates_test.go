package e2e

import (
	"net/http"
	"testing"

	"github.com/relayops/relayops/jobs"
)

// The same supplier invoice, submitted under two document IDs on two
// shards (the mail inbox and the scanner), is two successful jobs but one
// payable: exactly one review is the first, the other is a strong possible
// duplicate linked to it, which an operator approves only by naming the
// first job. A repeat of a duplicate's approval is answered alike.
func duplicateInvoiceFlaggedOnce(t *testing.T, s *system) {
	first, second := "mail-4411", "scan-0094"
	if jobs.Shard("acme", first, shards) == jobs.Shard("acme", second, shards) {
		t.Fatalf("the test wants two shards: pick other document IDs")
	}
	content := sample(t, "valid-basic-eur.txt")
	a := s.submitNew(t, tokA, first, content)
	b := s.submitNew(t, tokA, second, content)
	s.waitState(t, tokA, a.JobID, stateSucceeded)
	s.waitState(t, tokA, b.JobID, stateSucceeded)
	ra, rb := s.waitReview(t, tokA, a.JobID), s.waitReview(t, tokA, b.JobID)

	if (ra.Duplicate == nil) == (rb.Duplicate == nil) {
		t.Fatalf("want exactly one of the two reviews marked a duplicate, got: %v and %v", ra, rb)
	}
	dup, orig := rb, ra
	if ra.Duplicate != nil {
		dup, orig = ra, rb
	}
	if dup.Duplicate.Of != orig.JobID || dup.Duplicate.Strength != "strong" {
		t.Fatalf("want %s a strong duplicate of %s, got: %v", dup.JobID, orig.JobID, dup)
	}

	path := "/v1/reviews/" + dup.JobID + "/decision"
	s.do(t, http.MethodPost, path, tokC, map[string]string{"decision": "approve"}).expectError(t, http.StatusConflict, "possible_duplicate")
	s.do(t, http.MethodPost, path, tokC, map[string]string{"decision": "approve", "notDuplicateOf": dup.JobID}).expectError(t, http.StatusConflict, "possible_duplicate")
	body := map[string]string{"decision": "approve", "notDuplicateOf": orig.JobID, "note": "two deliveries of one order"}
	approved := decode[review](t, s.do(t, http.MethodPost, path, tokC, body).expect(t, http.StatusOK))
	if approved.Status != "approved" {
		t.Fatalf("want the duplicate approved once it names the first job, got: %v", approved)
	}
	s.do(t, http.MethodPost, path, tokC, body).expect(t, http.StatusOK)
	s.do(t, http.MethodPost, "/v1/reviews/"+orig.JobID+"/decision", tokC, map[string]string{"decision": "approve"}).expect(t, http.StatusOK)

	// The other tenant's same invoice is nobody's duplicate.
	g := s.submitNew(t, tokB, first, content)
	s.waitState(t, tokB, g.JobID, stateSucceeded)
	if rg := s.waitReview(t, tokB, g.JobID); rg.Duplicate != nil {
		t.Fatalf("want no duplicate across tenants, got: %v", rg)
	}
}

func TestE2E_SameInvoiceTwice_OneFlaggedPossibleDuplicateOfTheOther(t *testing.T) {
	t.Parallel()
	duplicateInvoiceFlaggedOnce(t, setup(t, options{}))
}

// On a 3-master cluster with two workers the two documents commit on two
// masters, concurrently; the fingerprint lives in the tenant's own slot,
// where one claim is first.
func TestE2E_RedisCluster_TwoWorkers_SameInvoiceTwice_OneFlagged(t *testing.T) {
	t.Parallel()
	duplicateInvoiceFlaggedOnce(t, setup(t, clusterTwoWorkers))
}
