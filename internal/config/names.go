package config

import (
	"fmt"
	"sort"
	"strings"
)

// Prefix starts the name of every variable relayops reads.
const Prefix = "RELAYOPS_"

// AllowUnknownSettings is the variable that turns an unknown RELAYOPS_ name
// from an error into a warning (a mixed-version rollout sets a new
// release's variable before every process knows it).
const AllowUnknownSettings = "RELAYOPS_ALLOW_UNKNOWN_SETTINGS"

// otherNames are RELAYOPS_ variables that are known but that Load does not
// read into Config. Together with vars they are every name a process may
// find in its environment without it being a typo; TestKnownNames_CoverWhat
// TheRepositoryReads checks that nothing in the repository reads a name
// missing from both.
var otherNames = []string{
	// Read by the test helpers and the CI script: CI exports them, and the
	// process tests start the binaries with CI's environment.
	"RELAYOPS_REQUIRE_REDIS",   // internal/redistest: a missing redis-server fails instead of skipping
	"RELAYOPS_REQUIRE_BROWSER", // internal/browsertest: a missing chromium fails instead of skipping
	"RELAYOPS_SCREENSHOT_DIR",  // console's browser tests keep their screenshots there
	"RELAYOPS_REQUIRE_OCR",     // document/ocr: a missing tesseract fails instead of skipping
	"RELAYOPS_REQUIRE_QPDF",    // e2e: a missing qpdf (it builds a 50-page PDF) fails instead of skipping
	// Read by docker compose (the image tag) and by the example webhook
	// receiver, not by the binaries.
	"RELAYOPS_IMAGE_TAG",
	"RELAYOPS_WEBHOOK_SECRET",

	// Announced by work in progress (issue 24 and the document intake), not
	// wired yet: listed here so that setting one ahead of its release does
	// not stop start-up. When a name gains its entry in vars, delete it
	// here (a name in both lists is harmless, only redundant).
}

// KnownNames returns every RELAYOPS_ name relayops knows, sorted: the
// settings of Vars and the other names above.
func KnownNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range otherNames {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, v := range vars {
		if !seen[v.Name] {
			seen[v.Name] = true
			out = append(out, v.Name)
		}
	}
	sort.Strings(out)
	return out
}

// unknownNames judges the RELAYOPS_ names of environ ("NAME=value"
// entries, os.Environ's form): each unknown one is an error naming it and
// the closest known name, or a warning in c.Warnings when
// RELAYOPS_ALLOW_UNKNOWN_SETTINGS is true. The value is never quoted: a
// misspelled token variable holds a token.
func (l *loader) unknownNames(c *Config, environ []string) {
	known := KnownNames()
	isKnown := map[string]bool{}
	for _, n := range known {
		isKnown[n] = true
	}
	var unknown []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, Prefix) && !isKnown[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		msg := fmt.Sprintf("not a setting relayops knows; did you mean %s?", closest(name, known))
		if c.AllowUnknownSettings {
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %s (ignored: %s is set)", name, msg, AllowUnknownSettings))
			continue
		}
		l.fail(name, "%s (%s=1 accepts unknown names, for a rollout of mixed versions)", msg, AllowUnknownSettings)
	}
}

// closest returns the name of names nearest to name by edit distance; on a
// tie, the first in names' (sorted) order.
func closest(name string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		if d := editDistance(name, n); bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (insertions,
// deletions and substitutions of one byte each cost 1).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
