package worker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	// Asynq registers its task message type (asynq.TaskMessage) with the
	// protobuf registry when it is linked; the import makes sure it is.
	_ "github.com/hibiken/asynq"

	"github.com/relayops/relayops/internal/scriptpipe"
)

// taskWriter enqueues Asynq tasks many at a time, in one pipelined round
// trip, and writes exactly what asynq.Client.Enqueue writes for them: the
// same message bytes (Asynq's own registered protobuf type, found by name),
// the same keys, the same script (EXISTS, HSET, LPUSH), the queue in the
// set of all queues. asynq.Client enqueues one task per round trip, which
// cost the relay a round trip per job; Asynq has no batch enqueue.
//
// This leans on Asynq's storage layout, which is not its public API: the
// key names, the hash fields and the message type. The test
// TestTaskWriter_WritesWhatAsynqClientWrites compares, field for field and
// byte for byte, what this writes with what asynq.Client writes for the
// same task, so an Asynq upgrade that changes the layout fails it before it
// ships; and newTaskWriter refuses to start if the message type or one of
// its fields is missing.
type taskWriter struct {
	rdb redis.UniversalClient
	msg protoreflect.MessageType
	// fields of asynq.TaskMessage used here, by name
	typ, payload, id, queue, retry, timeout, deadline, retention protoreflect.FieldDescriptor
	// queues already added to asynq:queues by this process (asynq.Client
	// does the same: once per queue per client)
	queues sync.Map
}

// asynqTaskMessage is the full name of Asynq's task message type.
const asynqTaskMessage = "asynq.TaskMessage"

// Asynq's keys (asynq/internal/base): the set of all queues, a queue's
// pending list and a task's hash.
const asynqAllQueues = "asynq:queues"

func asynqPendingKey(queue string) string { return "asynq:{" + queue + "}:pending" }

func asynqTaskKey(queue, id string) string { return "asynq:{" + queue + "}:t:" + id }

// enqueueTaskScript is Asynq's enqueue script, unchanged: write the task
// unless a task with its ID exists (0), then push its ID on the pending list.
var enqueueTaskScript = redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 1 then
	return 0
end
redis.call("HSET", KEYS[1],
           "msg", ARGV[1],
           "state", "pending",
           "pending_since", ARGV[3])
redis.call("LPUSH", KEYS[2], ARGV[2])
return 1
`)

// errTaskExists is a task whose ID is taken (pending, running, retrying,
// archived, or completed within its retention): asynq.ErrTaskIDConflict.
var errTaskExists = errors.New("worker: task ID exists")

func newTaskWriter(rdb redis.UniversalClient) (*taskWriter, error) {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(asynqTaskMessage)
	if err != nil {
		return nil, fmt.Errorf("worker: Asynq's message type %s: %w", asynqTaskMessage, err)
	}
	w := &taskWriter{rdb: rdb, msg: mt}
	fields := mt.Descriptor().Fields()
	var missing []string
	for name, fd := range map[string]*protoreflect.FieldDescriptor{
		"type": &w.typ, "payload": &w.payload, "id": &w.id, "queue": &w.queue, "retry": &w.retry,
		"timeout": &w.timeout, "deadline": &w.deadline, "retention": &w.retention,
	} {
		if *fd = fields.ByName(protoreflect.Name(name)); *fd == nil {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("worker: Asynq's message type %s has no field %v: this Asynq version is not supported", asynqTaskMessage, missing)
	}
	return w, nil
}

// asynqTask is one task to enqueue, with asynq.Client's options: queue,
// TaskID, MaxRetry, Timeout and Retention (whole seconds, truncated as
// Asynq does), no deadline.
type asynqTask struct {
	typ                string
	payload            []byte
	queue, id          string
	maxRetry           int
	timeout, retention time.Duration
}

// encode is the message asynq.Client writes for t.
func (w *taskWriter) encode(t asynqTask) ([]byte, error) {
	m := w.msg.New()
	m.Set(w.typ, protoreflect.ValueOfString(t.typ))
	m.Set(w.payload, protoreflect.ValueOfBytes(t.payload))
	m.Set(w.id, protoreflect.ValueOfString(t.id))
	m.Set(w.queue, protoreflect.ValueOfString(t.queue))
	m.Set(w.retry, protoreflect.ValueOfInt32(int32(t.maxRetry)))
	m.Set(w.timeout, protoreflect.ValueOfInt64(int64(t.timeout.Seconds())))
	// No deadline: asynq.Client writes time.Unix(0, 0).Unix(), which is 0,
	// and proto3 leaves a zero field out.
	m.Set(w.deadline, protoreflect.ValueOfInt64(0))
	m.Set(w.retention, protoreflect.ValueOfInt64(int64(t.retention.Seconds())))
	return proto.Marshal(m.Interface())
}

// enqueue writes the tasks in one pipeline and returns one error per task:
// nil (enqueued), errTaskExists, or what went wrong. On Redis Cluster the
// pipeline goes to each queue's master (a task's keys share its queue's
// hash tag).
func (w *taskWriter) enqueue(ctx context.Context, tasks []asynqTask) []error {
	errs := make([]error, len(tasks))
	if len(tasks) == 0 {
		return errs
	}
	msgs := make([][]byte, len(tasks))
	for i, t := range tasks {
		if msgs[i], errs[i] = w.encode(t); errs[i] != nil {
			errs[i] = fmt.Errorf("encode Asynq task %s: %w", t.id, errs[i])
		}
	}
	now := time.Now().UnixNano() // pending_since, as Asynq writes it
	var calls []scriptpipe.Call
	at := make([]int, 0, len(tasks)) // calls[j] enqueues tasks[at[j]]
	var newQueues []string
	for i, t := range tasks {
		if _, known := w.queues.Load(t.queue); !known && !slices.Contains(newQueues, t.queue) {
			newQueues = append(newQueues, t.queue)
		}
		if errs[i] == nil {
			calls = append(calls, scriptpipe.Call{Keys: []string{asynqTaskKey(t.queue, t.id), asynqPendingKey(t.queue)}, Args: []any{msgs[i], t.id, now}})
			at = append(at, i)
		}
	}
	pipe := w.rdb.Pipeline()
	var sadd *redis.IntCmd
	if len(newQueues) > 0 {
		sadd = pipe.SAdd(ctx, asynqAllQueues, stringsToAny(newQueues)...)
	}
	queued := scriptpipe.Queue(ctx, pipe, enqueueTaskScript, calls)
	_, _ = pipe.Exec(ctx) // each command's error is read below
	if sadd != nil && sadd.Err() == nil {
		for _, q := range newQueues {
			w.queues.Store(q, true)
		}
	}
	scriptpipe.Retry(ctx, w.rdb, enqueueTaskScript, calls, queued)
	cmds := make([]*redis.Cmd, len(tasks))
	for j, cmd := range queued {
		cmds[at[j]] = cmd
	}
	for i, cmd := range cmds {
		if cmd == nil {
			continue
		}
		n, err := cmd.Int64()
		switch {
		case err != nil:
			errs[i] = err
		case sadd != nil && sadd.Err() != nil:
			// The task is written, but its queue may be missing from the
			// set of all queues (which the dashboard lists): not published
			// until the SADD is, on the next try.
			errs[i] = fmt.Errorf("add queue %s to %s: %w", tasks[i].queue, asynqAllQueues, sadd.Err())
		case n == 0:
			errs[i] = errTaskExists
		}
	}
	return errs
}

func stringsToAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
