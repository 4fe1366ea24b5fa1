package doccheck_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/doccheck"
)

// TestRepository_EveryLinkAndAnchorResolves is the check itself, on the
// repository's README.md and docs/*.md.
func TestRepository_EveryLinkAndAnchorResolves(t *testing.T) {
	t.Parallel()
	problems, err := doccheck.Check(filepath.Join("..", ".."), "README.md", "docs")
	require.NoError(t, err)
	for _, p := range problems {
		t.Error(p)
	}
}

// TestRepository_READMELinksTheTaskPages pins the pages a newcomer is sent
// to from the README, so that a restructure cannot drop one silently.
func TestRepository_READMELinksTheTaskPages(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	for _, page := range []string{"operations", "api", "extraction", "cluster", "webhooks", "performance", "fairness", "intake"} {
		require.Contains(t, string(b), "(docs/"+page+".md)", "README.md links docs/%s.md", page)
	}
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	return root
}

func TestCheck_BrokenLinksAndAnchors_AreReportedWithTheirLine(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"README.md": "# Top\n\nsee [ops](docs/ops.md#retention) and [gone](docs/gone.md)\n" +
			"[here](#top) [nowhere](#nowhere) [bad](docs/ops.md#no-such)\n" +
			"[code](main.go#L3) [out](../secret.md) [web](https://127.0.0.1/x)\n",
		"docs/ops.md": "# Operations\n\n## Retention\n\nback to [the README](../README.md#top)\n",
		"main.go":     "package main\n",
	})
	problems, err := doccheck.Check(root, "README.md", "docs")
	require.NoError(t, err)
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	require.Equal(t, []string{
		`README.md:3: link "docs/gone.md": docs/gone.md does not exist`,
		`README.md:4: link "#nowhere": README.md has no heading with the anchor #nowhere`,
		`README.md:4: link "docs/ops.md#no-such": docs/ops.md has no heading with the anchor #no-such`,
		`README.md:5: link "main.go#L3": an anchor into main.go, which is not a Markdown page`,
		`README.md:5: link "../secret.md" leaves the repository`,
	}, got)
}

func TestCheck_PageNoLinkReaches_IsReported(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"README.md":      "# Top\n\n[a](docs/a.md)\n",
		"docs/a.md":      "# A\n\n[b](b.md)\n",
		"docs/b.md":      "# B\n",
		"docs/orphan.md": "# Orphan\n\n[a](a.md)\n",
	})
	problems, err := doccheck.Check(root, "README.md", "docs")
	require.NoError(t, err)
	require.Len(t, problems, 1)
	require.Equal(t, "docs/orphan.md", problems[0].File)
}

func TestCheck_HeadingsInCodeBlocks_AreNotAnchorsNorLinks(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"README.md": "# Top\n\n```sh\n# not-a-heading\necho [x](missing.md)\n```\n[a](#not-a-heading)\n",
	})
	problems, err := doccheck.Check(root, "README.md", "docs")
	require.NoError(t, err)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0].What, "#not-a-heading")
}

func TestSlug_FollowsGitHub(t *testing.T) {
	t.Parallel()
	for heading, want := range map[string]string{
		"Trying it locally (`make run`)":     "trying-it-locally-make-run",
		"The operator console (`/console/`)": "the-operator-console-console",
		"What a failover may lose":           "what-a-failover-may-lose",
		"Limits: bodies, files & fields":     "limits-bodies-files--fields",
		"RELAYOPS_TENANT_MAX_STORED_BYTES":   "relayops_tenant_max_stored_bytes",
		"Dead letters and reprocessing":      "dead-letters-and-reprocessing",
	} {
		require.Equal(t, want, doccheck.Slug(heading), heading)
	}
}

func TestCheck_DuplicateHeadings_GetNumberedAnchors(t *testing.T) {
	t.Parallel()
	root := writeTree(t, map[string]string{
		"README.md": "# Top\n\n## Measured\n\n## Measured\n\n[1](#measured) [2](#measured-1) [3](#measured-2)\n",
	})
	problems, err := doccheck.Check(root, "README.md", "docs")
	require.NoError(t, err)
	require.Len(t, problems, 1)
	require.Contains(t, problems[0].What, "#measured-2")
}
