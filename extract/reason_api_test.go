package extract

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// updateOpenAPI rewrites the errorReason enum of api/openapi.json from
// Reasons(): go test ./extract -run TestReasons_AreTheOpenAPIErrorReasonEnum -update-openapi
var updateOpenAPI = flag.Bool("update-openapi", false, "rewrite the Job.errorReason enum of api/openapi.json from Reasons()")

// openAPIPath is the API document, beside this package.
var openAPIPath = filepath.Join("..", "api", "openapi.json")

// errorReasonEnum finds the enum of the first errorReason property that
// has one (Job's), with the indentation of its items.
var errorReasonEnum = regexp.MustCompile(`("errorReason": \{\s*"type": "string",\s*"enum": \[)(\s*)([^\]]*?)(\s*\])`)

// The API documents errorReason as an enum; it must be exactly Reasons()
// plus "other" (what the worker records for a rejection with an unknown
// code), so a new reason code cannot ship undocumented. -update-openapi
// regenerates it rather than have it edited by hand.
func TestReasons_AreTheOpenAPIErrorReasonEnum(t *testing.T) {
	want := append(Reasons(), "other")
	if *updateOpenAPI {
		b, err := os.ReadFile(openAPIPath)
		require.NoError(t, err)
		m := errorReasonEnum.FindSubmatchIndex(b)
		require.NotNil(t, m, "no errorReason enum in %s", openAPIPath)
		indent := string(b[m[4]:m[5]])
		items := make([]string, len(want))
		for i, r := range want {
			q, _ := json.Marshal(r)
			items[i] = string(q)
		}
		out := string(b[:m[6]]) + strings.Join(items, ","+indent) + string(b[m[7]:])
		require.NoError(t, os.WriteFile(openAPIPath, []byte(out), 0o644))
	}
	b, err := os.ReadFile(openAPIPath)
	require.NoError(t, err)
	var doc struct {
		Components struct {
			Schemas struct {
				Job struct {
					Properties struct {
						ErrorReason struct {
							Enum []string `json:"enum"`
						} `json:"errorReason"`
					} `json:"properties"`
				} `json:"Job"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.ElementsMatch(t, want, doc.Components.Schemas.Job.Properties.ErrorReason.Enum,
		"regenerate with: go test ./extract -run TestReasons_AreTheOpenAPIErrorReasonEnum -update-openapi")
}
