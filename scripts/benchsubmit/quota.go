package main

import (
	"flag"
	"time"

	"github.com/relayops/relayops/quota"
)

// quotas, when set, turns every tenant quota on for the submit side, with
// limits the run never reaches: each submission pays the quota script (and
// its round trip) but none is refused, so the figures compare quotas on and
// off.
var quotas = flag.Bool("quotas", false, "submit side: tenant quotas on (rate, backlog jobs and bytes), limits never reached")

func quotaConfig() quota.Config {
	if !*quotas {
		return quota.Config{}
	}
	return quota.Config{Rate: 1_000_000, Per: time.Second, MaxJobs: 100_000_000, MaxBytes: 1 << 40}
}
