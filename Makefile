# relayops developer tasks. Everything needs only Go; `make test` and
# `make test-quick` also use redis-server and chromium when present (CI requires
# them, see .ci/run), and `make lint-openapi` needs node and npm (npx).

GO                  ?= go
TEST_TIMEOUT        ?= 15m
STATICCHECK_VERSION ?= v0.8.2
REDOCLY_VERSION     ?= 2.77.0
# Redocly CLI 2.x needs node 20.19+; Debian 12's nodejs is 18, so the linter
# runs on node from the npm registry (the `node` package), whatever node the
# machine has: npx and npm are all it needs.
LINT_NODE_VERSION   ?= 22
# Build tags of `make test` and `make lint`. `slow` adds the process
# tests that wait for Asynq's 30 s lease to expire (about a minute each);
# plain `go test ./...` and `make test-quick` leave them out.
TEST_TAGS           ?= slow
# Fuzz targets as package:FuzzName, space separated, e.g.
#   ./jobs:FuzzKey ./api:FuzzSubmit
FUZZ_TARGETS        ?= ./jobs:FuzzKey ./jobs:FuzzParseKey ./internal/config:FuzzFromEnv ./api:FuzzSubmit ./extract/rules:FuzzRules
FUZZTIME            ?= 20s
# Flags of the three comparisons of `make bench`. The defaults are the sizes
# the performance targets are stated in (about two minutes on a 2-core
# machine); a quick look: BENCH_DRAIN_FLAGS="-n 2000 -rounds 1"
# BENCH_LATENCY_FLAGS="-duration 3s -idle 2s" BENCH_SUBMIT_FLAGS="-n 5000".
BENCH_DRAIN_FLAGS   ?= -n 10000 -rounds 3
BENCH_LATENCY_FLAGS ?= -rate 200,1000 -duration 10s -idle 5s
BENCH_SUBMIT_FLAGS  ?= -n 20000 -connections 50 -rounds 3
# Flags of scripts/eval, e.g. EVAL_FLAGS="-v" to list every failure, or
# "-extractor rules -seed 7 -n 2000".
EVAL_FLAGS          ?=
# Flags of scripts/evalinbox, e.g. EVAL_INBOX_FLAGS="-v" to list every refusal,
# failure and false success, "-profiles on" for one run, "-only kelpie-hosting-au".
EVAL_INBOX_FLAGS    ?=

.PHONY: run test test-all test-quick bench bench-micro lint lint-openapi build fuzz eval eval-real eval-inbox

## run: everything in one process on an in-memory Redis. The binary is built
## into bin/ and exec'd (not `go run`), so Ctrl-C reaches the program itself,
## which stops cleanly with status 0 and make reports no error.
run:
	$(GO) build -o bin/dev ./cmd/dev
	exec ./bin/dev

## test: every test, uncached: the process tests (the real binaries: end to
## end, the worker's processes, make run) and the slow ones (-tags slow), what
## CI runs (.ci/run): 8 to 15 minutes on 2 cores, mostly waiting on
## processes; prints go test's usual lines, then every skipped test and why
test:
	$(GO) run ./scripts/testsummary $(GO) test -json -count=1 -timeout $(TEST_TIMEOUT) -tags '$(TEST_TAGS)' ./...

## test-all: the same as test (its former name)
test-all: test

## test-quick: a developer's quicker run (a few minutes): every package's
## tests with -short, so the process tests and the slow ones are left out;
## then the skipped tests and why
test-quick:
	$(GO) run ./scripts/testsummary $(GO) test -json -count=1 -short -timeout $(TEST_TIMEOUT) ./...

## bench: the three comparisons of the performance targets, each with its
## ratio (figures only, no assertions; needs redis-server): drain rate against
## bare Asynq, open-loop submit → review latency with idle Redis cost, HTTP
## submit against a trivial and a minimal-durable handler
bench:
	@echo "== drain: pipeline vs bare Asynq (scripts/benchpipeline $(BENCH_DRAIN_FLAGS))"
	$(GO) run ./scripts/benchpipeline $(BENCH_DRAIN_FLAGS)
	@echo "== latency: open loop, worker as shipped (scripts/benchpipeline -mode latency $(BENCH_LATENCY_FLAGS))"
	$(GO) run ./scripts/benchpipeline -mode latency $(BENCH_LATENCY_FLAGS)
	@echo "== HTTP submit vs baselines (scripts/benchsubmit $(BENCH_SUBMIT_FLAGS))"
	$(GO) run ./scripts/benchsubmit $(BENCH_SUBMIT_FLAGS)

## bench-micro: job store, relay and extractor Go benchmarks
bench-micro:
	$(GO) test -run '^$$' -bench . -benchmem ./jobs/... ./outbox/... ./extract/...

## eval: extraction accuracy on the generated and hand-written corpus; prints
## the whole table, then fails (exit 1) when an accuracy target is missed
eval:
	$(GO) run ./scripts/eval $(EVAL_FLAGS)

## eval-real: the rules on real PDFs (testdata/real, the hybrid PDFs of
## testdata/einvoice) per source, language and document type, and every
## committed field against the truth, then the generated corpus; fails on
## any false success (needs pdftotext and pdfdetach: poppler-utils)
eval-real:
	$(GO) run ./scripts/evalreal $(EVAL_REAL_FLAGS)
	$(GO) run ./scripts/eval $(EVAL_FLAGS)

## eval-inbox: the inbox replay: the real corpus supplier by supplier through the
## real api and worker (built here) on a throwaway redis-server, each PDF
## submitted as a file, each rejection corrected with its truth through the
## reprocess route as a clerk would, each result reviewed; once with supplier
## profiles and once without, on fresh systems. Prints a line per document as
## it goes (about a minute on 2 cores with a warm build cache), then the tables
## per supplier and in total and the targets; fails when one is missed (needs
## redis-server and pdfdetach)
eval-inbox:
	$(GO) run ./scripts/evalinbox $(EVAL_INBOX_FLAGS)

## lint: gofmt, go vet, staticcheck (with the test build tags)
lint:
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt -w needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet -tags '$(TEST_TAGS)' ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -tags '$(TEST_TAGS)' ./...

## lint-openapi: api/openapi.json against Redocly's recommended rules (an
## independent linter beside the API tests' kin-openapi); fails on any error
## or warning
lint-openapi:
	@problems="$$(npx --yes -p node@$(LINT_NODE_VERSION) -p @redocly/cli@$(REDOCLY_VERSION) redocly lint --format=summary api/openapi.json)"; status=$$?; \
	if [ -n "$$problems" ]; then printf '%s\n' "$$problems"; fi; \
	if [ $$status -ne 0 ] || printf '%s\n' "$$problems" | grep -qi '^warning'; then \
		echo "lint-openapi: api/openapi.json has problems; details: npx @redocly/cli@$(REDOCLY_VERSION) lint api/openapi.json"; exit 1; \
	fi; echo "lint-openapi: api/openapi.json: no errors, no warnings"

## build: the binaries into bin/
build:
	$(GO) build -o bin/ ./cmd/...

## fuzz: each of FUZZ_TARGETS for FUZZTIME
fuzz:
	@if [ -z "$(strip $(FUZZ_TARGETS))" ]; then echo "fuzz: FUZZ_TARGETS is empty; nothing to run"; exit 0; fi
	@set -e; for target in $(FUZZ_TARGETS); do \
		pkg="$${target%%:*}"; name="$${target##*:}"; \
		echo "== fuzz $$pkg $$name for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) "$$pkg"; \
	done
