package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/internal/credential"
	"github.com/relayops/relayops/jobs"
)

// benchToken is the tenant "bench"'s bearer token; every side receives it.
const benchToken = "bench-token-0123456789abcdef"

const (
	sideTrivial = "trivial"
	sideDurable = "durable"
	sideSubmit  = "submit"
)

// sideNames is the order of the summary.
var sideNames = []string{sideTrivial, sideDurable, sideSubmit}

// side is one HTTP server under test.
type side struct {
	name, url string
	close     func()
}

// submitBody is the part of POST /v1/jobs' body the baselines decode.
type submitBody struct {
	DocumentID       string `json:"documentId"`
	OperationVersion int64  `json:"operationVersion"`
	Content          string `json:"content"`
}

// durableScript is the minimal durable submission: the job record with its
// document, and its event on a stream, atomically.
//
// KEYS[1] job hash   KEYS[2] event stream (same hash tag)
// ARGV[1] job key    ARGV[2] now ms       ARGV[3] content
// Returns 1.
var durableScript = redis.NewScript(`
redis.call('HSET', KEYS[1], 'state', 'queued', 'created_at', ARGV[2], 'content', ARGV[3])
redis.call('XADD', KEYS[2], '*', 'type', 'job.submitted', 'job', ARGV[1])
return 1
`)

// newSides starts the three servers; the caller closes them.
func newSides(rdb *redis.Client) ([]*side, error) {
	st, err := jobs.NewStore(jobs.Config{Redis: rdb})
	if err != nil {
		return nil, err
	}
	app, err := api.New(api.Config{
		Store:   st,
		Tenants: []credential.Credential{{Name: "bench", Token: benchToken}},
		Logger:  slog.New(slog.NewTextHandler(io.Discard, nil)),
		Quota:   quotaConfig(),
	})
	if err != nil {
		return nil, err
	}
	handlers := map[string]http.Handler{
		sideTrivial: baseline(nil),
		sideDurable: baseline(rdb),
		sideSubmit:  app.Handler(),
	}
	var sides []*side
	for _, name := range sideNames {
		url, stop, err := listen(handlers[name])
		if err != nil {
			for _, s := range sides {
				s.close()
			}
			return nil, err
		}
		sides = append(sides, &side{name: name, url: url, close: stop})
	}
	return sides, nil
}

// baseline is an Echo app with POST /v1/jobs that decodes the body and
// answers 202; with rdb it first runs durableScript.
func baseline(rdb *redis.Client) http.Handler {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/v1/jobs", func(c echo.Context) error {
		var b submitBody
		if err := json.NewDecoder(c.Request().Body).Decode(&b); err != nil || b.DocumentID == "" {
			return c.JSON(http.StatusBadRequest, map[string]string{"error": "invalid body"})
		}
		key := fmt.Sprintf("bench:%s:v%d", b.DocumentID, b.OperationVersion)
		if rdb != nil {
			tag := "{" + key + "}"
			now := strconv.FormatInt(time.Now().UnixMilli(), 10)
			if err := durableScript.Run(c.Request().Context(), rdb, []string{"job:" + tag, "events:" + tag}, key, now, b.Content).Err(); err != nil {
				return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": "store unavailable"})
			}
		}
		return c.JSON(http.StatusAccepted, map[string]string{"jobId": key, "state": "queued"})
	})
	return e
}
