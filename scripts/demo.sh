#!/bin/sh
# demo.sh: the relayops story, told to a running system (`make run`, or a real
# deployment). As a tenant it submits the sample invoices, one of them twice
# (deduped), once more with different content under the same key (refused as
# a conflict), and an invalid invoice (dead-lettered); it waits for them,
# prints every job's status, then as the operator reprocesses the dead letter
# with corrected content, approves its review, and prints the audit trail and
# the review queue, the operator console's pages of the jobs it created, and
# last the webhook deliveries to a local receiver it registered at the start
# (scripts/webhookreceiver, which verifies every signature; skipped when the
# server refuses local receivers, as it does outside `make run` unless
# RELAYOPS_WEBHOOK_ALLOW_PRIVATE and RELAYOPS_WEBHOOK_ALLOW_INSECURE are set). It exits non-zero, saying why, on any answer it does not
# expect.
#
#   scripts/demo.sh [API_URL]             default $API_URL, else http://localhost:8080
#
# The API's URL is taken as scripts/submit.sh takes it: the argument, else
# API_URL.
#
# Environment:
#   API_URL                  the API, when no argument names it
#   DEMO_TENANT_TOKEN        tenant token (default acme-demo-tenant-token, from make run)
#   DEMO_OPERATOR_TOKEN      operator token (default alice-demo-operator-token)
#   DEMO_OTHER_TENANT_TOKEN  a second tenant's token, to show it sees none of
#                            this (default globex-demo-tenant-token; empty skips that)
#   DEMO_TIMEOUT             seconds to wait for jobs and reviews (default 60)
#   DEMO_TENANT              the tenant of DEMO_TENANT_TOKEN (default acme), for the webhook
#
# Needs curl, POSIX tools and Go: JSON is read and written by a small helper,
# scripts/demojson, built once per run. Each run uses new document IDs, so the
# demo can run any number of times against the same server.
set -eu

