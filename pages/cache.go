package pages

import (
	"container/list"
	"sync"
	"time"
)

// Key names one rendered page (or, with Page 0, one document's page count)
// of one job. Tenant is the job's tenant: an entry is only ever found by a
// request for that tenant's job, which the API has authorised before it
// asks.
type Key struct {
	Tenant string
	Job    string // the job key (tenant:documentId:vN)
	Page   int    // 1-based; 0: the document's page count
	Pixels int    // the render's pixel budget
}

// result is what a render (or a count) gave: the image, or the page count,
// or the error it failed with. A failure is kept like a success: rendering
// the same page of the same bytes fails the same way, and a document that
// takes seconds to fail (a decompression bomb) must not take them again.
type result struct {
	png   []byte
	count int
	err   error
}

// entryOverhead is what an entry costs beside its image: the key, the list
// element, the map slot.
const entryOverhead = 256

func (r result) size() int64 { return int64(len(r.png)) + entryOverhead }

// cache keeps results by Key, least recently used first out, bounded in
// bytes and in age. It is safe for concurrent use.
type cache struct {
	max int64
	ttl time.Duration

	mu    sync.Mutex
	order *list.List // of *cached, most recently used at the front
	byKey map[Key]*list.Element
	bytes int64
}

type cached struct {
	key     Key
	res     result
	expires time.Time
}

func newCache(maxBytes int64, ttl time.Duration) *cache {
	return &cache{max: maxBytes, ttl: ttl, order: list.New(), byKey: map[Key]*list.Element{}}
}

// get returns k's result unless it is missing or expired at now.
func (c *cache) get(k Key, now time.Time) (result, bool) {
	if c.max <= 0 {
		return result{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[k]
	if !ok {
		return result{}, false
	}
	v := e.Value.(*cached)
	if !now.Before(v.expires) {
		c.remove(e)
		return result{}, false
	}
	c.order.MoveToFront(e)
	return v.res, true
}

// put keeps r for k until ttl after now, evicting the least recently used
// entries past the byte bound. A result larger than the bound is not kept.
func (c *cache) put(k Key, r result, now time.Time) {
	if r.size() > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[k]; ok {
		c.remove(e)
	}
	c.byKey[k] = c.order.PushFront(&cached{key: k, res: r, expires: now.Add(c.ttl)})
	c.bytes += r.size()
	for c.bytes > c.max {
		c.remove(c.order.Back())
	}
}

// remove drops e; the caller holds c.mu.
func (c *cache) remove(e *list.Element) {
	v := e.Value.(*cached)
	c.order.Remove(e)
	delete(c.byKey, v.key)
	c.bytes -= v.res.size()
}

// usage returns the entries and bytes held (for tests and metrics).
func (c *cache) usage() (int, int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byKey), c.bytes
}
