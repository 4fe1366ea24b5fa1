// Package e2e holds relayops' end-to-end tests: the real cmd/api and
// cmd/worker binaries, built once per test run, against a real redis-server,
// driven only over HTTP the way a client and an operator would drive them.
//
// Each test deploys its own system — a redis-server on a free loopback port
// (internal/redistest), one api process and one or more worker processes,
// all on the same RELAYOPS_SHARDS, started through the project's process
// harness (internal/proctest) — waits for /readyz and the worker's
// /healthz, and stops every process with SIGTERM (SIGKILL after a timeout)
// when it ends; a process that exits non-zero or ignores SIGTERM fails the
// test. Every answer is checked against the /openapi.json the api serves;
// the workers are checked through their /metrics. On failure the tail of
// each process's output is printed.
//
// The package has no non-test code. Run it with
//
//	go test -count=1 ./e2e/
//
// It is skipped with -short, and skipped loudly when redis-server is not on
// PATH unless RELAYOPS_REQUIRE_REDIS=1 (CI sets it), which makes that a
// failure.
package e2e
