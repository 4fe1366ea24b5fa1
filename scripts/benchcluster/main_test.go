package main

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The whole benchmark on a tiny workload: it starts one redis-server and a
// cluster, drains on both, counts idle commands and compares WAIT 0 and 1.
func TestRun_TinyWorkload_DrainsOnBothAndComparesWait(t *testing.T) {
	if testing.Short() {
		t.Skip("benchcluster: starts 7 redis-server processes; skipped with -short")
	}
	for _, tool := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("RELAYOPS_REQUIRE_REDIS") == "1" {
				t.Fatalf("benchcluster: %s not found and RELAYOPS_REQUIRE_REDIS=1", tool)
			}
			t.Skipf("SKIPPING: %s not found on PATH (apt-get install -y redis-server)", tool)
		}
	}
	require.NoError(t, run(options{
		n: 40, rounds: 1, waitN: 40, concurrency: 4, shards: 16, submitters: 4,
		idle: 100 * time.Millisecond, timeout: time.Minute,
		contentPath: "../../testdata/invoices/valid-basic-eur.txt", clusterScript: "../redis-cluster.sh",
	}))
}
