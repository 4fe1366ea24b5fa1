package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/keyring"
)

// Labels of DataKeyUsage beside key IDs.
const (
	// UsageClear counts values stored in clear (written without a data
	// key).
	UsageClear = "(clear)"
	// UsageUnnamed counts inputs encrypted before values named their key
	// (the single RELAYOPS_DATA_KEY of earlier releases): the ring opens
	// them with whichever of its keys that one is.
	UsageUnnamed = "(unnamed)"
)

// usageScanCount is the COUNT hint of each SCAN call of DataKeyUsage.
const usageScanCount = 500

// DataKeyUsage counts the stored values that hold document data — inputs,
// results, checkpoints, review notes — by the data key that sealed them:
// its ID, UsageClear or UsageUnnamed. A data key may leave the ring once no
// value names it. It walks the keyspace with SCAN (on every master of a
// cluster), one pass over the store: an operator's command, not a request
// path, run as a Redis user that may SCAN (the shipped ACL users may not:
// SCAN shows key names outside their patterns).
func (s *Store) DataKeyUsage(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	var mu sync.Mutex
	scan := func(ctx context.Context, c *redis.Client) error {
		counts, err := s.usageOf(ctx, c)
		mu.Lock()
		defer mu.Unlock()
		for k, n := range counts {
			out[k] += n
		}
		return err
	}
	var err error
	switch c := s.rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(ctx, scan)
	case *redis.Client:
		err = scan(ctx, c)
	default:
		err = fmt.Errorf("a %T cannot be scanned", s.rdb)
	}
	var rerr redis.Error
	if errors.As(err, &rerr) && strings.HasPrefix(rerr.Error(), "NOPERM") {
		return nil, fmt.Errorf("jobs: data key usage walks the keyspace with SCAN, which this Redis user may not run "+
			"(the shipped ACL users may not): run it as an administrator user, in RELAYOPS_REDIS_URL: %w", err)
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: data key usage: %w", err)
	}
	return out, nil
}

// usageOf counts the sealed values of one node.
func (s *Store) usageOf(ctx context.Context, c *redis.Client) (map[string]int, error) {
	counts := map[string]int{}
	var cursor uint64
	for {
		keys, next, err := c.Scan(ctx, cursor, "ro:{*}:*", usageScanCount).Result()
		if err != nil {
			return counts, err
		}
		if err := s.countPage(ctx, c, keys, counts); err != nil {
			return counts, err
		}
		if cursor = next; cursor == 0 {
			return counts, nil
		}
	}
}

// countPage reads the document values among keys, in one round trip, and
// counts them by key.
func (s *Store) countPage(ctx context.Context, c *redis.Client, keys []string, counts map[string]int) error {
	pipe := c.Pipeline()
	type read struct {
		input bool
		str   *redis.StringCmd
		hash  *redis.MapStringStringCmd
	}
	var reads []read
	for _, key := range keys {
		_, rest, _ := strings.Cut(key, "}:")
		kind, _, _ := strings.Cut(rest, ":")
		switch kind {
		case "input", "result":
			reads = append(reads, read{input: kind == "input", str: pipe.Get(ctx, key)})
		case "job":
			reads = append(reads, read{str: pipe.HGet(ctx, key, fReviewNote)})
		case "ckpt":
			reads = append(reads, read{hash: pipe.HGetAll(ctx, key)})
		}
	}
	if len(reads) == 0 {
		return nil
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
		return err
	}
	for _, r := range reads {
		if r.hash != nil {
			for _, v := range r.hash.Val() {
				countValue(counts, []byte(v), false)
			}
			continue
		}
		if r.str.Err() == nil { // expired or no note: nothing to count
			countValue(counts, []byte(r.str.Val()), r.input)
		}
	}
	return nil
}

// countValue counts one stored value under the key that sealed it.
func countValue(counts map[string]int, v []byte, input bool) {
	switch {
	case len(v) == 0:
		return
	case len(v) >= 2 && v[0] == sealedTag && (v[1] == blobEncrypted || v[1] == blobEncryptedDeflated):
		if id, ok := keyring.KeyID(v, 2); ok {
			counts[id]++
		} else {
			counts["(truncated)"]++
		}
	case input && (v[0] == blobEncrypted || v[0] == blobEncryptedDeflated):
		counts[UsageUnnamed]++
	default:
		counts[UsageClear]++
	}
}
