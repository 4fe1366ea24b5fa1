package jobs

import "fmt"

// The job store's schema, declared once: the job record's fields, the
// fields of the outbox and audit stream entries, the states and the
// transitions between them, the common KEYS and ARGV layout of the scripts
// and the ledger's packing. Go reads records and entries only through these
// declarations; the Lua scripts name them F.<name>, EV.<name>, AU.<name>,
// STATE.<name>, KEY.<name>, ARG.<name>, NKEYS and NARGS, which the loader
// replaces with their declared values (luaConstants) when it loads a
// script: they cost nothing at run time, and a script naming an undeclared
// one fails to load. The tables a script indexes at run time (TERMINAL,
// TRANSITIONS, INDEX, JOB_KEYS, the ledger's) are in lua/schema.lua, which
// is generated from this file, with every inlined name documented:
//
//	go generate ./jobs
//
// and checked against it by TestSchemaLua_MatchesDeclarations, which fails
// when the two disagree. A new field or state is one entry here.
//
// Field names are short on purpose: a job record holds about 25 fields and
// a deployment holds millions of records; readable names would cost about
// 200 B per job against a memory target (2,560 B per finished job with a
// 1 KiB input) that has 30 B of headroom. Each short name is documented
// here, and only here.

//go:generate go test -run ^TestSchemaLua_MatchesDeclarations$ . -args -update

// field is one declared field of a record or a stream entry.
type field struct {
	short   string // the name stored in Redis
	name    string // the readable name: F.<name> (record), EV.<name>, AU.<name> in Lua
	ttl     string // record fields: the TTL class of the value ("" for stream fields)
	meaning string
}

// The job record's fields (a hash; key job:<tenant>:<doc>:v<n>). Every
// field lives as long as the record: the "result" TTL class, set when the
// job ends (the record of an open job has no TTL).
const (
	fState           = "st"
	fAttempts        = "att"
	fRecoveries      = "rec"
	fFence           = "fen"
	fToken           = "tok"
	fPayloadHash     = "ph"
	fMaxAttempts     = "ma"
	fMaxRecoveries   = "mr"
	fDeadlineSeconds = "ds"
	fDeadlineAt      = "dl"
	fCreatedAt       = "ca"
	fUpdatedAt       = "ua"
	fEnqueuedAt      = "eq"
	fStartedAt       = "sa"
	fFinishedAt      = "fa"
	fErrorCode       = "ec"
	fErrorReason     = "er"
	fEventID         = "ev"
	fReprocessedFrom = "rf"
	fReprocessedAs   = "ra"
	fReviewStatus    = "rv"
	fReviewCreatedAt = "rca"
	fReviewOperator  = "rop"
	fReviewNote      = "rn"
	fReviewDecidedAt = "rda"
	fCheckpointed    = "ck"
	fCorrections     = "cx"
	fReviewCorrected = "rcx"
	fDuplicate       = "dup"
	fCredits         = "crd"
)

