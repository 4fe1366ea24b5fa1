package jobs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/redistest"
)

func TestPeekInputs_OpenEndedAndMissing(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, b *redistest.Backend) {
		x := setup(t, b, func(c *Config) { c.Retention.Input = time.Hour })
		open, ended, missing := mustKey(t, "acme", "open", 1), mustKey(t, "acme", "ended", 1), mustKey(t, "acme", "missing", 1)
		x.submit(t, open, "a")
		x.submit(t, ended, "b")
		require.NoError(t, x.store.DeadLetter(x.ctx, ended, x.claim(t, ended).Fence, CodePermanent))

		got, err := x.store.PeekInputs(x.ctx, []Key{open, ended, missing})
		require.NoError(t, err)
		require.Len(t, got, 3)
		require.Equal(t, InputTTL{Stored: true}, got[0], "an open job's input has no expiry yet")
		require.True(t, got[1].Stored)
		require.Greater(t, got[1].TTL, 59*time.Minute, "an ended job's input expires after the retention")
		require.LessOrEqual(t, got[1].TTL, time.Hour)
		require.Equal(t, InputTTL{}, got[2])

		none, err := x.store.PeekInputs(x.ctx, nil)
		require.NoError(t, err)
		require.Empty(t, none)
	})
}