[ $# -le 1 ] || { echo "usage: scripts/demo.sh [API_URL]" >&2; exit 2; }
BASE=${1:-${API_URL:-http://localhost:8080}}
BASE=${BASE%/}
TENANT_TOKEN=${DEMO_TENANT_TOKEN:-acme-demo-tenant-token}
OPERATOR_TOKEN=${DEMO_OPERATOR_TOKEN:-alice-demo-operator-token}
OTHER_TOKEN=${DEMO_OTHER_TENANT_TOKEN-globex-demo-tenant-token}
TIMEOUT=${DEMO_TIMEOUT:-60}
TENANT=${DEMO_TENANT:-acme}

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
samples=$root/testdata/invoices

die() {
	printf '\ndemo: FAILED: %s\n' "$*" >&2
	exit 1
}

case $TIMEOUT in '' | *[!0-9]*) die "DEMO_TIMEOUT must be a whole number of seconds, got '$TIMEOUT'" ;; esac
command -v curl >/dev/null 2>&1 || die "curl is required"
command -v go >/dev/null 2>&1 || die "Go is required (it builds the JSON helper scripts/demojson)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/relayops-demo.XXXXXX")
receiver_pid=
trap '[ -z "$receiver_pid" ] || kill "$receiver_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
resp=$tmp/response.json
headers=$tmp/response.headers
body=$tmp/request.json

J=$tmp/demojson
(cd "$root" && go build -o "$J" ./scripts/demojson) || die "could not build scripts/demojson"
R=$tmp/webhookreceiver
(cd "$root" && go build -o "$R" ./scripts/webhookreceiver) || die "could not build scripts/webhookreceiver"

# ---- helpers -----------------------------------------------------------------

steps=0
step() {
	steps=$((steps + 1))
	printf '\n== %d. %s\n' "$steps" "$*"
}

# call METHOD PATH TOKEN [BODY_FILE]: the answer's status lands in $status, its
# body in $resp, its headers in $headers.
call() {
	last="$1 $2"
	if [ -n "${4-}" ]; then
		status=$(curl -sS --max-time 15 -o "$resp" -D "$headers" -w '%{http_code}' -X "$1" \
			-H "Authorization: Bearer $3" -H 'Content-Type: application/json' \
			--data-binary "@$4" "$BASE$2") || die "$last: no answer from $BASE"
	else
		status=$(curl -sS --max-time 15 -o "$resp" -D "$headers" -w '%{http_code}' -X "$1" \
			-H "Authorization: Bearer $3" "$BASE$2") || die "$last: no answer from $BASE"
	fi
}

# expect STATUS...: fail unless the last answer has one of these statuses.
expect() {
	for want in "$@"; do
		[ "$status" = "$want" ] && return 0
	done
	printf '\ndemo: FAILED: %s answered HTTP %s, expected %s; the answer was:\n' "$last" "$status" "$*" >&2
	sed -n '1,20p' "$resp" >&2
	echo >&2
	exit 1
}

# get PATH: a field of the last answer (see scripts/demojson). Assign it
# (v=$(get x)) rather than test it inline, so a broken answer stops the demo.
get() {
	"$J" get "$1" <"$resp" || die "$last: the answer is not the JSON expected"
}

# check WHAT GOT WANT: fail unless GOT is WANT.
check() {
	[ "$2" = "$3" ] || die "$1: got '$2', expected '$3'"
}

# submit DOC_ID FILE: POST /v1/jobs with FILE's content as version 1 of DOC_ID.
submit() {
	{
		printf '{"documentId":"%s","operationVersion":1,"content":' "$1"
		"$J" quote <"$2"
		printf '}'
	} >"$body"
	call POST /v1/jobs "$TENANT_TOKEN" "$body"
}

# submit_file DOC_ID FILE: POST /v1/jobs with FILE itself as version 1 of
# DOC_ID, as a multipart upload (curl -F file=@FILE); the API tells its type
# from its first bytes.
submit_file() {
	last="POST /v1/jobs (file $(basename "$2"))"
	status=$(curl -sS --max-time 30 -o "$resp" -D "$headers" -w '%{http_code}' -X POST \
		-H "Authorization: Bearer $TENANT_TOKEN" -F "documentId=$1" -F operationVersion=1 \
		-F "file=@$2;type=application/octet-stream" "$BASE/v1/jobs") || die "$last: no answer from $BASE"
}

# reprocess JOB_ID BODY_FILE: POST the reprocess call as the operator; a 429
# (the tenant's reprocess budget, RELAYOPS_REPROCESS_RATE, is spent, e.g. by
# many demo runs in a row) is waited out as its Retry-After says.
reprocess() {
	waited=0
	while :; do
		call POST "/v1/jobs/$1/reprocess" "$OPERATOR_TOKEN" "$2"
		[ "$status" = 429 ] || return 0
		after=$(tr '[:upper:]' '[:lower:]' <"$headers" | sed -n 's/^retry-after: *\([0-9][0-9]*\).*/\1/p' | tail -n 1)
		after=${after:-1}
		waited=$((waited + after))
		[ "$waited" -le "$TIMEOUT" ] || die "$last: still rate-limited (429) after ${TIMEOUT}s"
		printf '  -> 429 rate_limited: the reprocess budget is spent; retrying in %ss (Retry-After)\n' "$after"
		sleep "$after"
	done
}

nap() { sleep 0.2 2>/dev/null || sleep 1; }

# wait_for WHAT N PROBE: call PROBE until it sets $ready to N, printing the
# count whenever it changes and a dot otherwise; fail after DEMO_TIMEOUT.
wait_for() {
	printf '  waiting for %s (at most %ss): ' "$1" "$TIMEOUT"
	started=$(date +%s)
	shown=-1
	while :; do
		"$3"
		if [ "$ready" -ne "$shown" ]; then
			printf '%s/%s done ' "$ready" "$2"
			shown=$ready
		else
			printf '.'
		fi
		[ "$ready" -lt "$2" ] || break
		if [ $(($(date +%s) - started)) -ge "$TIMEOUT" ]; then
			echo
			die "timed out after ${TIMEOUT}s waiting for $1: $ready of $2 done"
		fi
		nap
	done
	echo
}

# probe_jobs: how many of $waiting are in a terminal state.
probe_jobs() {
	ready=0
	for id in $waiting; do
		call GET "/v1/jobs/$id" "$TENANT_TOKEN"
		expect 200
		state=$(get state)
		case $state in succeeded | dead_lettered | cancelled) ready=$((ready + 1)) ;; esac
	done
}