var recordFields = []field{
	{fState, "state", "result", "the job's state (one of states)"},
	{fAttempts, "attempts", "result", "business attempts started"},
	{fRecoveries, "recoveries", "result", "crash recoveries: claims that found the job running"},
	{fFence, "fence", "result", "the current fencing token; every claim increments it"},
	{fToken, "token", "result", "the latest claim token: a re-run of that claim gets its fence back"},
	{fPayloadHash, "payload_hash", "result", "hex SHA-256 of the input: the idempotency check"},
	{fMaxAttempts, "max_attempts", "result", "limit: business attempts"},
	{fMaxRecoveries, "max_recoveries", "result", "limit: crash recoveries before crash_loop"},
	{fDeadlineSeconds, "deadline_seconds", "result", "limit: the deadline, in seconds from submission (a reprocess reuses it)"},
	{fDeadlineAt, "deadline_at", "result", "unix ms past which a claim cancels the job (deadline_exceeded)"},
	{fCreatedAt, "created_at", "result", "unix ms of the submission; the score in every index"},
	{fUpdatedAt, "updated_at", "result", "unix ms of the last change"},
	{fEnqueuedAt, "enqueued_at", "result", "unix ms the job last became runnable (queued or retrying)"},
	{fStartedAt, "started_at", "result", "unix ms of the first claim"},
	{fFinishedAt, "finished_at", "result", "unix ms of the terminal transition"},
	{fErrorCode, "error_code", "result", "short redacted error code (Code* constants); never content"},
	{fErrorReason, "error_reason", "result", "a rejected document's reason code (dead-lettered with permanent_error)"},
	{fEventID, "event_id", "result", "the extraction.committed eventId, once succeeded"},
	{fReprocessedFrom, "reprocessed_from", "result", "the job key this job reprocesses"},
	{fReprocessedAs, "reprocessed_as", "result", "the job key that reprocesses this job"},
	{fReviewStatus, "review_status", "result", "the review: pending, approved or rejected (absent: no review)"},
	{fReviewCreatedAt, "review_created_at", "result", "unix ms the review consumer created the review"},
	{fReviewOperator, "review_operator", "result", "the operator who decided"},
	{fReviewNote, "review_note", "result", "the operator's note"},
	{fReviewDecidedAt, "review_decided_at", "result", "unix ms of the decision"},
	{fCheckpointed, "checkpointed", "result", "1 once a stage output was checkpointed (absent: the job never had a checkpoint)"},
	{fCorrections, "corrections", "result", "a reprocess with corrections: the operator's field overrides (sealed JSON, like the input), put over the extraction"},
	{fReviewCorrected, "review_corrections", "result", "a decision that corrected fields: the overrides (sealed JSON); the committed result stays as it was"},
	{fDuplicate, "duplicate", "result", "a possible duplicate: \"strength|first job key|matched fields\" (strong or weak; number,total,date), set by the review consumer; absent for most jobs"},
	{fCredits, "credits", "result", "a credit note or corrective invoice: the job key of the invoice it refers to, when relayops knows it"},
}

// The outbox stream's entry fields (one stream per shard, read by the
// relay). One meaning per field name.
const (
	evType    = "t"
	evKey     = "k"
	evEventID = "e"
	evAt      = "at"
	evReason  = "r"
	// The terminal and review events (read by the webhook notifier).
	evCode        = "c"
	evErrorReason = "er"
	evDecision    = "d"
	evCorrected   = "cf"
	// extraction.committed of a booked document: its duplicate fingerprint
	// and its document type.
	evFingerprint = "fp"
	evDocType     = "dt"
)

var outboxFields = []field{
	{evType, "type", "", "the event type: job.submitted, extraction.committed, job.dead_lettered, job.cancelled or review.decided"},
	{evKey, "key", "", "the job key"},
	{evEventID, "event_id", "", "extraction.committed: the eventId the review consumer dedupes on"},
	{evAt, "at", "", "unix ms (the store's clock) the entry was written"},
	{evReason, "reason", "", "job.submitted written again by the reconciler: \"reconcile\""},
	{evCode, "code", "", "job.dead_lettered, job.cancelled: the job's error code"},
	{evErrorReason, "error_reason", "", "job.dead_lettered: a rejected document's reason code, if any"},
	{evDecision, "decision", "", "review.decided: approved or rejected"},
	{evCorrected, "corrected_fields", "", "review.decided: the names of the fields the decision corrected, comma-separated (names only, never values)"},
	{evFingerprint, "fingerprint", "", "extraction.committed of an invoice or credit note: its duplicate fingerprint (salted hashes only, package supplier)"},
	{evDocType, "document_type", "", "extraction.committed of a booked document: invoice, creditNote or correctiveInvoice (for the webhook)"},
}

