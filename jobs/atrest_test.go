package jobs

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

// marker is document data that must never be readable in Redis in clear.
const marker = "SECRET-IBAN-DE89370400440532013000"

// lifecycle takes k through everything that stores document data: input,
// a checkpoint, the result, the review and its decision's note.
func (x *bundle) lifecycle(t *testing.T, k Key) {
	t.Helper()
	x.submit(t, k, "INVOICE "+marker)
	c := x.claim(t, k)
	require.NoError(t, x.store.Checkpoint(x.ctx, k, c.Fence, "extract", []byte(`{"iban":"`+marker+`"}`)))
	r, err := x.store.Commit(x.ctx, k, c.Fence, c.PayloadHash, []byte(`{"iban":"`+marker+`"}`))
	require.NoError(t, err)
	_, err = x.store.ApplyCommitted(x.ctx, k, r.EventID)
	require.NoError(t, err)
	_, err = x.store.Decide(x.ctx, k, "alice", ReviewApproved, "matches "+marker)
	require.NoError(t, err)
}

// everything returns every value stored in Redis, whatever its type.
func everything(ctx context.Context, t *testing.T, rdb *redis.Client) map[string]string {
	t.Helper()
	keys, err := rdb.Keys(ctx, "*").Result()
	require.NoError(t, err)
	out := map[string]string{}
	for _, key := range keys {
		typ, err := rdb.Type(ctx, key).Result()
		require.NoError(t, err)
		var v any
		switch typ {
		case "string":
			v, err = rdb.Get(ctx, key).Result()
		case "hash":
			v, err = rdb.HGetAll(ctx, key).Result()
		case "zset":
			v, err = rdb.ZRangeWithScores(ctx, key, 0, -1).Result()
		case "set":
			v, err = rdb.SMembers(ctx, key).Result()
		case "list":
			v, err = rdb.LRange(ctx, key, 0, -1).Result()
		case "stream":
			v, err = rdb.XRange(ctx, key, "-", "+").Result()
		default:
			t.Fatalf("a key of type %s: extend everything", typ)
		}
		require.NoError(t, err)
		out[key] = strings.ToValidUTF8(fmtAny(v), "?")
	}
	return out
}

func fmtAny(v any) string { return fmt.Sprint(v) }

func TestAtRest_WithAKey_NoValueHoldsDocumentDataInClear(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k1") })
		k := mustKey(t, "acme", "inv-1", 1)
		x.lifecycle(t, k)
		all := everything(x.ctx, t, x.rdb)
		require.Contains(t, all, x.store.keys.result(k))
		for key, v := range all {
			require.NotContains(t, v, marker, "key %s holds document data in clear", key)
		}
		got, err := x.store.Result(x.ctx, k)
		require.NoError(t, err)
		require.Contains(t, string(got), marker)
		rev, err := x.store.GetReview(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, "matches "+marker, rev.Note)
		page, err := x.store.ListReviews(x.ctx, ReviewOptions{Tenant: "acme"})
		require.NoError(t, err)
		require.Equal(t, "matches "+marker, page.Reviews[0].Note)
	})
}

func TestAtRest_Checkpoints_AreSealedAndHandedBackToTheClaim(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k1") })
		k := mustKey(t, "acme", "inv-1", 1)
		x.submit(t, k, "INVOICE")
		c := x.claim(t, k)
		require.NoError(t, x.store.Checkpoint(x.ctx, k, c.Fence, "extract", []byte(`{"iban":"`+marker+`"}`)))
		raw, err := x.rdb.HGet(x.ctx, x.store.keys.checkpoints(k), "extract").Result()
		require.NoError(t, err)
		require.NotContains(t, raw, marker)
		again := x.claim(t, k) // a crash recovery resumes from the checkpoint
		require.Equal(t, `{"iban":"`+marker+`"}`, string(again.Checkpoints["extract"]))
		m, err := x.store.Checkpoints(x.ctx, k)
		require.NoError(t, err)
		require.Equal(t, `{"iban":"`+marker+`"}`, string(m["extract"]))
	})
}

