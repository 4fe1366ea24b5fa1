package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/relayops/relayops/supplier"
)

// Supplier profiles: what relayops learned of a tenant's suppliers from
// people's corrections and approvals. A tenant reads its own; an operator
// reads any tenant's (tenant= on the list) and deletes one, audited.
// Another tenant's profile is 404, like a missing one. A supplier's ID is
// "<tenant>:<scheme>:<hash>": the tenant and the strongest identifier the
// supplier is known by, hashed.

// profileView is a supplier's profile as the API shows it.
type profileView struct {
	SupplierID string          `json:"supplierId"`
	Tenant     string          `json:"tenant"`
	Vendor     string          `json:"vendor,omitempty"`
	Version    int             `json:"version"`
	UpdatedAt  string          `json:"updatedAt"`
	Fields     []string        `json:"fields"`  // the fields it has an anchor for
	Reads      int             `json:"reads"`   // documents read with it
	Misses     int             `json:"misses"`  // of them, rejected or with a field it read corrected
	Flagged    bool            `json:"flagged"` // its reads keep being rejected or corrected
	Profile    json.RawMessage `json:"profile,omitempty"`
	History    []profileEvent  `json:"history,omitempty"`
	Links      struct {
		Self string `json:"self"`
	} `json:"links"`
}

// profileEvent is one learning or deletion of the supplier audit.
type profileEvent struct {
	Action   string   `json:"action"`
	Version  int      `json:"version"`
	JobID    string   `json:"jobId,omitempty"`
	Kind     string   `json:"kind,omitempty"`
	Operator string   `json:"operator,omitempty"`
	Fields   []string `json:"fields,omitempty"`
	At       string   `json:"at"`
}

// profileSummary is what the list shows of a profile's JSON.
type profileSummary struct {
	Vendor  string                     `json:"vendor"`
	Anchors map[string]json.RawMessage `json:"anchors"`
}

func newProfileView(tenant string, p *supplier.StoredProfile, whole bool) profileView {
	var sum profileSummary
	_ = json.Unmarshal(p.Data, &sum) // a profile that does not parse shows its version only
	v := profileView{SupplierID: supplier.PublicID(tenant, p.Supplier), Tenant: tenant, Vendor: sum.Vendor, Version: p.Version,
		UpdatedAt: formatTime(p.Updated), Fields: sortedFields(sum.Anchors), Reads: p.Reads, Misses: p.Misses,
		Flagged: supplier.FlaggedCounts(p.Reads, p.Misses)}
	v.Links.Self = "/v1/suppliers/" + v.SupplierID
	if whole {
		v.Profile = p.Data
	}
	return v
}

func sortedFields(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// listSuppliers is GET /v1/suppliers: the tenant's supplier profiles, the
// most recently learned first; an operator names the tenant.
func (s *Server) listSuppliers(c echo.Context) error {
	q := parseQuery(c, "tenant", "limit", "cursor")
	tenant, err := scopeTenant(principal(c), q, true)
	if err != nil {
		return err
	}
	limit, cursor := q.limit(), q.get("cursor")
	if err := q.done(); err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	page, err := s.cfg.Suppliers.Profiles(ctx, tenant, cursor, limit)
	if errors.Is(err, supplier.ErrBadCursor) {
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidCursor, Message: "invalid cursor: use the nextCursor a previous page answered"}
	}
	if err != nil {
		return fmt.Errorf("api: list suppliers: %w", err)
	}
	items := make([]profileView, len(page.Profiles))
	for i, p := range page.Profiles {
		items[i] = newProfileView(tenant, p, false)
	}
	var next *string
	if page.NextCursor != "" {
		next = &page.NextCursor
	}
	return c.JSON(http.StatusOK, map[string]any{"items": items, "nextCursor": next})
}

// supplierFor is the tenant and supplier of the path's ID, if the caller
// may see it: 404 otherwise.
func supplierFor(c echo.Context) (tenant, id string, err error) {
	tenant, id, ok := supplier.ParsePublicID(c.Param("supplierId"))
	if !ok {
		return "", "", notFound()
	}
	if p := principal(c); p.role == roleTenant && p.name != tenant {
		return "", "", notFound()
	}
	return tenant, id, nil
}

// getSupplier is GET /v1/suppliers/{supplierId}: the profile whole (its
// anchors, what it learned from which job, by whom) and its history.
func (s *Server) getSupplier(c echo.Context) error {
	tenant, id, err := supplierFor(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	p, err := s.cfg.Suppliers.Profile(ctx, tenant, id)
	if errors.Is(err, supplier.ErrProfileNotFound) {
		return notFound()
	}
	if err != nil {
		return fmt.Errorf("api: get supplier: %w", err)
	}
	v := newProfileView(tenant, p, true)
	events, err := s.cfg.Suppliers.ProfileAudit(ctx, tenant, 500)
	if err != nil {
		return fmt.Errorf("api: get supplier: %w", err)
	}
	for _, ev := range events {
		if ev.Supplier == id {
			v.History = append(v.History, profileEvent{Action: ev.Action, Version: ev.Version, JobID: ev.Job, Kind: ev.Kind,
				Operator: ev.Operator, Fields: ev.Fields, At: formatTime(ev.At)})
		}
	}
	if principal(c).role == roleTenant {
		for i := range v.History {
			v.History[i].Operator = "" // tenants learn that an operator acted, not which one
		}
	}
	return c.JSON(http.StatusOK, v)
}

// deleteSupplier is DELETE /v1/suppliers/{supplierId} by an operator: the
// profile is forgotten (204), audited; the next documents of the supplier
// are read by the rules alone until a person corrects or approves one.
func (s *Server) deleteSupplier(c echo.Context) error {
	tenant, id, err := supplierFor(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.storeCtx(c)
	defer cancel()
	err = s.cfg.Suppliers.DeleteProfile(ctx, tenant, id, principal(c).name)
	if errors.Is(err, supplier.ErrProfileNotFound) {
		return notFound()
	}
	if err != nil {
		return fmt.Errorf("api: delete supplier: %w", err)
	}
	return c.NoContent(http.StatusNoContent)
}