// The audit stream's entry fields (one stream per shard). One meaning per
// field name: the reprocess reason is r, the review decision is d.
// Entries written before d existed carry a review_decided decision in r;
// auditFromValues reads those as decisions (they age out with the audit
// retention).
const (
	auAction   = "a"
	auTenant   = "tn"
	auKey      = "k"
	auNewKey   = "nk"
	auOperator = "op"
	auReason   = "r"
	auDecision = "d"
	auOldHash  = "oh"
	auNewHash  = "nh"
	auAt       = "at"
	auNote     = "n"
	auChanges  = "cf"
	auOverrule = "ov"
	auNotDup   = "nd"
)

var auditFields = []field{
	{auAction, "action", "", "submitted, reprocessed or review_decided"},
	{auTenant, "tenant", "", "the job's tenant"},
	{auKey, "key", "", "the job key"},
	{auNewKey, "new_key", "", "reprocessed: the job key created"},
	{auOperator, "operator", "", "reprocessed, review_decided: the operator"},
	{auReason, "reason", "", "reprocessed: the operator's reason"},
	{auDecision, "decision", "", "review_decided: approved or rejected"},
	{auOldHash, "old_hash", "", "reprocessed: the dead job's payload hash"},
	{auNewHash, "new_hash", "", "submitted, reprocessed: the new job's payload hash"},
	{auAt, "at", "", "unix ms (the store's clock)"},
	{auNote, "note", "", "review_decided: the operator's note"},
	{auChanges, "changes", "", "reprocessed, review_decided with corrections: each corrected field's name, value read and value given (sealed JSON: document data, shown to operators only)"},
	{auOverrule, "overruled", "", "reprocessed with corrections: the reason code the operator overruled (not_an_invoice), if any"},
	{auNotDup, "not_duplicate_of", "", "review_decided: the approval of a possible duplicate names the first job it is not a duplicate of"},
}

// The job states, in lifecycle order (State* constants).
var states = []State{StateQueued, StateRunning, StateRetrying, StateSucceeded, StateDeadLettered, StateCancelled}

// stateNew is the source of the creation transition: no job yet.
const stateNew State = ""

// transitions are the state changes the scripts may make, all through
// lib.lua's set_state, which refuses any other (an error reply: a broken
// invariant). A claim that finds the job running (a crash recovery) keeps
// it running: that is not a transition.
var transitions = map[State][]State{
	stateNew:      {StateQueued},                                                      // submit, reprocess (the new version)
	StateQueued:   {StateRunning, StateCancelled},                                     // claim; claim past the deadline
	StateRetrying: {StateRunning, StateCancelled},                                     // claim; claim past the deadline
	StateRunning:  {StateRetrying, StateSucceeded, StateDeadLettered, StateCancelled}, // fail, commit, fail/crash loop, fail/deadline
}

// terminal are the states no script leaves.
var terminal = []State{StateSucceeded, StateDeadLettered, StateCancelled}

// stateOpen names the tenant index of the non-terminal states: a job moves
// between open states on every attempt, and one index for them spares each
// claim and retry its index writes.
const stateOpen State = "open"

// indexStates are the distinct state indexes of a tenant, in the order of
// their KEYS.
var indexStates = []State{stateOpen, StateSucceeded, StateDeadLettered, StateCancelled}

// keySlot is one entry of the common KEYS layout.
type keySlot struct {
	name    string // KEY.<name> in Lua: the slot's index in KEYS
	meaning string
	build   func(ks keyspace, k Key, shard int) string
}

// jobKeySlots are the keys of one job version, first in the common layout
// and in this order wherever a script takes another job's keys (reprocess:
// the new version's). lib.lua's job_keys(base, key) reads them.
var jobKeySlots = []keySlot{
	{"job", "job record (hash)", func(ks keyspace, k Key, _ int) string { return ks.job(k) }},
	{"input", "input (string)", func(ks keyspace, k Key, _ int) string { return ks.input(k) }},
	{"result", "result (string)", func(ks keyspace, k Key, _ int) string { return ks.result(k) }},
	{"ckpt", "checkpoints (hash)", func(ks keyspace, k Key, _ int) string { return ks.checkpoints(k) }},
	{"ledger", "ledger entry (string)", func(ks keyspace, k Key, _ int) string { return ks.ledger(k) }},
}