# probe_reviews: how many of $waiting have their review.
probe_reviews() {
	ready=0
	for id in $waiting; do
		call GET "/v1/reviews/$id" "$TENANT_TOKEN"
		expect 200 404
		[ "$status" = 404 ] || ready=$((ready + 1))
	done
}

# show_job ID WANT_STATE [WANT_CODE]: one status line; fails unless the job
# ended as expected.
show_job() {
	call GET "/v1/jobs/$1" "$TENANT_TOKEN"
	expect 200
	state=$(get state)
	attempt=$(get attempt)
	code=$(get errorCode)
	printf '  %-58s %-14s %-8s %s\n' "$1" "$state" "$attempt" "${code:--}"
	check "state of $1" "$state" "$2"
	check "errorCode of $1" "$code" "${3-}"
}

count_of() { "$J" count "$@" <"$resp" || die "$last: the answer is not a JSON list"; }
table_of() { "$J" table "$@" <"$resp" || die "$last: the answer is not a JSON list"; }

# ---- the story ---------------------------------------------------------------

printf 'relayops demo against %s\n' "$BASE"

step "Is the system ready?  GET /readyz"
tries=0
until status=$(curl -sS --max-time 5 -o "$resp" -w '%{http_code}' "$BASE/readyz" 2>/dev/null) && [ "$status" = 200 ]; do
	tries=$((tries + 1))
	[ "$tries" -lt 10 ] || die "$BASE/readyz is not answering 200 (last: HTTP ${status:-none}). Start the system first: make run"
	sleep 1
done
printf '  %s -> %s\n' "$BASE/readyz" "$(cat "$resp")"

step "Register a local webhook receiver for $TENANT  POST /v1/webhooks"
: >"$tmp/secret"
"$R" -secret-file "$tmp/secret" >"$tmp/receiver.log" 2>&1 &
receiver_pid=$!
tries=0
until [ -s "$tmp/receiver.log" ]; do
	tries=$((tries + 1))
	[ "$tries" -lt 50 ] || die "scripts/webhookreceiver did not start: $(cat "$tmp/receiver.log")"
	nap
done
hook_url=$(sed -n 1p "$tmp/receiver.log")
printf '{"tenant":"%s","url":"%s","events":["job.succeeded","job.dead_lettered","job.cancelled","review.decided"]}' "$TENANT" "$hook_url" >"$body"
call POST /v1/webhooks "$OPERATOR_TOKEN" "$body"
expect 201 400
hook_id=
if [ "$status" = 201 ]; then
	hook_id=$(get id)
	get secret >"$tmp/secret"
	printf '  -> 201 %s for %s (its secret, shown once, went to the receiver)\n' "$hook_id" "$hook_url"
else
	printf '  -> 400: this server refuses a local http receiver (%s); the webhook part is skipped\n' "$(get error.message)"
fi

run=$(date +%s)-$$
mine=demo-$run-
step "Submit the valid sample invoices as a tenant  POST /v1/jobs (document IDs $mine*)"
waiting=
expected=
first_doc=
for f in "$samples"/valid-*.txt; do
	[ -f "$f" ] || die "no sample invoices found in $samples"
	doc=$mine$(basename "$f" .txt)
	submit "$doc" "$f"
	expect 202
	id=$(get jobId)
	check "deduped of a new submission" "$(get deduped)" false
	printf '  %-32s -> 202 %s (%s)\n' "$(basename "$f")" "$id" "$(get state)"
	waiting="$waiting $id"
	expected="$expected $id=succeeded="
	if [ -z "$first_doc" ]; then
		first_doc=$doc first_file=$f first_id=$id
		tenant=$(get tenant)
	fi
done

step "Submit documents as suppliers send them: a Factur-X PDF and a UBL e-invoice, read from their XML"
for f in "$root/document/pdf/testdata/mustangproject/EN16931_Einfach.pdf" \
	"$root/testdata/einvoice/en16931/testfiles/Invoice-Min_content_with_VAT.xml"; do
	[ -f "$f" ] || die "no sample file $f"
	doc=$mine$(basename "$f" | tr -c 'A-Za-z0-9._~\n-' '-')
	doc=${doc%.*}
	submit_file "$doc" "$f"
	expect 202
	id=$(get jobId)
	printf '  %-32s -> 202 %s (%s)\n' "$(basename "$f")" "$id" "$(get state)"
	waiting="$waiting $id"
	expected="$expected $id=succeeded="
