package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

func TestSubmit_NewJob_Answers202WithLocation(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-1","operationVersion":1,"content":"Invoice 42"}`})
	require.Equal(t, http.StatusAccepted, r.Status, "body: %s", r.Body)
	require.Equal(t, "/v1/jobs/acme:inv-1:v1", r.Header.Get("Location"))
	v := r.json(t)
	require.Equal(t, "acme:inv-1:v1", v["jobId"])
	require.Equal(t, "acme", v["tenant"])
	require.Equal(t, "queued", v["state"])
	require.Equal(t, false, v["deduped"])
	require.Equal(t, float64(3), v["maxAttempts"])
	require.Equal(t, float64(5), v["maxRecoveries"])
	require.Equal(t, t0.Format(timeFormat), v["createdAt"])
	require.Equal(t, t0.Add(24*time.Hour).Format(timeFormat), v["deadlineAt"])
}

func TestSubmit_SameContent_Answers200Deduped(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	body := `{"documentId":"inv-1","operationVersion":1,"content":"Invoice 42"}`
	b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme, body: body})
	keys := b.dbsize(t)

	// deadlineSeconds is an execution option, not part of the payload.
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"content":"Invoice 42","documentId":"inv-1","operationVersion":1,"deadlineSeconds":60}`})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.Equal(t, true, r.json(t)["deduped"])
	require.Empty(t, r.Header.Get("Location"))
	require.Equal(t, keys, b.dbsize(t), "a dedupe writes nothing")
}

func TestSubmit_DifferentContent_Answers409(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "inv-1", 1, "Invoice 42")
	keys := b.dbsize(t)
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-1","operationVersion":1,"content":"Invoice 43"}`})
	r.requireError(t, http.StatusConflict, CodeIdempotencyConflict)
	require.Equal(t, keys, b.dbsize(t))
}

func TestSubmit_ClientRequestIDReplay_AnswersAsTheOriginal(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	c := call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body:   `{"documentId":"inv-1","operationVersion":1,"content":"Invoice 42"}`,
		header: map[string]string{"X-Request-ID": "client-req-1"}}
	require.Equal(t, http.StatusAccepted, b.do(t, c).Status)
	r := b.do(t, c)
	require.Equal(t, http.StatusAccepted, r.Status, "a replayed request answers like the original")
	require.Equal(t, "client-req-1", r.Header.Get("X-Request-ID"))

	c.header = nil
	require.Equal(t, http.StatusOK, b.do(t, c).Status, "another request is a dedupe")

	// One X-Request-ID reused for another version is another request.
	c = call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body:   `{"documentId":"inv-1","operationVersion":2,"content":"Invoice 43"}`,
		header: map[string]string{"X-Request-ID": "client-req-1"}}
	r = b.do(t, c)
	require.Equal(t, http.StatusAccepted, r.Status, "body: %s", r.Body)
	require.Equal(t, "acme:inv-1:v2", r.json(t)["jobId"])
}

func TestSubmit_DeadlineSeconds_SetsDeadlineAt(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-1","operationVersion":7,"content":"x","deadlineSeconds":90}`})
	require.Equal(t, http.StatusAccepted, r.Status, "body: %s", r.Body)
	v := r.json(t)
	require.Equal(t, float64(90), v["deadlineSeconds"])
	require.Equal(t, t0.Add(90*time.Second).Format(timeFormat), v["deadlineAt"])
}

func TestSubmit_LimitsFromConfig_AreStamped(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{modify: func(c *Config) {
		c.Limits = jobs.Limits{MaxAttempts: 7, MaxRecoveries: 0, Deadline: time.Hour}
	}})
	v := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-1","operationVersion":1,"content":"x"}`}).json(t)
	require.Equal(t, float64(7), v["maxAttempts"])
	require.Equal(t, float64(0), v["maxRecoveries"], "zero recoveries is a setting, not a default")
	require.Equal(t, float64(3600), v["deadlineSeconds"])
}

func TestSubmit_InvalidRequest_NamesEveryBadField(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"a b","operationVersion":1.0,"content":"","deadlineSeconds":0,"tenant":"globex","zzz":1}`})
	e := r.requireError(t, http.StatusBadRequest, CodeInvalidRequest)
	require.Equal(t, []string{"documentId", "operationVersion", "content", "deadlineSeconds", "tenant", "zzz"}, fieldNames(e))
}

func TestSubmit_LogsHoldNeitherTokenNorContent(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "inv-1", 1, "SECRET-CONTENT-4711")
	b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-1","operationVersion":1,"content":"SECRET-CONTENT-4712"}`})
	b.do(t, call{method: "GET", path: "/v1/jobs/acme:inv-1:v1", token: "wrong-SECRET-TOKEN"})
	logs := b.logs.String()
	require.Contains(t, logs, `"msg":"http_request"`)
	for _, secret := range []string{"SECRET-CONTENT", tokAcme, "wrong-SECRET-TOKEN"} {
		require.NotContains(t, logs, secret)
	}
}

