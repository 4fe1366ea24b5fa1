//go:build linux

package e2e

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/relayops/relayops/internal/proctest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
)

// The api and a worker run on a 3-master Redis Cluster through one
// RELAYOPS_REDIS_URL=redis-cluster://… setting: a valid invoice succeeds
// with one review, a rejected one is dead-lettered with its reason, the
// api's gauges are read from the cluster, and asynqmon lists the cluster's
// queue behind operator auth.
func TestE2E_RedisCluster_JobsSucceedAndDeadLetter_MetricsAndDashboardReadIt(t *testing.T) {
	t.Parallel()
	s := setup(t, options{cluster: true})

	ok := s.submitNew(t, tokA, "inv-cluster-ok", sample(t, "valid-basic-eur.txt")).JobID
	bad := s.submitNew(t, tokA, "inv-cluster-bad", sample(t, "invalid-total-mismatch.txt")).JobID
	other := s.submitNew(t, tokB, "inv-cluster-other", sample(t, "valid-tax-usd.txt")).JobID

	for token, id := range map[string]string{tokA: ok, tokB: other} {
		if j := s.waitState(t, token, id, stateSucceeded); j.Attempt != 1 {
			t.Fatalf("want %s to succeed on attempt 1, got: %v", id, j)
		}
		if rv := s.waitReview(t, token, id); rv.Status != "pending" || rv.EventID == "" {
			t.Fatalf("want a pending review of %s, got: %v", id, rv)
		}
	}
	if l := items[review](t, s, tokA, "/v1/reviews"); len(l) != 1 || l[0].JobID != ok {
		t.Fatalf("want acme's reviews to be exactly [%s], got: %v", ok, l)
	}
	dead := s.waitState(t, tokA, bad, stateDeadLettered)
	if dead.ErrorCode != "permanent_error" || dead.ErrorReason != "total_mismatch" {
		t.Fatalf("want %s dead_lettered with permanent_error / total_mismatch, got: %v", bad, dead)
	}
	if ids := jobIDs(items[job](t, s, tokC, "/v1/dlq")); len(ids) != 1 || ids[0] != bad {
		t.Fatalf("want /v1/dlq to list exactly %s, got %v", bad, ids)
	}

	// The api's cluster-wide gauges are read from the cluster: every part of
	// the collection succeeds, and the dead letter is counted.
	redistest.Eventually(t, jobTimeout, func() bool {
		return s.api.MetricOrZero("relayops_dlq_size", nil) == 1
	}, "the api's relayops_dlq_size to count the dead letter")
	for _, part := range []string{"jobs", "dlq", "outbox", "asynq"} {
		if v := s.api.Metric("relayops_metrics_collect_success", map[string]string{"part": part}); v != 1 {
			t.Fatalf("want relayops_metrics_collect_success{part=%q} 1 on the cluster, got %v", part, v)
		}
	}

	// The tasks went to the queues of their shards; asynqmon lists those
	// queues, and only queues of the layout.
	queues := s.dashboardQueues(t)
	layout, processed := task.NewLayout(0, shards, true), 0
	for _, q := range queues {
		if !slices.Contains(layout.Names(), q.Queue) {
			t.Fatalf("want asynqmon to list only the queues %v, got: %+v", layout.Names(), queues)
		}
		processed += q.Processed
	}
	if processed < 3 {
		t.Fatalf("want asynqmon's queues to count the 3 processed tasks, got: %+v", queues)
	}
}

// clusterTwoWorkers is the deployment of the cluster scenarios: the api and
// two worker processes on a 3-master Redis Cluster, sharing its queues.
var clusterTwoWorkers = options{cluster: true, workers: 2}

