# relayops developer tasks. Everything needs only Go; `make test` also uses
# redis-server and chromium when present (CI requires them, see .ci/run).

GO                  ?= go
TEST_TIMEOUT        ?= 15m
STATICCHECK_VERSION ?= v0.8.2
# Fuzz targets as package:FuzzName, space separated, e.g.
#   ./jobs:FuzzKey ./api:FuzzSubmit
FUZZ_TARGETS        ?= ./jobs:FuzzKey ./jobs:FuzzParseKey ./internal/config:FuzzFromEnv ./api:FuzzSubmit
FUZZTIME            ?= 20s
# Flags of scripts/eval, e.g. EVAL_FLAGS="-v" to list every failure, or
# "-extractor rules -seed 7 -n 2000".
EVAL_FLAGS          ?=

.PHONY: run test bench lint build fuzz eval

## run: everything in one process on an in-memory Redis
run:
	$(GO) run ./cmd/dev

## test: the whole suite, uncached
test:
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

## bench: job store and relay benchmarks (figures only, no assertions)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./jobs/... ./outbox/...

## eval: extraction accuracy on the generated and hand-written corpus; prints
## the whole table, then fails (exit 1) when a target of issue 9 is missed
eval:
	$(GO) run ./scripts/eval $(EVAL_FLAGS)

## lint: gofmt, go vet, staticcheck
lint:
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt -w needed on:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

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
