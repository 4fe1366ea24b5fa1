package config

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// llmEnv is a complete model configuration plus extra.
func llmEnv(extractor string, extra map[string]string) map[string]string {
	m := map[string]string{
		"RELAYOPS_EXTRACTOR":    extractor,
		"RELAYOPS_LLM_BASE_URL": "http://127.0.0.1:11434/v1",
		"RELAYOPS_LLM_MODEL":    "qwen2.5:7b-instruct",
	}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

func TestFromEnv_Extractor_EveryChoiceWithItsSettings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		value, want string
		model       bool
	}{
		{"rules", ExtractorRules, false},
		{"llm", ExtractorLLM, true},
		{"rules,llm", ExtractorRulesLLM, true},
		{"rules, llm", ExtractorRulesLLM, true},
	} {
		t.Run(tt.value, func(t *testing.T) {
			t.Parallel()
			c, err := FromEnv(env(llmEnv(tt.value, map[string]string{
				"RELAYOPS_LLM_API_KEY": "sk-test-123", "RELAYOPS_LLM_TIMEOUT": "20s", "RELAYOPS_LLM_MAX_TOKENS": "1024",
			})))
			require.NoError(t, err)
			require.Equal(t, tt.want, c.Extractor)
			require.Equal(t, tt.model, c.UsesModel())
			require.Equal(t, LLM{
				BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5:7b-instruct", APIKey: "sk-test-123",
				Timeout: 20 * time.Second, MaxTokens: 1024, ImageMaxPixels: 2_500_000,
			}, c.LLM)
		})
	}
}

func TestFromEnv_RulesExtractor_NeedsNoModelSettings(t *testing.T) {
	t.Parallel()
	c, err := FromEnv(env(map[string]string{"RELAYOPS_EXTRACTOR": "rules"}))
	require.NoError(t, err)
	require.False(t, c.UsesModel())
}

func TestFromEnv_ModelExtractorWithoutEndpoint_FailsNamingEachVariable(t *testing.T) {
	t.Parallel()
	for _, extractor := range []string{"llm", "rules,llm"} {
		t.Run(extractor, func(t *testing.T) {
			t.Parallel()
			_, err := FromEnv(env(map[string]string{"RELAYOPS_EXTRACTOR": extractor}))
			require.Error(t, err)
			require.ElementsMatch(t, []string{
				fmt.Sprintf("RELAYOPS_LLM_BASE_URL: is required when RELAYOPS_EXTRACTOR is %q", extractor),
				fmt.Sprintf("RELAYOPS_LLM_MODEL: is required when RELAYOPS_EXTRACTOR is %q", extractor),
			}, messages(err))
		})
	}
}

func TestFromEnv_BadModelSetting_MessageNamesVariable(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, value, wantMsg string
	}{
		{"RELAYOPS_EXTRACTOR", "gpt", `RELAYOPS_EXTRACTOR: must be rules, llm or rules,llm, got "gpt"`},
		{"RELAYOPS_EXTRACTOR", "llm,rules", `RELAYOPS_EXTRACTOR: must be rules, llm or rules,llm, got "llm,rules"`},
		{"RELAYOPS_LLM_BASE_URL", "localhost:11434", "RELAYOPS_LLM_BASE_URL: must be an absolute http:// or https:// URL (value not shown)"},
		{"RELAYOPS_LLM_TIMEOUT", "500ms", `RELAYOPS_LLM_TIMEOUT: must be a duration of at least 1s (Go syntax such as 90s or 5m, or days such as 7d), got "500ms"`},
		{"RELAYOPS_LLM_TIMEOUT", "5m", `RELAYOPS_LLM_TIMEOUT: must be below RELAYOPS_ATTEMPT_TIMEOUT (5m0s), got "5m"`},
		{"RELAYOPS_LLM_MAX_TOKENS", "8", `RELAYOPS_LLM_MAX_TOKENS: must be an integer from 16 to 1000000, got "8"`},
		{"RELAYOPS_LLM_API_KEY", "sk has spaces", "RELAYOPS_LLM_API_KEY: must be printable ASCII without spaces (value not shown)"},
	} {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			t.Parallel()
			extractor := "llm"
			if tt.name == "RELAYOPS_EXTRACTOR" {
				extractor = tt.value
			}
			m := llmEnv(extractor, map[string]string{tt.name: tt.value})
			c, err := FromEnv(env(m))
			require.Nil(t, c)
			require.Error(t, err)
			require.Equal(t, []string{tt.wantMsg}, messages(err))
		})
	}
}

func TestFromEnv_ModelKeyAndURL_NeverQuotedInErrors(t *testing.T) {
	t.Parallel()
	const secret = "sk-s3cr3t-VALUE"
	for i, m := range []map[string]string{
		llmEnv("llm", map[string]string{"RELAYOPS_LLM_API_KEY": secret + " x"}),
		llmEnv("llm", map[string]string{"RELAYOPS_LLM_API_KEY": secret + "\x01"}),
		llmEnv("llm", map[string]string{"RELAYOPS_LLM_BASE_URL": "ftp://user:" + secret + "@host/v1"}),
		llmEnv("llm", map[string]string{"RELAYOPS_LLM_API_KEY": secret, "RELAYOPS_LLM_MODEL": ""}),
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			_, err := FromEnv(env(m))
			require.Error(t, err)
			require.NotContains(t, err.Error(), "s3cr3t")
		})
	}
}

func TestSecret_Printing_HidesIt(t *testing.T) {
	t.Parallel()
	c := &Config{LLM: LLM{APIKey: "sk-hidden-42"}}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		require.NotContains(t, fmt.Sprintf(format, c.LLM.APIKey), "hidden", format)
		require.NotContains(t, fmt.Sprintf(format, c.LLM), "hidden", format)
		require.NotContains(t, fmt.Sprintf(format, *c), "hidden", format)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "key", c.LLM.APIKey, "llm", c.LLM)
	require.NotContains(t, buf.String(), "hidden")
	require.True(t, strings.Contains(buf.String(), `"key":"***"`), buf.String())
	require.Equal(t, "sk-hidden-42", c.LLM.APIKey.Reveal())
	require.Empty(t, Secret("").String(), "an unset key prints as unset")
}

// messages is the message of each joined error.
func messages(err error) []string {
	var out []string
	for _, e := range unjoin(err) {
		out = append(out, e.Error())
	}
	return out
}
