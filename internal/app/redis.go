package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/config"
	"github.com/relayops/relayops/jobs"
)

// redisVar is the one setting that names the Redis, in every message.
const redisVar = "RELAYOPS_REDIS_URL"

// checkTimeout bounds CheckRedis.
const checkTimeout = 10 * time.Second

// clusterSlots is the number of hash slots of a Redis Cluster.
const clusterSlots = 16384

// StoreRedis connects to the Redis or Redis Cluster that RELAYOPS_REDIS_URL
// names, with the store's settings: no command is ever retried (a retried
// script may run twice) and timeouts are bounded. The store, the relay, the
// reconciler, the API's rate bucket and its metrics collector share it.
func StoreRedis(c *config.Config) (redis.UniversalClient, error) {
	if c.RedisCluster == nil {
		return jobs.NewRedisClient(c.RedisURL)
	}
	opt, err := clusterOptions(c.RedisCluster)
	if err != nil {
		return nil, err
	}
	return redis.NewClusterClient(opt), nil
}

// AsynqRedis connects to the same Redis for Asynq's client, server and
// inspector. Asynq's scripts are safe to run again, so this client keeps
// go-redis's retries (and, on a cluster, its redirects: a MOVED reply after
// a failover is followed at once).
func AsynqRedis(c *config.Config) (redis.UniversalClient, error) {
	if c.RedisCluster == nil {
		opt, err := redis.ParseURL(c.RedisURL)
		if err != nil {
			return nil, fmt.Errorf("%s: does not parse (value not shown)", redisVar)
		}
		return redis.NewClient(opt), nil
	}
	opt, err := AsynqClusterOptions(c)
	if err != nil {
		return nil, err
	}
	return redis.NewClusterClient(opt), nil
}

// AsynqClusterOptions is the cluster connection of Asynq's clients (asynqmon
// included): the store's options with go-redis's default retries and
// redirects. It is nil for one Redis, which the dashboard reaches by URL.
func AsynqClusterOptions(c *config.Config) (*redis.ClusterOptions, error) {
	if c.RedisCluster == nil {
		return nil, nil
	}
	return asynqClusterOptions(c.RedisCluster)
}

func asynqClusterOptions(rc *config.RedisCluster) (*redis.ClusterOptions, error) {
	opt, err := clusterOptions(rc)
	if err != nil {
		return nil, err
	}
	opt.MaxRedirects, opt.MaxRetries, opt.DialerRetries = 0, 0, 0 // go-redis's defaults
	return opt, nil
}

func clusterOptions(rc *config.RedisCluster) (*redis.ClusterOptions, error) {
	opt, err := jobs.RedisClusterOptions(rc.Addrs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", redisVar, err)
	}
	opt.Username, opt.Password = rc.Username, rc.Password.Reveal()
	return opt, nil
}

// CheckRedis fails fast at start when RELAYOPS_REDIS_URL names a Redis
// Cluster that cannot serve: no seed node answers, or not every slot is
// served (cluster_state is not ok, or cluster_slots_ok is short of 16384).
// The first seed that answers CLUSTER INFO decides, within checkTimeout
// and ctx. A single Redis is not
// checked: the processes start without it and report not ready until it
// answers. The error names the setting, never its value.
func CheckRedis(ctx context.Context, c *config.Config) error {
	rc := c.RedisCluster
	if rc == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	// Each seed is asked itself: the cluster client answers "cluster has no
	// nodes" for a node that serves no slot, which hides why.
	var errs []string
	for _, addr := range rc.Addrs {
		info, err := seedInfo(ctx, rc, addr)
		if err == nil {
			return clusterServes(info)
		}
		errs = append(errs, err.Error())
	}
	// One line, whatever the number of seeds, for log collectors.
	return fmt.Errorf("%s: Redis Cluster unreachable through %d seed address(es): %s", redisVar, len(rc.Addrs), strings.Join(errs, "; "))
}

// seedInfo asks one seed node for CLUSTER INFO, once.
func seedInfo(ctx context.Context, rc *config.RedisCluster, addr string) (string, error) {
	node := redis.NewClient(&redis.Options{
		Addr: addr, Username: rc.Username, Password: rc.Password.Reveal(),
		MaxRetries: -1, DialerRetries: 1, DialTimeout: time.Second,
		ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, ContextTimeoutEnabled: true,
	})
	defer node.Close()
	return node.ClusterInfo(ctx).Result()
}

// clusterServes judges a CLUSTER INFO reply.
func clusterServes(info string) error {
	fields := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		fields[k] = v
	}
	slotsOK, _ := strconv.Atoi(fields["cluster_slots_ok"])
	if fields["cluster_state"] != "ok" || slotsOK != clusterSlots {
		return fmt.Errorf("%s: the Redis Cluster does not serve every slot (cluster_state:%s, cluster_slots_ok:%d of %d)",
			redisVar, fields["cluster_state"], slotsOK, clusterSlots)
	}
	return nil
}
