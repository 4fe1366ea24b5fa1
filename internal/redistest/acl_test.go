package redistest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

func TestStart_WithACLConfig_UserHasItsRightsOnly_HelperKeepsDefault(t *testing.T) {
	t.Parallel()
	conf := filepath.Join(t.TempDir(), "acl.conf")
	require.NoError(t, os.WriteFile(conf, []byte("# users\nuser default off\nuser reader on PASSWORD ~k* -@all +get +hello +ping\n"), 0o600))
	lines := ACLUsers(t, conf, map[string]string{"PASSWORD": ">pw"})
	require.Equal(t, []string{"user reader on >pw ~k* -@all +get +hello +ping"}, lines, "comments and the default user left out")
	s := Start(t, &Options{Config: lines})
	ctx := context.Background()
	require.NoError(t, s.Client(t).Set(ctx, "k1", "v", 0).Err(), "the helper's default user")
	reader := redis.NewClient(&redis.Options{Addr: s.Addr, Username: "reader", Password: "pw", MaxRetries: -1})
	t.Cleanup(func() { _ = reader.Close() })
	require.Equal(t, "v", reader.Get(ctx, "k1").Val())
	require.ErrorContains(t, reader.Set(ctx, "k1", "w", 0).Err(), "NOPERM")

	other := Start(t, nil)
	other.SetUsers(t, lines)
	late := redis.NewClient(&redis.Options{Addr: other.Addr, Username: "reader", Password: "pw", MaxRetries: -1})
	t.Cleanup(func() { _ = late.Close() })
	require.ErrorIs(t, late.Get(ctx, "k1").Err(), redis.Nil, "SetUsers defines it at run time")
	require.ErrorContains(t, late.Del(ctx, "k1").Err(), "NOPERM")
}
