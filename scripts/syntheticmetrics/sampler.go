package main

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/task"
)

// sample is the extract queue's depth (pending + active) at a time since
// the start of the run.
type sample struct {
	at    time.Duration
	depth int
}

// sampler reads the Asynq extract queue's depth every sampleEvery.
type sampler struct {
	insp  *asynq.Inspector
	start time.Time
	done  chan struct{}
	once  sync.Once

	mu    sync.Mutex
	taken []sample
	err   error
}

func newSampler(rdb redis.UniversalClient, start time.Time) *sampler {
	return &sampler{insp: asynq.NewInspectorFromRedisClient(rdb), start: start, done: make(chan struct{})}
}

func (s *sampler) run(ctx context.Context) {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	s.take()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-t.C:
			s.take()
		}
	}
}

func (s *sampler) stop() { s.once.Do(func() { close(s.done) }) }

func (s *sampler) take() {
	at := time.Since(s.start)
	depth, err := s.depth()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.err = err
		return
	}
	s.taken = append(s.taken, sample{at: at, depth: depth})
}

// depth is pending + active of the extraction queues (the worker's layout
// spreads tasks over several), each read in one Redis script
// (GetQueueInfo); a queue Asynq has not created yet (before its first
// enqueue) is empty.
func (s *sampler) depth() (int, error) {
	queues, err := s.insp.Queues()
	if err != nil {
		return 0, err
	}
	total := 0
	for _, q := range queues {
		if q != task.QueueExtract && !strings.HasPrefix(q, task.QueueExtract+"-") {
			continue
		}
		info, err := s.insp.GetQueueInfo(q)
		if err != nil {
			return 0, err
		}
		total += info.Pending + info.Active
	}
	return total, nil
}

// last is the latest depth, 0 before the first sample.
func (s *sampler) last() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.taken) == 0 {
		return 0
	}
	return s.taken[len(s.taken)-1].depth
}

func (s *sampler) samples() ([]sample, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sample(nil), s.taken...), s.err
}
