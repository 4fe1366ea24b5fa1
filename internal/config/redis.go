package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// clusterScheme starts a RELAYOPS_REDIS_URL that names a Redis Cluster.
const clusterScheme = "redis-cluster://"

// RedisCluster is a Redis Cluster named by a RELAYOPS_REDIS_URL of the form
// redis-cluster://[user[:password]@]host:port[,host:port…][/[0]]. The
// addresses are seeds: any reachable node tells the client the rest.
type RedisCluster struct {
	Addrs    []string // host:port, at least one, in the order given
	Username string   // ACL user; "" for the default user
	Password Secret   // "" when none
}

// redisCluster parses a redis-cluster:// URL; it returns nil for any other
// scheme. Messages never quote the URL or a piece of it: a mistyped one may
// put a password where an address belongs.
func (l *loader) redisCluster(name string) *RedisCluster {
	s := l.raw(name)
	rest, ok := strings.CutPrefix(s, clusterScheme)
	if !ok {
		return nil
	}
	c, problem := parseCluster(rest)
	if problem != "" {
		l.fail(name, "redis-cluster:// URL: %s (value not shown)", problem)
		return nil
	}
	return c
}

// parseCluster parses what follows redis-cluster:// and returns the cluster,
// or a description of the first problem.
func parseCluster(rest string) (*RedisCluster, string) {
	authority, path, _ := strings.Cut(rest, "/")
	if strings.ContainsAny(path, "?#") || strings.ContainsAny(authority, "?#") {
		return nil, "takes no query or fragment"
	}
	if path != "" && path != "0" {
		return nil, "a cluster has only database 0; end the URL with / or /0"
	}
	c := &RedisCluster{}
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		user, pass, _ := strings.Cut(authority[:at], ":")
		var err1, err2 error
		c.Username, err1 = url.PathUnescape(user)
		p, err2 := url.PathUnescape(pass)
		if err1 != nil || err2 != nil {
			return nil, "the user or password has a bad %-escape"
		}
		c.Password = Secret(p)
		authority = authority[at+1:]
	}
	if authority == "" {
		return nil, "names no host:port"
	}
	addrs := strings.Split(authority, ",")
	for i, a := range addrs {
		if problem := clusterAddr(a); problem != "" {
			return nil, fmt.Sprintf("address %d of %d %s", i+1, len(addrs), problem)
		}
		c.Addrs = append(c.Addrs, a)
	}
	return c, ""
}

// clusterAddr describes what is wrong with one seed address, or returns "".
func clusterAddr(a string) string {
	host, port, err := net.SplitHostPort(a)
	if err != nil || host == "" {
		return "is not host:port"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "has no port in 1..65535"
	}
	return ""
}
