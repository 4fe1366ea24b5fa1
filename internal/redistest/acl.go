package redistest

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ACLUsers reads the ACL user lines ("user <name> <rule> ...") of a
// redis.conf fragment such as deploy/redis-acl.conf, with each key of
// replace replaced by its value (password placeholders by test passwords).
// Comments, blank lines and the default user's line are left out: the
// helper's own connections (readiness pings, Client, Cluster's checks) are
// the default user's.
func ACLUsers(t testing.TB, path string, replace map[string]string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("redistest: ACL users: %v", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "user" || fields[1] == "default" {
			continue
		}
		for k, v := range replace {
			line = strings.ReplaceAll(line, k, v)
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("redistest: ACL users: %v", err)
	}
	return out
}

// writeConfig writes lines as the server's config file (given to
// redis-server before the other arguments) and returns its path.
func (s *Server) writeConfig(lines []string) (string, error) {
	path := filepath.Join(s.dir, "redis.conf")
	return path, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
}

// SetUsers defines the ACL users of lines (ACLUsers' form) on s at run
// time, with ACL SETUSER, as the default user.
func (s *Server) SetUsers(t testing.TB, lines []string) {
	t.Helper()
	c := newClient(t, s.Addr)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, line := range lines {
		fields := strings.Fields(line)
		args := make([]any, 0, len(fields)+1)
		args = append(args, "ACL", "SETUSER")
		for _, f := range fields[1:] {
			args = append(args, f)
		}
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatalf("redistest: ACL SETUSER %s on %s: %v", fields[1], s.Addr, err)
		}
	}
}

// SetUsers defines the ACL users of lines on every running node: Redis
// Cluster does not propagate ACL users between nodes.
func (c *RedisCluster) SetUsers(t testing.TB, lines []string) {
	t.Helper()
	for _, s := range c.running() {
		s.SetUsers(t, lines)
	}
}
