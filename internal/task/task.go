// Package task is the contract between the relay that enqueues Asynq tasks and
// the worker that handles them: type names, queue names and payloads. Payloads
// carry references only (the job key), never document content or personal data.
package task

import (
	"encoding/json"
	"errors"
	"fmt"
)

// TypeExtract is the Asynq task type of the extraction pipeline. Its TaskID is
// the job key.
const TypeExtract = "relayops:extract"

// QueueExtract is the Asynq queue extraction tasks are enqueued to.
const QueueExtract = "extract"

// ExtractPayload is the payload of a TypeExtract task.
type ExtractPayload struct {
	JobKey string `json:"jobKey"`
}

// Marshal encodes p.
func (p ExtractPayload) Marshal() []byte {
	b, _ := json.Marshal(p) // a struct of one string cannot fail to encode
	return b
}

// ParseExtractPayload decodes and checks a TypeExtract payload.
func ParseExtractPayload(b []byte) (ExtractPayload, error) {
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
