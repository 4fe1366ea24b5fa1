package config

import (
	"bytes"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFromEnviron_MisspelledSetting_IsAnErrorNamingTheClosestKnownName(t *testing.T) {
	t.Parallel()
	for misspelled, closest := range map[string]string{
		"RELAYOPS_TENANT_TOKEN":     "RELAYOPS_TENANT_TOKENS",
		"RELAYOPS_SHARD":            "RELAYOPS_SHARDS",
		"RELAYOPS_CONCURENCY":       "RELAYOPS_CONCURRENCY",
		"RELAYOPS_LLM_BASEURL":      "RELAYOPS_LLM_BASE_URL",
		"RELAYOPS_RETENTION_INPUTS": "RELAYOPS_RETENTION_INPUT",
	} {
		_, err := FromEnviron([]string{"PATH=/bin", misspelled + "=acme:secret-token-0123456789"})
		require.Error(t, err, misspelled)
		msg := err.Error()
		require.Contains(t, msg, misspelled+": not a setting relayops knows; did you mean "+closest+"?")
		require.Contains(t, msg, "RELAYOPS_ALLOW_UNKNOWN_SETTINGS=1")
		require.NotContains(t, msg, "secret-token", "the value of an unknown variable may be a token")
	}
}

func TestFromEnviron_UnknownNames_AreAllReportedBesideOtherProblems(t *testing.T) {
	t.Parallel()
	_, err := FromEnviron([]string{"RELAYOPS_SHARD=4", "RELAYOPS_TENANT_TOKEN=x", "RELAYOPS_SHARDS=zero"})
	require.Error(t, err)
	require.Contains(t, err.Error(), "RELAYOPS_SHARD: not a setting")
	require.Contains(t, err.Error(), "RELAYOPS_TENANT_TOKEN: not a setting")
	require.Contains(t, err.Error(), "RELAYOPS_SHARDS: must be")
}

func TestFromEnviron_AllowUnknownSettings_TurnsTheErrorIntoAWarning(t *testing.T) {
	t.Parallel()
	for _, allow := range []string{"1", "true"} {
		c, err := FromEnviron([]string{"RELAYOPS_SHARD=4", AllowUnknownSettings + "=" + allow})
		require.NoError(t, err)
		require.True(t, c.AllowUnknownSettings)
		require.Equal(t, []string{"RELAYOPS_SHARD: not a setting relayops knows; did you mean RELAYOPS_SHARDS? (ignored: RELAYOPS_ALLOW_UNKNOWN_SETTINGS is set)"}, c.Warnings)
		require.Equal(t, 16, c.Shards, "the unknown name is ignored")

		var buf bytes.Buffer
		c.LogWarnings(slog.New(slog.NewJSONHandler(&buf, nil)))
		require.Contains(t, buf.String(), `"level":"WARN"`)
		require.Contains(t, buf.String(), "RELAYOPS_SHARD")
	}
	_, err := FromEnviron([]string{"RELAYOPS_SHARD=4", AllowUnknownSettings + "=0"})
	require.Error(t, err, "0 keeps the check")
	_, err = FromEnviron([]string{"RELAYOPS_SHARD=4", AllowUnknownSettings + "=maybe"})
	require.ErrorContains(t, err, AllowUnknownSettings+": must be true or false")
}

func TestFromEnviron_KnownNamesAndOtherPrefixes_AreAccepted(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=/bin", "HOME=/root", "RELAYOPSX=1", "DEMO_TENANT_TOKEN=x", "relayops_shard=1"}
	for _, n := range otherNames {
		env = append(env, n+"=1")
	}
	env = append(env, "RELAYOPS_SHARDS=4", "RELAYOPS_SHARDS=8") // the last one wins, as in a shell
	c, err := FromEnviron(env)
	require.NoError(t, err)
	require.Empty(t, c.Warnings)
	require.Equal(t, 8, c.Shards)
}

func TestFromEnviron_SameConfigAsFromEnv(t *testing.T) {
	t.Parallel()
	m := map[string]string{"RELAYOPS_SHARDS": "4", "RELAYOPS_TENANT_TOKENS": "acme:acme-token-0123456789", "RELAYOPS_LOG_LEVEL": "warn"}
	var environ []string
	for k, v := range m {
		environ = append(environ, k+"="+v)
	}
	a, err := FromEnviron(environ)
	require.NoError(t, err)
	b, err := FromEnv(env(m))
	require.NoError(t, err)
	require.Equal(t, b, a)
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"RELAYOPS_SHARD", "RELAYOPS_SHARDS", 1}, {"flaw", "lawn", 2}, {"same", "same", 0},
	} {
		require.Equal(t, tt.want, editDistance(tt.a, tt.b), "%q %q", tt.a, tt.b)
		require.Equal(t, tt.want, editDistance(tt.b, tt.a), "%q %q", tt.b, tt.a)
	}
}

func TestKnownNames_SortedUniqueAndIncludeEverySetting(t *testing.T) {
	t.Parallel()
	names := KnownNames()
	require.True(t, sort.StringsAreSorted(names))
	seen := map[string]bool{}
	for _, n := range names {
		require.False(t, seen[n], "%s twice", n)
		seen[n] = true
		require.True(t, strings.HasPrefix(n, Prefix), n)
	}
	for _, v := range Vars() {
		require.True(t, seen[v.Name], v.Name)
	}
}

// nameUses finds a RELAYOPS_ name where a program reads or sets it: in Go,
// a string literal that is the name or starts "NAME="; elsewhere (shell,
// Makefile, CI, compose, .env), any whole name (a trailing "_" or "*" is a
// family written in prose, e.g. RELAYOPS_LLM_*).
var (
	goNameUse    = regexp.MustCompile(`"(RELAYOPS_[A-Z0-9_]*[A-Z0-9])[="]`)
	otherNameUse = regexp.MustCompile(`RELAYOPS_[A-Z0-9_]*[A-Z0-9]\b`)
)

// TestKnownNames_CoverWhatTheRepositoryReads fails when a program, script,
// test helper or deployment file of the repository reads or sets a
// RELAYOPS_ name that KnownNames lacks: the binaries would refuse it at
// start. This package's own tests are skipped (they misspell on purpose).
func TestKnownNames_CoverWhatTheRepositoryReads(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	known := map[string]bool{}
	for _, n := range KnownNames() {
		known[n] = true
	}
	missing := map[string][]string{}
	scanned := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == "testdata" || rel == "bin" || rel == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		re := otherNameUse
		switch ext := filepath.Ext(rel); {
		case strings.HasPrefix(rel, "internal/config/") && strings.HasSuffix(rel, "_test.go"):
			return nil
		case ext == ".go":
			re = goNameUse
		case ext == ".sh", ext == ".yml", ext == ".yaml", rel == "Makefile", rel == "Dockerfile",
			rel == ".env.example", strings.HasPrefix(rel, ".ci/"):
		default:
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		scanned++
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			name := m[len(m)-1]
			if !known[name] {
				missing[name] = append(missing[name], rel)
			}
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, scanned, 50, "the walk found the repository")
	require.Empty(t, missing, "RELAYOPS_ names read in the repository but unknown to config (add them to vars, or to otherNames)")
}
