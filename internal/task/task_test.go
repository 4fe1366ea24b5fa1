package task

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLayout_ShardsMapOntoQueuesModuloTheirNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		layout Layout
		shards []int
		want   []string
	}{
		{"zero layout is the single extract queue", Layout{}, []int{0, 1, 15}, []string{"extract", "extract", "extract"}},
		{"one queue", Layout{Queues: 1}, []int{0, 7}, []string{"extract", "extract"}},
		{"one queue per shard", Layout{Queues: 16}, []int{0, 1, 9, 15}, []string{"extract", "extract-1", "extract-9", "extract-15"}},
		{"fewer queues than shards wrap", Layout{Queues: 4}, []int{3, 4, 5, 15}, []string{"extract-3", "extract", "extract-1", "extract-3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for i, s := range tt.shards {
				require.Equal(t, tt.want[i], tt.layout.Queue(s), "shard %d", s)
			}
		})
	}
}

func TestLayout_NamesListsEveryQueueOnceExtractFirst(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"extract"}, Layout{}.Names())
	names := Layout{Queues: ClusterQueues}.Names()
	require.Len(t, names, ClusterQueues)
	require.Equal(t, QueueExtract, names[0])
	seen := map[string]bool{}
	for s := range 64 {
		q := Layout{Queues: ClusterQueues}.Queue(s)
		require.Contains(t, names, q)
		seen[q] = true
	}
	require.Len(t, seen, ClusterQueues, "every queue receives some shard")
}

func TestNewLayout_DefaultsToSixteenQueuesOnAClusterOneOtherwiseNeverMoreThanShards(t *testing.T) {
	t.Parallel()
	require.Equal(t, Layout{Queues: ClusterQueues}, NewLayout(0, 16, true))
	require.Equal(t, Layout{Queues: ClusterQueues}, NewLayout(0, 64, true))
	require.Equal(t, Layout{Queues: 4}, NewLayout(0, 4, true), "default capped at the shards")
	require.Equal(t, Layout{Queues: 1}, NewLayout(0, 16, false), "one Redis: one queue")
	require.Equal(t, Layout{Queues: 3}, NewLayout(3, 16, false))
	require.Equal(t, Layout{Queues: 8}, NewLayout(32, 8, true))
}

// parseWithJSON is ParseExtractPayload without its fast path: the
// reference.
func parseWithJSON(b []byte) (ExtractPayload, error) {
	var p ExtractPayload
	if err := json.Unmarshal(b, &p); err != nil {
		return p, err
	}
	if p.JobKey == "" {
		return p, errors.New("no jobKey")
	}
	return p, nil
}

var payloadSeeds = []string{
	`{"jobKey":"acme:inv-1:v3"}`, `{"jobKey":""}`, `{"jobKey":"a\"b"}`, `{"jobKey":"a\\b"}`,
	`{"jobKey":"caf\u00e9"}`, "{\"jobKey\":\"caf\xc3\xa9:x:v1\"}", "{\"jobKey\":\"bad\xff:x:v1\"}",
	"{\"jobKey\":\"tab\there\"}", `{"JOBKEY":"acme:x:v1"}`, `{"jobKey":"a","jobKey":"b"}`,
	`{"jobKey":"a:b:v1","extra":1}`, ` {"jobKey":"a:b:v1"}`, `{"jobKey":"a:b:v1"} `, `{"jobKey":1}`,
	`{"jobKey":"x"}}`, `{"jobKey":"x"`, `null`, ``, `{"jobKey":"<tag>&"}`, `{"jobKey":"\u003c"}`,
}

func TestParseExtractPayload_ReadsWhatJSONReads(t *testing.T) {
	t.Parallel()
	for _, s := range payloadSeeds {
		got, err := ParseExtractPayload([]byte(s))
		want, werr := parseWithJSON([]byte(s))
		require.Equal(t, werr == nil, err == nil, "%q: error %v, reference %v", s, err, werr)
		require.Equal(t, want, got, "%q", s)
	}
	for _, k := range []string{"acme:inv-1:v3", "t:d:v9", "globex:Rechnung 2026/11:v1"} {
		p, err := ParseExtractPayload(ExtractPayload{JobKey: k}.Marshal())
		require.NoError(t, err)
		require.Equal(t, k, p.JobKey, "what Marshal writes reads back")
	}
}

func FuzzParseExtractPayload_MatchesJSON(f *testing.F) {
	for _, s := range payloadSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseExtractPayload(b)
		want, werr := parseWithJSON(b)
		if (err == nil) != (werr == nil) || got != want {
			t.Fatalf("%q: got %+v, %v; json %+v, %v", b, got, err, want, werr)
		}
	})
}

func BenchmarkParseExtractPayload(b *testing.B) {
	payload := ExtractPayload{JobKey: "acme:inv-2026-0001:v1"}.Marshal()
	for b.Loop() {
		if _, err := ParseExtractPayload(payload); err != nil {
			b.Fatal(err)
		}
	}
}