done

step "Submit $(basename "$first_file") again under the same ID: the same job comes back, deduped"
submit "$first_doc" "$first_file"
expect 200
id=$(get jobId)
deduped=$(get deduped)
check "jobId of the duplicate" "$id" "$first_id"
check "deduped of the duplicate" "$deduped" true
printf '  -> 200 %s deduped:%s (nothing new runs)\n' "$id" "$deduped"

step "Submit different content under that same ID: refused, never silently reused"
{
	cat "$first_file"
	printf 'Note: amended after submission\n'
} >"$tmp/amended.txt"
submit "$first_doc" "$tmp/amended.txt"
expect 409
code=$(get error.code)
check "error code of the conflicting submission" "$code" idempotency_conflict
printf '  -> 409 %s: %s\n' "$code" "$(get error.message)"

step "Submit an invalid invoice (its items add up to 407.50, its total says 420.00)"
submit "${mine}invalid-total-mismatch" "$samples/invalid-total-mismatch.txt"
expect 202
bad_id=$(get jobId)
printf '  %-32s -> 202 %s (%s)\n' invalid-total-mismatch.txt "$bad_id" "$(get state)"
waiting="$waiting $bad_id"
expected="$expected $bad_id=dead_lettered=permanent_error"

njobs=0
for id in $waiting; do njobs=$((njobs + 1)); done
step "Wait for the worker: classify -> extract -> validate -> commit"
wait_for "$njobs jobs" "$njobs" probe_jobs

step "Every job's status  GET /v1/jobs/{jobId}"
printf '  %-58s %-14s %-8s %s\n' jobId state attempt errorCode
for e in $expected; do
	id=${e%%=*}
	rest=${e#*=}
	show_job "$id" "${rest%%=*}" "${rest#*=}"
done

if [ -n "$OTHER_TOKEN" ]; then
	step "Another tenant asks for that job: 404, exactly as for a job that does not exist"
	call GET "/v1/jobs/$bad_id" "$OTHER_TOKEN"
	expect 404
	code=$(get error.code)
	check "error code for another tenant's job" "$code" not_found
	printf '  -> 404 %s\n' "$code"
fi

step "The operator looks at the dead-letter queue  GET /v1/dlq?tenant=$tenant"
call GET "/v1/dlq?tenant=$tenant&limit=500" "$OPERATOR_TOKEN"
expect 200
table_of -match "$mine" jobId state attempt errorCode errorReason
n=$(count_of -match "$mine")
check "dead letters of this run" "$n" 1

step "The operator reprocesses it with the corrected invoice  POST /v1/jobs/$bad_id/reprocess"
{
	printf '{"reason":"demo: corrected total (the items add up to 407.50)","content":'
	"$J" quote <"$samples/corrected-total-mismatch.txt"
	printf '}'
} >"$tmp/reprocess.json"
reprocess "$bad_id" "$tmp/reprocess.json"
expect 201
new_id=$(get jobId)
from=$(get reprocessedFrom)
check "reprocessedFrom of the new job" "$from" "$bad_id"
printf '  -> 201 %s (version %s, reprocessedFrom %s)\n' "$new_id" "$(get operationVersion)" "$from"
reprocess "$bad_id" "$tmp/reprocess.json"
expect 200
id=$(get jobId)
check "jobId of the repeated reprocess" "$id" "$new_id"
printf '  the same call again -> 200 %s (the same new job; nothing new runs)\n' "$id"

step "Wait for the new version"
waiting=$new_id
wait_for "$new_id" 1 probe_jobs
printf '  %-58s %-14s %-8s %s\n' jobId state attempt errorCode
show_job "$new_id" succeeded
total=$(get result.total)
currency=$(get result.currency)
printf '  result: total %s %s\n' "$total" "$currency"
show_job "$bad_id" dead_lettered permanent_error
as=$(get reprocessedAs)
check "reprocessedAs of the dead job" "$as" "$new_id"
printf '  the dead job stays as it was, linked: reprocessedAs %s\n' "$as"

step "Wait for the reviews: one per succeeded job, created from its extraction.committed event"
waiting=
for e in $expected; do
	case $e in *=succeeded=) waiting="$waiting ${e%%=*}" ;; esac