func TestGetJob_EveryState(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	queued := b.submit(t, tokAcme, "q", 1, "x")
	running := b.submit(t, tokAcme, "r", 1, "x")
	b.claim(t, running)
	succeeded := b.submit(t, tokAcme, "s", 1, "x")
	b.succeed(t, succeeded, `{"total":42}`)
	dead := b.submit(t, tokAcme, "d", 1, "x")
	b.deadLetter(t, dead)
	cancelled := b.submit(t, tokAcme, "c", 1, "x")
	b.cancel(t, cancelled)
	rejected := b.submit(t, tokAcme, "rj", 1, "x")
	b.reject(t, rejected, "total_mismatch")

	tests := []struct {
		id, state, errorCode, errorReason string
		started, finished                 bool
	}{
		{queued, "queued", "", "", false, false},
		{running, "running", "", "", true, false},
		{succeeded, "succeeded", "", "", true, true},
		{dead, "dead_lettered", jobs.CodePermanent, "", true, true},
		{cancelled, "cancelled", jobs.CodeDeadlineExceeded, "", true, true},
		{rejected, "dead_lettered", jobs.CodePermanent, "total_mismatch", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.state+tt.errorReason, func(t *testing.T) {
			for _, token := range []string{tokAcme, tokAlice} {
				r := b.do(t, call{method: "GET", path: "/v1/jobs/" + tt.id, token: token})
				require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
				v := r.json(t)
				require.Equal(t, tt.state, v["state"])
				require.Equal(t, tt.id, v["jobId"])
				require.NotContains(t, v, "deduped")
				_, hasStarted := v["startedAt"]
				_, hasFinished := v["finishedAt"]
				require.Equal(t, tt.started, hasStarted)
				require.Equal(t, tt.finished, hasFinished)
				if tt.errorCode != "" {
					require.Equal(t, tt.errorCode, v["errorCode"])
				} else {
					require.NotContains(t, v, "errorCode")
				}
				if tt.errorReason != "" {
					require.Equal(t, tt.errorReason, v["errorReason"])
				} else {
					require.NotContains(t, v, "errorReason")
				}
			}
		})
	}
	t.Run("result and review link once succeeded", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/jobs/" + succeeded, token: tokAcme}).json(t)
		require.Equal(t, map[string]any{"total": float64(42)}, v["result"])
		require.Equal(t, false, v["resultExpired"])
		require.Equal(t, "/v1/reviews/"+succeeded, v["links"].(map[string]any)["review"])
	})
}

func TestGetJob_EscapedPath_FindsTheJob(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "inv~1.a_b-c", 3, "x")
	r := b.do(t, call{method: "GET", path: "/v1/jobs/acme%3Ainv~1.a_b-c%3Av3", token: tokAcme})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.Equal(t, "acme:inv~1.a_b-c:v3", r.json(t)["jobId"])
}

func TestGetJob_AfterResultRetention_ReportsResultExpired(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	id := b.submit(t, tokAcme, "inv-1", 1, "x")
	b.succeed(t, id, `{"total":1}`)
	b.mini.FastForward(jobs.DefaultRetention.Result + time.Hour)

	r := b.do(t, call{method: "GET", path: "/v1/jobs/" + id, token: tokAcme})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	v := r.json(t)
	require.Equal(t, "succeeded", v["state"])
	require.Equal(t, true, v["resultExpired"])
	require.Equal(t, true, v["inputExpired"])
	require.NotContains(t, v, "result")
}

func TestGetJob_MissingMalformedOrForeign_Answers404Alike(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokGlobex, "inv-1", 1, "x")
	var bodies []string
	for _, path := range []string{
		"/v1/jobs/acme:inv-1:v1",     // missing
		"/v1/jobs/globex:inv-1:v1",   // another tenant's
		"/v1/jobs/not-a-key",         // malformed
		"/v1/jobs/acme:inv-1:v01",    // non-canonical
		"/v1/jobs/..%2F..%2Fetc%2Fp", // traversal
	} {
		r := b.do(t, call{method: "GET", path: path, token: tokAcme})
		e := r.requireError(t, http.StatusNotFound, CodeNotFound)
		bodies = append(bodies, e["message"].(string))
	}
	for _, m := range bodies {
		require.Equal(t, bodies[0], m, "every 404 reads the same")
	}
}

