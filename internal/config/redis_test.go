package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFromEnv_RedisClusterURL_NamesSeedsAndCredentials(t *testing.T) {
	t.Parallel()
	tests := []struct {
		value string
		want  RedisCluster
	}{
		{"redis-cluster://127.0.0.1:7000", RedisCluster{Addrs: []string{"127.0.0.1:7000"}}},
		{"redis-cluster://127.0.0.1:7000,127.0.0.1:7001/", RedisCluster{Addrs: []string{"127.0.0.1:7000", "127.0.0.1:7001"}}},
		{"redis-cluster://:s3cret@[::1]:7000,localhost:7001/0", RedisCluster{Addrs: []string{"[::1]:7000", "localhost:7001"}, Password: "s3cret"}},
		{"redis-cluster://relay:p%40ss@h1:7000", RedisCluster{Addrs: []string{"h1:7000"}, Username: "relay", Password: "p@ss"}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Parallel()
			c, err := FromEnv(env(map[string]string{"RELAYOPS_REDIS_URL": tt.value}))
			require.NoError(t, err)
			require.NotNil(t, c.RedisCluster)
			require.Equal(t, tt.want, *c.RedisCluster)
			require.Equal(t, tt.value, c.RedisURL)
		})
	}
}

func TestFromEnv_SingleRedisURL_HasNoCluster(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{"RELAYOPS_REDIS_URL": "redis://127.0.0.1:6380/2"}))
	require.NoError(t, err)
	require.Nil(t, c.RedisCluster)
}

func TestFromEnv_BadRedisClusterURL_MessageNamesVariableNotValue(t *testing.T) {
	t.Parallel()
	tests := []struct{ value, wantMsg string }{
		{"redis-cluster://", "RELAYOPS_REDIS_URL: redis-cluster:// URL: names no host:port (value not shown)"},
		{"redis-cluster://user:pw@/", "RELAYOPS_REDIS_URL: redis-cluster:// URL: names no host:port (value not shown)"},
		{"redis-cluster://127.0.0.1:7000/1", "RELAYOPS_REDIS_URL: redis-cluster:// URL: a cluster has only database 0; end the URL with / or /0 (value not shown)"},
		{"redis-cluster://127.0.0.1:7000,/", "RELAYOPS_REDIS_URL: redis-cluster:// URL: address 2 of 2 is not host:port (value not shown)"},
		{"redis-cluster://secretpw,127.0.0.1:7000", "RELAYOPS_REDIS_URL: redis-cluster:// URL: address 1 of 2 is not host:port (value not shown)"},
		{"redis-cluster://:7000", "RELAYOPS_REDIS_URL: redis-cluster:// URL: address 1 of 1 is not host:port (value not shown)"},
		{"redis-cluster://h1:70000", "RELAYOPS_REDIS_URL: redis-cluster:// URL: address 1 of 1 has no port in 1..65535 (value not shown)"},
		{"redis-cluster://h1:x", "RELAYOPS_REDIS_URL: redis-cluster:// URL: address 1 of 1 has no port in 1..65535 (value not shown)"},
		{"redis-cluster://h1:7000/?dial_timeout=1s", "RELAYOPS_REDIS_URL: redis-cluster:// URL: takes no query or fragment (value not shown)"},
		{"redis-cluster://u:p%zz@h1:7000", "RELAYOPS_REDIS_URL: redis-cluster:// URL: the user or password has a bad %-escape (value not shown)"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			t.Parallel()
			_, err := FromEnv(env(map[string]string{"RELAYOPS_REDIS_URL": tt.value}))
			require.EqualError(t, err, tt.wantMsg)
			require.NotContains(t, err.Error(), "secretpw")
			require.Equal(t, 1, strings.Count(err.Error(), "RELAYOPS_REDIS_URL"), "reported once")
		})
	}
}

func TestFromEnv_DashboardRedisURL_DefaultsToTheRedisURL_OrNamesItsOwnUser(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{"RELAYOPS_REDIS_URL": "redis-cluster://api:pw@127.0.0.1:7000/"}))
	require.NoError(t, err)
	require.Equal(t, c.RedisCluster, c.DashboardRedisCluster)
	c, err = FromEnv(env(map[string]string{
		"RELAYOPS_REDIS_URL":           "redis-cluster://api:pw@127.0.0.1:7000/",
		"RELAYOPS_DASHBOARD_REDIS_URL": "redis-cluster://dash:pw%40x@127.0.0.1:7000,127.0.0.1:7001/",
	}))
	require.NoError(t, err)
	require.Equal(t, &RedisCluster{Addrs: []string{"127.0.0.1:7000", "127.0.0.1:7001"}, Username: "dash", Password: "pw@x"}, c.DashboardRedisCluster)
	c, err = FromEnv(env(map[string]string{"RELAYOPS_DASHBOARD_REDIS_URL": "redis://dash:pw@127.0.0.1:6379/0"}))
	require.NoError(t, err)
	require.Equal(t, "redis://dash:pw@127.0.0.1:6379/0", c.DashboardRedisURL)
	require.Nil(t, c.DashboardRedisCluster)
	_, err = FromEnv(env(map[string]string{"RELAYOPS_DASHBOARD_REDIS_URL": "redis-cluster://dash:s3cret@nohostport/"}))
	require.ErrorContains(t, err, "RELAYOPS_DASHBOARD_REDIS_URL")
	require.NotContains(t, err.Error(), "s3cret")
}
