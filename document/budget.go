package document

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/relayops/relayops/extract"
)

// DefaultMemoryBytes is the read stage's memory budget per process when
// Config.MemoryBytes is 0: 1 GiB.
const DefaultMemoryBytes = 1 << 30

// ErrBusy: the read waited for the process's resources (its share of the
// memory budget, a PDF instance) until its context ended. The process was
// busy, the document is not at fault: a later attempt may read it.
var ErrBusy = errors.New("document: waited for the reader until the attempt ended")

// Budget is the memory the read stage may hold at once in one process,
// shared by every job it runs: decoded page images, rendered pages and the
// OCR processes reading them. Each step reserves what it will cost,
// estimated from the file's headers, before it pays for it, and gives it
// back when done, so the sum over all jobs never passes the budget. A
// reservation that does not fit waits, first come first served, for as long
// as its context allows; one larger than the whole budget can never fit and
// is refused too_large_to_read.
type Budget struct {
	total    int64
	sem      *semaphore.Weighted
	reserved atomic.Int64
	waits    atomic.Int64
}

// NewBudget returns a budget of total bytes (DefaultMemoryBytes when
// total <= 0).
func NewBudget(total int64) *Budget {
	if total <= 0 {
		total = DefaultMemoryBytes
	}
	return &Budget{total: total, sem: semaphore.NewWeighted(total)}
}

// Reserve takes n bytes of the budget and returns the function that gives
// them back (call it once). It waits while the budget is taken by others;
// when ctx ends first it returns an error wrapping ErrBusy and ctx's
// error. n larger than the whole budget is a *extract.Rejection
// too_large_to_read at once.
func (b *Budget) Reserve(ctx context.Context, n int64) (release func(), err error) {
	n = max(n, 1)
	if n > b.total {
		return nil, &LimitError{Reason: extract.ReasonTooLargeToRead, Need: n, Limit: b.total}
	}
	if !b.sem.TryAcquire(n) {
		b.waits.Add(1)
		if err := b.sem.Acquire(ctx, n); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBusy, err)
		}
	}
	b.reserved.Add(n)
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			b.reserved.Add(-n)
			b.sem.Release(n)
		}
	}, nil
}

// Total is the budget's size in bytes.
func (b *Budget) Total() int64 { return b.total }

// Reserved is the bytes reserved now.
func (b *Budget) Reserved() int64 { return b.reserved.Load() }

// Waits counts the reservations that had to wait.
func (b *Budget) Waits() int64 { return b.waits.Load() }

// LimitError is a read refused because the document is over a limit: it
// costs more memory than the whole budget (too_large_to_read), or it has
// more pages than are read (too_many_pages). Need and Limit are the figures
// (bytes or pages; Need is the document's real page count); they name no
// content and go to logs. It is a *extract.Rejection with Reason.
type LimitError struct {
	Reason      string
	Need, Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("document: %s: %d, at most %d", e.Reason, e.Need, e.Limit)
}

// Unwrap makes a LimitError the rejection it is.
func (e *LimitError) Unwrap() error { return extract.Reject(e.Reason) }