func TestListJobs_PagesFiltersAndScopes(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	var ids []string
	for i := range 5 {
		ids = append(ids, b.submit(t, tokAcme, fmt.Sprintf("doc-%d", i), 1, "x"))
		b.clock.Advance(time.Millisecond)
	}
	b.submit(t, tokAcme, "doc-0", 2, "y")
	b.submit(t, tokGlobex, "doc-0", 1, "x")
	b.deadLetter(t, ids[1])

	t.Run("pages newest first", func(t *testing.T) {
		var seen []string
		path := "/v1/jobs?limit=2"
		for range 10 {
			v := b.do(t, call{method: "GET", path: path, token: tokAcme}).json(t)
			for _, it := range v["items"].([]any) {
				seen = append(seen, it.(map[string]any)["jobId"].(string))
			}
			next, ok := v["nextCursor"].(string)
			if !ok {
				break
			}
			path = "/v1/jobs?limit=2&cursor=" + next
		}
		require.Equal(t, []string{"acme:doc-0:v2", ids[4], ids[3], ids[2], ids[1], ids[0]}, seen)
	})
	t.Run("state", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/jobs?state=dead_lettered", token: tokAcme}).json(t)
		require.Len(t, v["items"], 1)
		require.Equal(t, ids[1], v["items"].([]any)[0].(map[string]any)["jobId"])
		require.Nil(t, v["nextCursor"])
	})
	t.Run("documentId", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/jobs?documentId=doc-0", token: tokAcme}).json(t)
		require.Len(t, v["items"], 2)
	})
	t.Run("operator names the tenant", func(t *testing.T) {
		v := b.do(t, call{method: "GET", path: "/v1/jobs?tenant=globex", token: tokAlice}).json(t)
		require.Len(t, v["items"], 1)
		require.Equal(t, "globex:doc-0:v1", v["items"].([]any)[0].(map[string]any)["jobId"])
	})
	t.Run("operator without tenant", func(t *testing.T) {
		e := b.do(t, call{method: "GET", path: "/v1/jobs", token: tokAlice}).requireError(t, 400, CodeInvalidRequest)
		require.Equal(t, []string{"tenant"}, fieldNames(e))
	})
	t.Run("tenant naming itself", func(t *testing.T) {
		require.Equal(t, 200, b.do(t, call{method: "GET", path: "/v1/jobs?tenant=acme", token: tokAcme}).Status)
	})
	t.Run("tenant naming another", func(t *testing.T) {
		b.do(t, call{method: "GET", path: "/v1/jobs?tenant=globex", token: tokAcme}).requireError(t, 403, CodeForbidden)
	})
	t.Run("limit above 500", func(t *testing.T) {
		e := b.do(t, call{method: "GET", path: "/v1/jobs?limit=501", token: tokAcme}).requireError(t, 400, CodeInvalidRequest)
		require.Equal(t, []string{"limit"}, fieldNames(e))
	})
	t.Run("limit 500", func(t *testing.T) {
		require.Equal(t, 200, b.do(t, call{method: "GET", path: "/v1/jobs?limit=500", token: tokAcme}).Status)
	})
	t.Run("bad cursor", func(t *testing.T) {
		b.do(t, call{method: "GET", path: "/v1/jobs?cursor=!!", token: tokAcme}).requireError(t, 400, CodeInvalidCursor)
		b.do(t, call{method: "GET", path: "/v1/jobs?cursor=" + strings.Repeat("A", 600), token: tokAcme}).requireError(t, 400, CodeInvalidCursor)
	})
}

// A surrogate pair escape is one character, the same as written raw: the
// payload hashes alike and dedupes.
func TestSubmit_SurrogatePairEscape_IsTheCharacter(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	r := b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-1","operationVersion":1,"content":"smile \ud83d\ude00 \uD83D\uDE00"}`})
	require.Equal(t, http.StatusAccepted, r.Status, "body: %s", r.Body)
	r = b.do(t, call{method: "POST", path: "/v1/jobs", token: tokAcme,
		body: `{"documentId":"inv-1","operationVersion":1,"content":"smile 😀 😀"}`})
	require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
	require.Equal(t, true, r.json(t)["deduped"])
}

func TestSubmit_AccessLog_OneLineWithEveryField(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	b.submit(t, tokAcme, "inv-log", 1, "x")
	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.logs.String()), "\n") {
		if strings.Contains(l, `"msg":"http_request"`) {
			require.Nil(t, line, "one access log line per request")
			require.NoError(t, json.Unmarshal([]byte(l), &line))
		}
	}
	require.NotNil(t, line)
	require.Equal(t, "INFO", line["level"])
	require.Equal(t, "POST", line["method"])
	require.Equal(t, "/v1/jobs", line["route"])
	require.Equal(t, "/v1/jobs", line["path"])
	require.Equal(t, float64(http.StatusAccepted), line["status"])
	require.Equal(t, "tenant", line["role"])
	require.Equal(t, "acme", line["principal"])
	require.NotEmpty(t, line["request_id"])
	require.NotEmpty(t, line["remote_ip"])
	require.IsType(t, float64(0), line["duration_ms"])
	require.Greater(t, line["bytes_out"], float64(0))
}
