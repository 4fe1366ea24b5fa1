#!/bin/sh
# synthetic-metrics: the reference run of 12 synthetic documents through the
# real pipeline (outbox store, relay, Asynq extract handler with the real
# invoice extractor, review consumer) in one process, with a SYNTHETIC
# inference delay and a SYNTHETIC reviewer. Per document it prints queue
# wait, inference time and review wait as separate columns, the queue depth
# sampled every 100 ms, and which numbers are measured and which are
# synthetic constants. Takes about 10 s; needs only Go.
#
#   scripts/synthetic-metrics.sh [-redis-url URL] [-v]
#
# Default: an in-memory Redis (miniredis) in the same process. With
# -redis-url (or REDIS_URL) it runs on that Redis instead: use a scratch one
# that no other relayops worker serves (the run adds its jobs and tasks).
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/syntheticmetrics "$@"