done
waiting="$waiting $new_id"
nreviews=0
for id in $waiting; do nreviews=$((nreviews + 1)); done
wait_for "$nreviews reviews" "$nreviews" probe_reviews

step "The operator approves the corrected invoice  POST /v1/reviews/$new_id/decision"
printf '{"decision":"approve","note":"demo: corrected total checked"}' >"$body"
call POST "/v1/reviews/$new_id/decision" "$OPERATOR_TOKEN" "$body"
expect 200
review_status=$(get status)
check "status of the decided review" "$review_status" approved
printf '  -> 200 %s %s by %s\n' "$new_id" "$review_status" "$(get operator)"

step "The audit trail of the document  GET /v1/audit?jobId=..."
for id in "$bad_id" "$new_id"; do
	call GET "/v1/audit?jobId=$id" "$OPERATOR_TOKEN"
	expect 200
	printf '  jobId=%s\n' "$id"
	table_of at action jobId newJobId operator reason
done
call GET "/v1/audit?jobId=$bad_id" "$OPERATOR_TOKEN"
expect 200
n=$(count_of -where action=reprocessed)
check "reprocessed entries in the audit trail of $bad_id" "$n" 1

step "The review queue, as the operator  GET /v1/reviews?tenant=$tenant"
call GET "/v1/reviews?tenant=$tenant&limit=500" "$OPERATOR_TOKEN"
expect 200
table_of -match "$mine" jobId status operator decidedAt
n=$(count_of -match "$mine")
check "reviews of this run seen by the operator" "$n" "$nreviews"

step "The review queue, as the tenant  GET /v1/reviews"
call GET "/v1/reviews?limit=500" "$TENANT_TOKEN"
expect 200
table_of -match "$mine" jobId status
n=$(count_of -match "$mine")
check "reviews of this run seen by the tenant" "$n" "$nreviews"
n=$(count_of -match "$mine" -where status=pending)
printf '  %s waiting for a human decision, 1 approved\n' "$n"
check "pending reviews of this run" "$n" $((nreviews - 1))

if [ -n "$OTHER_TOKEN" ]; then
	call GET "/v1/reviews?limit=500" "$OTHER_TOKEN"
	expect 200
	n=$(count_of -match "$mine")
	check "reviews of this run seen by another tenant" "$n" 0
	printf '  another tenant sees %s of them\n' "$n"
fi

step "The same jobs in the operator console (a browser asks for the operator's name and token)"
# Each page is fetched once with the operator token, so a broken link fails
# the demo. Job IDs are URL-safe by construction.
console_page() {
	call GET "$1" "$OPERATOR_TOKEN"
	expect 200
	printf '  %s%s\n' "$BASE" "$1"
}
console_page "/console/reviews?tenant=$tenant"
console_page "/console/dlq?tenant=$tenant&include=reprocessed"
for e in $expected; do
	console_page "/console/jobs/${e%%=*}"
done
console_page "/console/jobs/$new_id"
console_page "/console/reviews/$new_id"
console_page "/console/audit?jobId=$bad_id"

if [ -n "$hook_id" ]; then
	# Every succeeded job (the corrected one too), the dead letter and the decision.
	nhooks=$((nreviews + 2))
	step "The webhook deliveries of this run  GET /v1/webhooks/$hook_id/deliveries"
	probe_hooks() {
		call GET "/v1/webhooks/$hook_id/deliveries?limit=500" "$TENANT_TOKEN"
		expect 200
		ready=$(count_of -match "$mine" -where status=delivered)
	}
	wait_for "$nhooks deliveries" "$nhooks" probe_hooks
	table_of -match "$mine" eventType jobId status statusCode latencyMs webhookId
	printf '  the receiver verified each signature:\n'
	grep "$mine" "$tmp/receiver.log" | sed 's/^/    /'
	n=$(grep -c "^verified .*$mine" "$tmp/receiver.log" || true)
	check "verified deliveries at the receiver" "$n" "$nhooks"
	call DELETE "/v1/webhooks/$hook_id" "$OPERATOR_TOKEN"
	expect 204
fi

printf '\ndemo: OK: %s jobs; a duplicate deduped; a conflicting payload refused; a dead letter reprocessed as %s; %s reviews; %s webhooks delivered.\n' \
	"$njobs" "$new_id" "$nreviews" "${nhooks:-0}"
