// Package webhook tells a tenant's systems when its jobs end: completion
// webhooks, signed per the Standard Webhooks convention and delivered at
// least once, with a webhook-id that stays the same across every retry of
// one event to one endpoint (the receiver's idempotency key).
//
// The pieces, in the order an event meets them:
//
//   - Registry: the endpoints of each tenant (URL, event types, signing
//     secrets, disabled reason) and the recent delivery attempts, in Redis
//     under one hash tag per tenant ({wh:<tenant>}), so every script
//     touches one slot on Redis Cluster.
//   - Notifier: called by the outbox relay for each terminal or review
//     event; it enqueues one Asynq task per (event, endpoint) in the
//     "webhooks" queue, TaskID = webhook-id, so a republished outbox row is
//     absorbed. A tenant's endpoints are cached in-process for a short
//     TTL: an event of a tenant without endpoints costs no Redis command.
//   - Deliverer: the Asynq handler of those tasks. It signs and POSTs the
//     event through an SSRF-safe client (Target), records the attempt, and
//     leaves retries (exponential backoff with jitter, Retry-After honoured)
//     to Asynq until the retry window ends.
//
// Payloads carry IDs, states, codes and links, never document content.
package webhook
