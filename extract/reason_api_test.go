package extract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The API documents errorReason as an enum; it must be exactly Reasons()
// plus "other" (what the worker records for a rejection with an unknown
// code), so a new reason code cannot ship undocumented.
func TestReasons_AreTheOpenAPIErrorReasonEnum(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "api", "openapi.json"))
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
	require.ElementsMatch(t, append(Reasons(), "other"), doc.Components.Schemas.Job.Properties.ErrorReason.Enum)
}
