package dashboard

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/browsertest"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/internal/task"
)

// loadCreds answers auth challenges with what creds holds when asked (nil:
// the user cancels the prompt).
func loadCreds(creds *atomic.Pointer[[2]string]) browsertest.Credentials {
	return func() (string, string, bool) {
		if c := creds.Load(); c != nil {
			return c[0], c[1], true
		}
		return "", "", false
	}
}

// codeError is what relayops' handlers return to Asynq: its text is the
// reason code alone, and it unwraps to SkipRetry so the task is archived.
type codeError string

func (e codeError) Error() string { return string(e) }
func (e codeError) Unwrap() error { return asynq.SkipRetry }

// archiveTask runs a task through a real Asynq server whose handler fails it
// permanently, so it lands in the archive with its reason code.
func archiveTask(t *testing.T, rdb redis.UniversalClient, id string) {
	t.Helper()
	client := asynq.NewClientFromRedisClient(rdb)
	_, err := client.Enqueue(asynq.NewTask(task.TypeExtract, task.ExtractPayload{JobKey: id}.Marshal()),
		asynq.Queue(task.QueueExtract), asynq.TaskID(id))
	require.NoError(t, err)
	srv := asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Queues: map[string]int{task.QueueExtract: 1}, Concurrency: 1, LogLevel: asynq.FatalLevel,
	})
	mux := asynq.NewServeMux()
	mux.HandleFunc(task.TypeExtract, func(context.Context, *asynq.Task) error { return codeError("permanent_error") })
	require.NoError(t, srv.Start(mux))
	defer srv.Shutdown()
	insp := asynq.NewInspectorFromRedisClient(rdb)
	redistest.Eventually(t, 30*time.Second, func() bool {
		info, err := insp.GetTaskInfo(task.QueueExtract, id)
		return err == nil && info.State == asynq.TaskStateArchived
	}, "task %s archived", id)
}

func TestBrowser_Monitoring_OperatorSeesReadOnlyAsynqmon(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	srv := redistest.Start(t, nil)
	rdb := srv.Client(t)
	archiveTask(t, rdb, "acme:inv-1:v1")
	_, err := asynq.NewClientFromRedisClient(rdb).Enqueue(
		asynq.NewTask(task.TypeExtract, task.ExtractPayload{JobKey: "acme:inv-2:v1"}.Marshal()),
		asynq.Queue(task.QueueExtract), asynq.TaskID("acme:inv-2:v1"))
	require.NoError(t, err)
	ts := setup(t, srv.URL)
	host := strings.TrimPrefix(ts.URL, "http://")

	var creds atomic.Pointer[[2]string]
	var external atomic.Int64
	browsertest.Guard(t, ctx, host, loadCreds(&creds), &external)
	recordPolicyViolations(t, ctx)
	innerText := chromedp.Evaluate[string](`document.body.innerText`)

	t.Run("refused without credentials", func(t *testing.T) {
		res, err := chromedp.Run(ctx, chromedp.NavigateResponse(ts.URL+"/monitoring/"))
		require.NoError(t, err)
		require.EqualValues(t, 401, res.Status)
		text, err := chromedp.Run(ctx, innerText)
		require.NoError(t, err)
		require.Contains(t, text, "unauthorized")
		require.NotContains(t, text, "Queues")
	})

	creds.Store(&[2]string{opName, opToken})
	t.Run("operator credentials render the queues", func(t *testing.T) {
		res, err := chromedp.Run(ctx, chromedp.NavigateResponse(ts.URL+"/monitoring/"))
		require.NoError(t, err)
		require.EqualValues(t, 200, res.Status)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](
			`document.body.innerText.includes("`+task.QueueExtract+`")`, chromedp.WithPollingInterval(100*time.Millisecond)))
		require.NoError(t, err, "the queue name never rendered")
	})

	t.Run("the page is self-contained under its Content-Security-Policy", func(t *testing.T) {
		violations, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__cspViolations`))
		require.NoError(t, err)
		require.Empty(t, violations, "nothing the policy refused")
		require.Zero(t, external.Load(), "no request left the test server (fonts, analytics)")
	})

	t.Run("the archived task shows only its reason code", func(t *testing.T) {
		_, err := chromedp.Run(ctx, chromedp.NavigateResponse(ts.URL+"/monitoring/queues/"+task.QueueExtract+"/tasks/acme:inv-1:v1"))
		require.NoError(t, err)
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.innerText.includes("permanent_error")`,
			chromedp.WithPollingInterval(100*time.Millisecond)))
		require.NoError(t, err, "the reason code never rendered")
		text, err := chromedp.Run(ctx, innerText)
		require.NoError(t, err)
		require.Contains(t, text, `"jobKey": "acme:inv-1:v1"`, "the payload is a reference")
		require.Regexp(t, `Last Failure:\s*permanent_error \(`, text, "the error is the code alone")
		require.NotContains(t, text, "skip retry")
	})

	t.Run("write actions are refused", func(t *testing.T) {
		for _, call := range []string{
			`fetch("/monitoring/api/queues/extract:pause", {method: "POST"}).then(r => r.status)`,
			`fetch("/monitoring/api/queues/extract/archived_tasks:run_all", {method: "POST"}).then(r => r.status)`,
			`fetch("/monitoring/api/queues/extract/pending_tasks/acme:inv-2:v1", {method: "DELETE"}).then(r => r.status)`,
		} {
			status, err := chromedp.Run(ctx, chromedp.Evaluate[int](call, chromedp.EvalAwaitPromise))
			require.NoError(t, err)
			require.Equal(t, 405, status, call)
		}
		insp := asynq.NewInspectorFromRedisClient(rdb)
		q, err := insp.GetQueueInfo(task.QueueExtract)
		require.NoError(t, err)
		require.False(t, q.Paused)
		require.Equal(t, 1, q.Archived)
		require.Equal(t, 1, q.Pending)
	})
}

// recordPolicyViolations collects, in every page the browser loads, what
// the Content-Security-Policy refused, in window.__cspViolations.
func recordPolicyViolations(t *testing.T, ctx context.Context) {
	t.Helper()
	_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.__cspViolations = [];
			document.addEventListener("securitypolicyviolation", e => window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));`,
	})
	require.NoError(t, err)
}

// On the embedded Redis (miniredis, as make run uses), asynqmon's Redis page
// showed NaN for the figures miniredis does not report.
func TestBrowser_RedisPage_OnEmbeddedRedis_ShowsNoNaN(t *testing.T) {
	t.Parallel()
	ctx := browsertest.New(t, 90*time.Second)
	m, _ := redistest.Mini(t)
	ts := setup(t, "redis://"+m.Addr()+"/0")
	var creds atomic.Pointer[[2]string]
	creds.Store(&[2]string{opName, opToken})
	browsertest.Guard(t, ctx, strings.TrimPrefix(ts.URL, "http://"), loadCreds(&creds), nil)
	_, err := chromedp.Run(ctx, chromedp.NavigateResponse(ts.URL+"/monitoring/redis"))
	require.NoError(t, err)
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.body.innerText.includes("Connected Clients")`,
		chromedp.WithPollingInterval(100*time.Millisecond)))
	require.NoError(t, err, "the Redis page never rendered")
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	require.NoError(t, err)
	require.NotContains(t, text, "NaN")
	require.Contains(t, text, "n/a")
}