func TestAtRest_AfterRotation_DataOfTheOldKeyStaysReadable(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		before := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k1") })
		k := mustKey(t, "acme", "inv-1", 1)
		before.lifecycle(t, k)

		after := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k2", "k1") })
		in, err := after.store.Input(after.ctx, k)
		require.NoError(t, err)
		require.Equal(t, "INVOICE "+marker, in)
		res, err := after.store.Result(after.ctx, k)
		require.NoError(t, err)
		require.Contains(t, string(res), marker)
		rev, err := after.store.GetReview(after.ctx, k)
		require.NoError(t, err)
		require.Equal(t, "matches "+marker, rev.Note)

		// The next document is sealed with k2 only.
		k2 := mustKey(t, "acme", "inv-2", 1)
		after.submit(t, k2, "INVOICE "+marker)
		_, err = before.store.Input(before.ctx, k2)
		require.ErrorIs(t, err, ErrUndecryptable, "a process without k2 cannot read it")

		retired := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k2") })
		_, err = retired.store.Result(retired.ctx, k)
		require.ErrorIs(t, err, ErrUndecryptable, "k1 dropped while its data lives")
	})
}

func TestAtRest_ValuesStoredWithoutAKey_StayReadableOnceOneIsSet(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		clear := setup(t, b, nil)
		k := mustKey(t, "acme", "inv-1", 1)
		clear.lifecycle(t, k)
		raw, err := clear.rdb.Get(clear.ctx, clear.store.keys.result(k)).Result()
		require.NoError(t, err)
		require.Equal(t, `{"iban":"`+marker+`"}`, raw, "without a key the result is stored as before")

		keyed := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k1") })
		in, err := keyed.store.Input(keyed.ctx, k)
		require.NoError(t, err)
		require.Equal(t, "INVOICE "+marker, in)
		res, err := keyed.store.Result(keyed.ctx, k)
		require.NoError(t, err)
		require.Equal(t, raw, string(res))
		rev, err := keyed.store.GetReview(keyed.ctx, k)
		require.NoError(t, err)
		require.Equal(t, "matches "+marker, rev.Note)
	})
}

func TestAtRest_AResultMovedToAnotherJob_DoesNotOpen(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k1") })
		k := mustKey(t, "acme", "inv-1", 1)
		x.lifecycle(t, k)
		raw, err := x.rdb.Get(x.ctx, x.store.keys.result(k)).Result()
		require.NoError(t, err)
		other := mustKey(t, "globex", "inv-1", 1)
		require.NoError(t, x.rdb.Set(x.ctx, x.store.keys.result(other), raw, 0).Err())
		_, err = x.store.Result(x.ctx, other)
		require.ErrorIs(t, err, ErrUndecryptable, "another tenant's result key")
		// Into the input key of the same document: another kind of value.
		require.NoError(t, x.rdb.Set(x.ctx, x.store.keys.input(k), raw, 0).Err())
		_, err = x.store.Input(x.ctx, k)
		require.ErrorIs(t, err, ErrUndecryptable, "a result moved into the input")
	})
}

func TestDataKeyUsage_CountsValuesByTheKeyThatSealedThem(t *testing.T) {
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		clear := setup(t, b, nil)
		clear.lifecycle(t, mustKey(t, "acme", "inv-clear", 1))
		old := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k1") })
		old.lifecycle(t, mustKey(t, "acme", "inv-old", 1))
		rotated := setup(t, b, func(c *Config) { c.Keys = testRing(t, "k2", "k1") })
		k := mustKey(t, "acme", "inv-new", 1)
		rotated.submit(t, k, "INVOICE")
		c := rotated.claim(t, k)
		require.NoError(t, rotated.store.Checkpoint(rotated.ctx, k, c.Fence, "extract", []byte(`{}`)))
		legacy := mustKey(t, "globex", "inv-legacy", 1)
		require.NoError(t, b.Client.Set(rotated.ctx, rotated.store.keys.input(legacy),
			legacySeal(t, testKey("k1").Secret, legacy, blobEncrypted, []byte("x")), 0).Err())

		got, err := rotated.store.DataKeyUsage(rotated.ctx)
		require.NoError(t, err)
		// Each finished lifecycle leaves its input, result and review note
		// (the commit dropped its checkpoint).
		require.Equal(t, map[string]int{UsageClear: 3, "k1": 3, "k2": 2, UsageUnnamed: 1}, got)
	})
}
