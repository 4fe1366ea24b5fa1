package redistest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

func TestStart_AnswersPing(t *testing.T) {
	t.Parallel()
	s := Start(t, nil)
	require.Equal(t, "redis://"+s.Addr+"/0", s.URL)
	require.NoError(t, s.Client(t).Ping(context.Background()).Err())

	opts, err := redis.ParseURL(s.URL)
	require.NoError(t, err)
	require.Equal(t, s.Addr, opts.Addr)
}

func TestStart_TwoServers_AreIsolated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := Start(t, nil), Start(t, nil)
	require.NotEqual(t, a.Addr, b.Addr)
	require.NoError(t, a.Client(t).Set(ctx, "k", "a", 0).Err())
	require.ErrorIs(t, b.Client(t).Get(ctx, "k").Err(), redis.Nil)
}

func TestRestart_WithAOF_KeepsAcknowledgedWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := Start(t, &Options{AOF: true})
	c := s.Client(t)
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err())

	s.Restart(t)

	require.Equal(t, "v", c.Get(ctx, "k").Val())
}

func TestRestart_WithoutAOF_ComesBackEmpty(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := Start(t, nil)
	c := s.Client(t)
	require.NoError(t, c.Set(ctx, "k", "v", 0).Err())

	s.Restart(t)

	require.ErrorIs(t, c.Get(ctx, "k").Err(), redis.Nil)
}

func TestStop_MakesPingFail_AndRestartBringsItBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := Start(t, nil)
	c := s.Client(t)
	require.NoError(t, c.Ping(ctx).Err())

	s.Stop(t)
	require.Error(t, c.Ping(ctx).Err())
	require.Error(t, ping(s.Addr))
	s.Stop(t) // idempotent

	s.Restart(t)
	require.NoError(t, c.Ping(ctx).Err())
}

func TestKill_MakesPingFail(t *testing.T) {
	t.Parallel()
	s := Start(t, nil)
	s.Kill(t)
	require.Error(t, s.Client(t).Ping(context.Background()).Err())
	s.Kill(t) // idempotent
}

func TestStart_MissingBinary_Skips(t *testing.T) {
	if required := os.Getenv(RequireEnv); required != "" {
		t.Skipf("%s is set; the missing-binary path would fail by design", RequireEnv)
	}
	t.Setenv("PATH", t.TempDir())
	var skipped bool
	t.Run("inner", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Start(t, nil)
	})
	require.True(t, skipped)
}

func TestStart_MissingBinaryWhenRequired_Fails(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(RequireEnv, "1")
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(rec, nil)
	}()
	<-done
	require.Contains(t, rec.fatal, "redis-server not found on PATH and RELAYOPS_REQUIRE_REDIS=1")
}

func TestMini_ClientWorks(t *testing.T) {
	t.Parallel()
	m, c := Mini(t)
	require.NoError(t, c.Set(context.Background(), "k", "v", 0).Err())
	v, err := m.Get("k") // read back through miniredis itself
	require.NoError(t, err)
	require.Equal(t, "v", v)
}

func TestBackends_RunsSuiteOnBoth(t *testing.T) {
	t.Parallel()
	var ran []string
	Backends(t, func(t *testing.T, b *Backend) {
		ctx := context.Background()
		require.NoError(t, b.Client.Set(ctx, "k", "v", time.Minute).Err())
		require.Equal(t, "v", b.Client.Get(ctx, "k").Val())
		require.Equal(t, b.Name == "miniredis", b.Mini != nil)
		require.Equal(t, b.Name == "redis", b.Real != nil)
		ran = append(ran, b.Name)

		b.FastForward(2 * time.Minute) // skips the rest on real Redis
		require.NotNil(t, b.Mini)
		require.ErrorIs(t, b.Client.Get(ctx, "k").Err(), redis.Nil)
	})
	want := []string{"miniredis", "redis"}
	if _, err := exec.LookPath("redis-server"); err != nil {
		want = want[:1]
	}
	require.Equal(t, want, ran)
}

func TestEventually_ConditionBecomesTrue_Returns(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	Eventually(t, time.Minute, func() bool { return n.Add(1) >= 3 })
	require.Equal(t, int32(3), n.Load())
}

func TestEventually_Timeout_FailsWithMessage(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	done := make(chan struct{})
	go func() { // Fatalf ends the goroutine with runtime.Goexit
		defer close(done)
		Eventually(rec, 30*time.Millisecond, func() bool { return false }, "job %s reaches %s", "acme:doc:v1", "succeeded")
	}()
	<-done
	require.Equal(t, "redistest: condition not met within 30ms: job acme:doc:v1 reaches succeeded", rec.fatal)
}

// recorder captures Fatalf instead of failing the real test.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// A server counts as started only when the one answering on its port is its
// own process: another redis-server that took the port first answers PING
// too (and the new one then exits with "already in use").
func TestServerPID_IdentifiesTheProcessOnThePort(t *testing.T) {
	t.Parallel()
	a, b := Start(t, nil), Start(t, nil)
	require.Equal(t, a.proc.Pid, serverPID(a.Addr))
	require.NotEqual(t, serverPID(a.Addr), serverPID(b.Addr))
	a.Stop(t)
	require.Zero(t, serverPID(a.Addr), "nobody answers")
}