// commonKeys is the KEYS layout every script of one job starts with (one
// hash tag, one slot); script-specific KEYS follow it.
var commonKeys = append(append([]keySlot{}, jobKeySlots...),
	keySlot{"doc", "the document's highest version (string)", func(ks keyspace, k Key, _ int) string { return ks.document(k) }},
	keySlot{"outbox", "the shard's outbox stream", func(ks keyspace, _ Key, sh int) string { return ks.outbox(sh) }},
	keySlot{"audit", "the shard's audit stream", func(ks keyspace, _ Key, sh int) string { return ks.audit(sh) }},
	keySlot{"tenants", "the shard's tenants (set): the reconciler reads their open indexes", func(ks keyspace, _ Key, sh int) string { return ks.tenants(sh) }},
	keySlot{"dlq", "the shard's dead-letter index (zset)", func(ks keyspace, _ Key, sh int) string { return ks.dlq(sh) }},
	indexSlot(stateOpen), indexSlot(StateSucceeded), indexSlot(StateDeadLettered), indexSlot(StateCancelled),
)

func indexSlot(st State) keySlot {
	return keySlot{"idx_" + string(st), "the tenant's index of " + string(st) + " jobs (zset)",
		func(ks keyspace, k Key, sh int) string { return ks.tenantState(sh, k.Tenant, st) }}
}

// commonArgs is the ARGV layout every script of one job starts with;
// script-specific ARGV follow it. familyArgsAt writes them in this order.
var commonArgs = []field{
	{"", "key", "", "the job key"},
	{"", "now", "", "unix ms, from the injected clock"},
	{"", "input_ttl", "", "ms: input"},
	{"", "result_ttl", "", "ms: result, checkpoints, job record, indexes"},
	{"", "ledger_ttl", "", "ms: ledger entry and document version (0: forever)"},
	{"", "audit_retention", "", "ms: audit stream entries"},
}

// The ledger entry, the small record that outlives the job: one state byte,
// the raw 32-byte payload hash, the raw 16-byte eventId (zero bytes if
// none), then "finishedMs|code|flags" (no flags are defined yet).
var ledgerStateBytes = map[State]byte{StateSucceeded: 's', StateDeadLettered: 'd', StateCancelled: 'c'}

const (
	ledgerHashEnd  = 33 // the payload hash is bytes [1, 33)
	ledgerEventEnd = 49 // the eventId is bytes [33, 49)
)

// ledgerState is the state a ledger entry's first byte stands for.
func ledgerState(b byte) (State, bool) {
	for st, c := range ledgerStateBytes {
		if c == b {
			return st, true
		}
	}
	return "", false
}

// luaConstants maps every name the loader inlines into the scripts to its
// Lua value: F.state -> 'st', KEY.job -> 1, NKEYS -> 14, ...
func luaConstants() map[string]string {
	m := map[string]string{
		"NKEYS": fmt.Sprint(len(commonKeys)),
		"NARGS": fmt.Sprint(len(commonArgs)),
	}
	for table, fs := range map[string][]field{"F": recordFields, "EV": outboxFields, "AU": auditFields} {
		for _, f := range fs {
			m[table+"."+f.name] = "'" + f.short + "'"
		}
	}
	for _, st := range states {
		m["STATE."+string(st)] = "'" + string(st) + "'"
	}
	for i, k := range commonKeys {
		m["KEY."+k.name] = fmt.Sprint(i + 1)
	}
	for i, a := range commonArgs {
		m["ARG."+a.name] = fmt.Sprint(i + 1)
	}
	return m
}
