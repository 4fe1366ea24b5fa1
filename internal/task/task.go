// Package task is the contract between the relay that enqueues Asynq tasks and
// the worker that handles them: type names, queue names and payloads. Payloads
// carry references only (the job key), never document content or personal data.
package task

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// TypeExtract is the Asynq task type of the extraction pipeline. Its TaskID is
// the job key.
const TypeExtract = "relayops:extract"

// QueueExtract is the first Asynq queue of extraction tasks, and the only
// one of a layout of one queue.
const QueueExtract = "extract"

// ClusterQueues is the number of extraction queues of a deployment on a
// Redis Cluster that sets none (RELAYOPS_QUEUES): with 16 queues every
// master of a 3-master cluster serves five or six of them.
const ClusterQueues = 16

// Layout spreads extraction tasks over Queues Asynq queues: the task of a job
// of shard s goes to queue s mod Queues. Asynq keeps each queue in one Redis
// Cluster slot (its keys share the hash tag {<queue>}), so one queue is
// served by one master; several queues spread the queue work over the
// masters. Queue 0 is QueueExtract and queue i is "extract-<i>", so a layout
// of one queue is the single "extract" queue of earlier releases, and a
// deployment that grows its layout keeps serving the tasks already waiting
// there. The zero Layout has one queue.
type Layout struct {
	Queues int
}

// NewLayout is the layout of a deployment of the given shards that asks for
// queues queues. 0 is the default: ClusterQueues on a Redis Cluster, where
// the queues spread the queue work over the masters, and one queue on one
// Redis, where there is nothing to spread and every extra queue costs an
// idle worker a poll. There are never more queues than shards (a queue
// without a shard would stay empty).
func NewLayout(queues, shards int, cluster bool) Layout {
	if queues == 0 {
		queues = 1
		if cluster {
			queues = ClusterQueues
		}
	}
	return Layout{Queues: max(min(queues, shards), 1)}
}

// queues is the number of queues, 1 for the zero Layout.
func (l Layout) queues() int { return max(l.Queues, 1) }

// Queue returns the queue of the tasks of shard.
func (l Layout) Queue(shard int) string { return queueName(shard % l.queues()) }

// Names returns every queue of the layout, QueueExtract first.
func (l Layout) Names() []string {
	names := make([]string, l.queues())
	for i := range names {
		names[i] = queueName(i)
	}
	return names
}

func queueName(i int) string {
	if i == 0 {
		return QueueExtract
	}
	return QueueExtract + "-" + strconv.Itoa(i)
}

// ExtractPayload is the payload of a TypeExtract task.
type ExtractPayload struct {
	JobKey string `json:"jobKey"`
}

// Marshal encodes p.
func (p ExtractPayload) Marshal() []byte {
	b, _ := json.Marshal(p) // a struct of one string cannot fail to encode
	return b
}

// ParseExtractPayload decodes and checks a TypeExtract payload. A payload
// exactly as Marshal writes it, with nothing in the key that JSON escapes,
// is read directly (encoding/json took a tenth of a microsecond per byte
// here, 10 µs of every job's CPU); anything else goes through json.Unmarshal,
// which the fast path agrees with (FuzzParseExtractPayload_MatchesJSON).
func ParseExtractPayload(b []byte) (ExtractPayload, error) {
	if k, ok := plainJobKey(b); ok {
		return ExtractPayload{JobKey: k}, nil
	}
	var p ExtractPayload
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("task: decode extract payload: %w", err)
	}
	if p.JobKey == "" {
		return p, errors.New("task: extract payload has no jobKey")
	}
	return p, nil
}

// TypeWebhook is the Asynq task type of one webhook delivery (one event to
// one endpoint). Its TaskID is the delivery's webhook-id; its payload
// (package webhook) carries the event's IDs and codes, never document
// content.
const TypeWebhook = "relayops:webhook"

// QueueWebhooks is the Asynq queue webhook deliveries are enqueued to, apart
// from the extraction queues, so a slow receiver never holds up extraction.
const QueueWebhooks = "webhooks"

// plainJobKey reads {"jobKey":"<key>"} when <key> is a non-empty JSON string
// without escapes: valid UTF-8, no quote, backslash or control character.
func plainJobKey(b []byte) (string, bool) {
	const prefix, suffix = `{"jobKey":"`, `"}`
	if len(b) <= len(prefix)+len(suffix) || string(b[:len(prefix)]) != prefix || string(b[len(b)-len(suffix):]) != suffix {
		return "", false
	}
	k := b[len(prefix) : len(b)-len(suffix)]
	for _, c := range k {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(k) {
		return "", false
	}
	return string(k), true
}

// TypeLearn is the Asynq task type of a supplier profile's learning from
// an approved review (the worker reads the document and the approved
// values). Its TaskID is "learn:" + the job key; its payload an
// ExtractPayload (the job key).
const TypeLearn = "relayops:learn"

// LearnTaskID is the TaskID of job key's learning.
func LearnTaskID(jobKey string) string { return "learn:" + jobKey }