// The scenarios of the single-Redis suite, on a 3-master cluster with two
// workers: submit → success → one review → decision; dead letter → audited
// reprocess; tenant isolation; dedupe and conflict with the extraction run
// once across both workers.
func TestE2E_RedisCluster_TwoWorkers_ValidInvoiceSucceedsReviewedApprovedAndAudited(t *testing.T) {
	t.Parallel()
	validInvoiceSucceedsReviewedApprovedAndAudited(t, setup(t, clusterTwoWorkers))
}

func TestE2E_RedisCluster_TwoWorkers_InvalidInvoiceDeadLettered_ReprocessedWithCorrectedContent(t *testing.T) {
	t.Parallel()
	invalidInvoiceDeadLetteredReprocessedWithCorrectedContent(t, setup(t, clusterTwoWorkers))
}

func TestE2E_RedisCluster_TwoWorkers_TenantIsolation(t *testing.T) {
	t.Parallel()
	tenantIsolation(t, setup(t, clusterTwoWorkers))
}

func TestE2E_RedisCluster_TwoWorkers_DuplicateAndConflictingSubmissions_ExtractOnce(t *testing.T) {
	t.Parallel()
	duplicateAndConflictingSubmissionsExtractOnce(t, setup(t, clusterTwoWorkers))
}

// dashboardQueue is one queue of asynqmon's GET /api/queues.
type dashboardQueue struct {
	Queue     string `json:"queue"`
	Processed int    `json:"processed"`
}

// dashboardQueues reads asynqmon's queue list through the api, as an
// operator (HTTP Basic); without credentials it must answer 401.
func (s *system) dashboardQueues(t *testing.T) []dashboardQueue {
	t.Helper()
	get := func(auth bool) (int, []byte) {
		req, err := http.NewRequest(http.MethodGet, s.api.URL("/monitoring/api/queues"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth {
			req.SetBasicAuth(operator, tokC)
		}
		resp, err := s.client.Do(req)
		if err != nil {
			t.Fatalf("e2e: GET /monitoring/api/queues: %v", err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	if status, body := get(false); status != http.StatusUnauthorized {
		t.Fatalf("want /monitoring/api/queues without credentials to answer 401, got %d: %s", status, body)
	}
	status, body := get(true)
	if status != http.StatusOK {
		t.Fatalf("want /monitoring/api/queues to answer 200 to an operator, got %d: %s", status, body)
	}
	var v struct {
		Queues []dashboardQueue `json:"queues"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("e2e: decode /monitoring/api/queues: %v: %s", err, body)
	}
	return v.Queues
}

// The api and the worker refuse to start on a cluster they cannot use, and
// say which setting is wrong: seeds that do not answer, or a node that
// serves no slot.
func TestE2E_RedisCluster_Unusable_ApiAndWorkerExitNamingTheSetting(t *testing.T) {
	t.Parallel()
	skipShort(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := l.Addr().String()
	l.Close() // nothing listens there now
	lone := redistest.Start(t, &redistest.Options{ClusterNode: true})
	for _, tt := range []struct{ name, url, want string }{
		{"unreachable", "redis-cluster://" + deadAddr + "/", "RELAYOPS_REDIS_URL: Redis Cluster unreachable through 1 seed address(es)"},
		{"slots not covered", "redis-cluster://" + lone.Addr + "/", "RELAYOPS_REDIS_URL: the Redis Cluster does not serve every slot (cluster_state:fail, cluster_slots_ok:0 of 16384)"},
	} {
		for _, bin := range []string{"cmd/api", "cmd/worker"} {
			cmd := exec.Command(proctest.Binary(t, bin))
			cmd.Env = proctest.Env("RELAYOPS_REDIS_URL="+tt.url, "RELAYOPS_HTTP_ADDR=127.0.0.1:0", "RELAYOPS_METRICS_ADDR=127.0.0.1:0")
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("%s, %s: want the process to fail, it exited 0: %s", tt.name, bin, out)
			}
			if !strings.Contains(string(out), tt.want) {
				t.Fatalf("%s, %s: want the error to contain %q, got: %s", tt.name, bin, tt.want, out)
			}
		}
	}
}
