package api

import (
	"context"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/relayops/relayops/admission"
	"github.com/relayops/relayops/quota"
)

// tenantView is one tenant's backlog, as GET /v1/tenants answers it.
type tenantView struct {
	Tenant string `json:"tenant"`
	// OpenJobs counts the tenant's queued, running and retrying jobs (the
	// store's own indexes: exact).
	OpenJobs int64 `json:"openJobs"`
	// Waiting and InFlight are the tenant's jobs waiting for admission and
	// admitted (enqueued or running); both 0 when admission is off.
	Waiting  int64 `json:"waiting"`
	InFlight int64 `json:"inFlight"`
	// QuotaJobs and QuotaBytes are what the tenant's backlog quotas count
	// (after releasing the jobs that ended); absent without a rate or a
	// backlog quota.
	QuotaJobs  *int64 `json:"quotaJobs,omitempty"`
	QuotaBytes *int64 `json:"quotaBytes,omitempty"`
	// QuotaStoredBytes is the input bytes the tenant has stored (open and
	// ended jobs', until they expire) as RELAYOPS_TENANT_MAX_STORED_BYTES
	// counts them; absent without that cap.
	QuotaStoredBytes *int64 `json:"quotaStoredBytes,omitempty"`
}

// listTenants is GET /v1/tenants (operator): every tenant with a token, and
// every tenant admission knows of, with its backlog.
func (s *Server) listTenants(c echo.Context) error {
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	items, err := s.tenantViews(ctx)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items, "nextCursor": nil})
}

func (s *Server) tenantViews(ctx context.Context) ([]tenantView, error) {
	adm, err := admission.Tenants(ctx, s.store.Redis())
	if err != nil {
		return nil, err
	}
	byName := map[string]admission.Tenant{}
	var names []string
	for _, t := range adm {
		byName[t.Tenant] = t
		names = append(names, t.Tenant)
	}
	for _, cr := range s.cfg.Tenants {
		if _, ok := byName[cr.Name]; !ok && !slices.Contains(names, cr.Name) {
			names = append(names, cr.Name)
		}
	}
	slices.Sort(names)
	items := make([]tenantView, 0, len(names))
	for _, name := range names {
		v := tenantView{Tenant: name, Waiting: byName[name].Waiting, InFlight: byName[name].InFlight}
		if v.OpenJobs, err = s.store.OpenJobs(ctx, name); err != nil {
			return nil, err
		}
		if s.quota != nil {
			u, err := s.quota.Usage(ctx, name, true)
			if err != nil {
				return nil, err
			}
			if q := s.cfg.Quota; q.Rate > 0 || q.MaxJobs > 0 || q.MaxBytes > 0 {
				v.QuotaJobs, v.QuotaBytes = &u.Jobs, &u.Bytes
			}
			if s.cfg.Quota.MaxStoredBytes > 0 {
				v.QuotaStoredBytes = &u.StoredBytes
			}
		}
		items = append(items, v)
	}
	return items, nil
}

// Per-tenant admission gauges, read from Redis with the cluster-wide
// gauges. One series per tenant admission knows of: tenants come only from
// RELAYOPS_TENANT_TOKENS (a job's tenant is its token's), and one idle for
// an hour is forgotten, so the label's cardinality is the number of
// configured tenants at most.
var (
	tenantWaitingDesc = prometheus.NewDesc("relayops_tenant_waiting",
		"Jobs of the tenant waiting for admission (RELAYOPS_TENANT_MAX_INFLIGHT).", []string{"tenant"}, nil)
	tenantInFlightDesc = prometheus.NewDesc("relayops_tenant_inflight",
		"Jobs of the tenant admitted and not yet ended (enqueued or running), at most its in-flight cap.", []string{"tenant"}, nil)
	tenantQuotaJobsDesc = prometheus.NewDesc("relayops_tenant_quota_backlog_jobs",
		"Open jobs the tenant's backlog quota counts (RELAYOPS_TENANT_MAX_BACKLOG); ended jobs are released when the tenant reaches a limit or an operator reads GET /v1/tenants.", []string{"tenant"}, nil)
	tenantQuotaBytesDesc = prometheus.NewDesc("relayops_tenant_quota_backlog_bytes",
		"Input bytes of the open jobs the tenant's backlog quota counts (RELAYOPS_TENANT_MAX_BACKLOG_BYTES).", []string{"tenant"}, nil)
	tenantQuotaStoredDesc = prometheus.NewDesc("relayops_tenant_quota_stored_bytes",
		"Input bytes the tenant has stored, open and ended jobs' until they expire, as RELAYOPS_TENANT_MAX_STORED_BYTES counts them (0 without that cap).", []string{"tenant"}, nil)
)

// tenantMetrics is the collector part of the per-tenant gauges.
func (c *clusterCollector) tenants(ctx context.Context) ([]prometheus.Metric, error) {
	ts, err := admission.Tenants(ctx, c.store.Redis())
	if err != nil {
		return nil, err
	}
	var ms []prometheus.Metric
	for _, t := range ts {
		ms = append(ms, gauge(tenantWaitingDesc, float64(t.Waiting), t.Tenant), gauge(tenantInFlightDesc, float64(t.InFlight), t.Tenant))
		if !c.quotas {
			continue
		}
		u, err := quota.ReadUsage(ctx, c.store.Redis(), t.Tenant)
		if err != nil {
			return nil, err
		}
		ms = append(ms, gauge(tenantQuotaJobsDesc, float64(u.Jobs), t.Tenant), gauge(tenantQuotaBytesDesc, float64(u.Bytes), t.Tenant),
			gauge(tenantQuotaStoredDesc, float64(u.StoredBytes), t.Tenant))
	}
	return ms, nil
}
