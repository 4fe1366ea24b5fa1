#!/bin/sh
# bench-pipeline: drains N jobs (default 20000) through relayops' full
# pipeline (submit → relay → extract → commit → relay → review) and N no-op
# tasks through bare Asynq on the same redis-server, in interleaved rounds,
# and prints both rates, their ratio and Redis commands per job.
# Needs Go and redis-server (or -redis-url URL of a Redis it may FLUSHALL).
#
#   scripts/bench-pipeline.sh [-n 20000] [-rounds 2] [-concurrency 20] [-redis-url URL]
#   scripts/bench-pipeline.sh -mode latency [-rate 200,1000] [-duration 10s] [-idle 5s]
# (the open-loop submit → review latency with one worker as shipped, and the
# idle Redis commands per second of a worker and of a bare Asynq server).
# `make bench` runs this and the HTTP submit comparison (scripts/benchsubmit).
set -eu
cd "$(dirname "$0")/.."
exec go run ./scripts/benchpipeline "$@"
