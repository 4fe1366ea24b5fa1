#!/bin/sh
# bench-pipeline: drains N jobs (default 20000) through relayops' full
# pipeline (submit → relay → extract → commit → relay → review) and N no-op
# tasks through bare Asynq on the same redis-server, in interleaved rounds,
# and prints both rates, their ratio and Redis commands per job.
# Needs Go and redis-server (or -redis-url URL of a Redis it may FLUSHALL).
#
#   scripts/bench-pipeline.sh [-n 20000] [-rounds 2] [-concurrency 20] [-redis-url URL]
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/benchpipeline "$@"
