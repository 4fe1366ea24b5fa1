package console

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
	"github.com/relayops/relayops/supplier"
)

// The supplier pages: the profiles relayops learned of a tenant's
// suppliers from people's corrections and approvals, listed per tenant,
// each shown in words (where each field is, in which form, learned from
// which job, by whom), with the tenant's supplier audit, and forgotten by
// an operator's POST. They read and delete through the operations of
// /v1/suppliers; a profile is named by its public ID
// ("<tenant>:<scheme>:<hash>"), so a page only ever shows the tenant that
// ID names, and another tenant's supplier is 404 like a missing one.

// supplierAuditWindow is how many of a tenant's newest supplier audit
// entries a profile page looks through for its own (as the API's
// GET /v1/suppliers/{supplierId} does); supplierAuditShown how many the
// list page shows.
const (
	supplierAuditWindow = 500
	supplierAuditShown  = PageSize
)

// profileRow is one line of the profile list.
type profileRow struct {
	ID, Vendor    string
	Version       int
	Updated       time.Time
	Fields        []string // the fields it has an anchor for, in words
	Reads, Misses int
	Flagged       bool
	Unreadable    bool // its data could not be read as a profile
}

// supplierEvent is one entry of a tenant's supplier audit.
type supplierEvent struct {
	At                  time.Time
	Action, Words       string // profile_learned, "learned"
	ID                  string // the profile's public ID
	Version             int
	Job, Kind, Operator string
	Fields              []string // in words
	JobOfTenant         bool     // Job is a job of the profile's tenant: linked
}

type suppliersBody struct {
	Tenant  string
	Tenants []string // the configured tenants, to choose from
	Choose  bool     // no tenant chosen yet: the page offers them
	Rows    []profileRow
	Next    string
	Audit   []supplierEvent
}

// suppliers lists a tenant's supplier profiles, the most recently changed
// first, and the tenant's supplier audit. Without tenant= it lists the
// only configured tenant's, or offers the tenants to choose from.
func (c *Console) suppliers(w http.ResponseWriter, r *http.Request) {
	q := newQuery(r)
	tenant, cursor := q.name("tenant"), q.cursor()
	deleted := q.get("deleted")
	if q.fields != nil {
		c.invalid(w, r, q.fields...)
		return
	}
	body := suppliersBody{Tenant: tenant, Tenants: c.ops.Tenants()}
	if tenant == "" && len(body.Tenants) == 1 {
		body.Tenant = body.Tenants[0]
	}
	pg := &page{Title: "Suppliers", Nav: "suppliers", Body: body}
	if t, _, ok := supplier.ParsePublicID(deleted); ok && t == body.Tenant {
		pg.Notice = "The profile " + deleted + " is forgotten, and the deletion is in the supplier audit below. " +
			"The supplier's next documents are read by the rules alone until a person corrects or approves one."
	}
	if body.Tenant == "" {
		body.Choose = true
		pg.Body = body
		c.render(w, r, http.StatusOK, "suppliers", pg)
		return
	}
	list, err := c.ops.Profiles(r.Context(), body.Tenant, cursor, PageSize)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	for _, p := range list.Profiles {
		body.Rows = append(body.Rows, newProfileRow(body.Tenant, p))
	}
	body.Next = c.next("/suppliers", url.Values{"tenant": {body.Tenant}}, list.NextCursor)
	events, err := c.ops.ProfileAudit(r.Context(), body.Tenant, supplierAuditShown)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	body.Audit = supplierEvents(body.Tenant, events)
	pg.Body = body
	c.render(w, r, http.StatusOK, "suppliers", pg)
}

// decodeProfile reads a stored profile's JSON; false when it cannot.
func decodeProfile(p *supplier.StoredProfile) (*supplier.Profile, bool) {
	var prof supplier.Profile
	if json.Unmarshal(p.Data, &prof) != nil {
		return &supplier.Profile{}, false
	}
	return &prof, true
}

func newProfileRow(tenant string, p *supplier.StoredProfile) profileRow {
	prof, ok := decodeProfile(p)
	return profileRow{ID: supplier.PublicID(tenant, p.Supplier), Vendor: prof.Vendor, Version: p.Version,
		Updated: p.Updated, Fields: fieldsInWords(prof.Fields()), Reads: p.Reads, Misses: p.Misses,
		Flagged: supplier.FlaggedCounts(p.Reads, p.Misses), Unreadable: !ok}
}

func fieldsInWords(fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = fieldName(f)
	}
	return out
}

// fieldName is a field in words ("invoice number"), or its name.
func fieldName(f string) string {
	if w, ok := fieldWords[f]; ok {
		return w
	}
	return f
}

// supplierEvents are a tenant's supplier audit entries as pages show them.
func supplierEvents(tenant string, events []supplier.ProfileEvent) []supplierEvent {
	out := make([]supplierEvent, 0, len(events))
	for _, ev := range events {
		e := supplierEvent{At: ev.At, Action: ev.Action, Words: actionWords(ev.Action),
			ID: supplier.PublicID(tenant, ev.Supplier), Version: ev.Version, Job: ev.Job, Kind: ev.Kind,
			Operator: ev.Operator, Fields: fieldsInWords(ev.Fields)}
		e.JobOfTenant = jobOf(tenant, ev.Job)
		out = append(out, e)
	}
	return out
}

func actionWords(action string) string {
	switch action {
	case supplier.ActionProfileLearned:
		return "learned"
	case supplier.ActionProfileDeleted:
		return "deleted"
	}
	return action
}

// anchorView is one field's anchor in words.
type anchorView struct {
	Field, Name string // "total", "total"
	Where       string // "right of 'Gesamtbetrag', …, written 1.234,56"
	Job         string // learned from
	JobLinked   bool   // Job is a job of the profile's tenant
	Confirmed   int
	Alternate   *anchorView
}

// learnedView is one learning of a profile.
type learnedView struct {
	Job                string
	JobLinked          bool
	Kind, Operator     string
	At                 time.Time
	Corrected, Anchors []string // in words
}

type profileBody struct {
	ID, Tenant                 string
	Version                    int
	Updated                    time.Time
	Vendor, Currency, Language string
	Unreadable                 bool
	Anchors                    []anchorView
	Learned                    []learnedView // newest first
	Reads, Misses              int
	Flagged                    bool
	History                    []supplierEvent
}

// supplierPage shows one profile in words, its learnings, its audit and
// the form that forgets it.
func (c *Console) supplierPage(w http.ResponseWriter, r *http.Request) {
	tenant, id, ok := c.supplierID(w, r)
	if !ok {
		return
	}
	c.showProfile(w, r, http.StatusOK, tenant, id, &page{})
}

func (c *Console) showProfile(w http.ResponseWriter, r *http.Request, status int, tenant, id string, pg *page) {
	p, err := c.ops.Profile(r.Context(), tenant, id)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	events, err := c.ops.ProfileAudit(r.Context(), tenant, supplierAuditWindow)
	if err != nil {
		c.storeFailed(w, r, err)
		return
	}
	prof, readable := decodeProfile(p)
	body := profileBody{ID: supplier.PublicID(tenant, id), Tenant: tenant, Version: p.Version, Updated: p.Updated,
		Vendor: prof.Vendor, Currency: prof.Currency, Language: prof.Language, Unreadable: !readable,
		Reads: p.Reads, Misses: p.Misses, Flagged: supplier.FlaggedCounts(p.Reads, p.Misses)}
	for _, f := range prof.Fields() {
		body.Anchors = append(body.Anchors, newAnchorView(tenant, f, prof.Anchors[f]))
	}
	for _, l := range slices.Backward(prof.Learned) {
		body.Learned = append(body.Learned, learnedView{Job: l.Job, JobLinked: jobOf(tenant, l.Job), Kind: l.Kind,
			Operator: l.Operator, At: l.At, Corrected: fieldsInWords(l.Fields), Anchors: fieldsInWords(l.Anchored)})
	}
	for _, ev := range supplierEvents(tenant, events) {
		if ev.ID == body.ID {
			body.History = append(body.History, ev)
		}
	}
	pg.Title, pg.Nav, pg.Body = "Supplier "+body.ID, "suppliers", body
	c.render(w, r, status, "supplier", pg)
}

// jobOf reports whether id is a job of tenant's (which a page may link).
func jobOf(tenant, id string) bool {
	k, err := jobs.ParseKey(id)
	return err == nil && k.Tenant == tenant
}

func newAnchorView(tenant, field string, a supplier.Anchor) anchorView {
	v := anchorView{Field: field, Name: fieldName(field), Where: anchorWhere(a), Job: a.Job,
		JobLinked: jobOf(tenant, a.Job), Confirmed: a.Confirmed}
	if a.Alternate != nil {
		alt := newAnchorView(tenant, field, *a.Alternate)
		alt.Alternate = nil // an alternate has none of its own
		v.Alternate = &alt
	}
	return v
}

// deleteSupplier forgets a profile (POST, guarded), audited with the
// operator, then lists the tenant's profiles with a notice. The form's
// box confirms it; without it nothing is deleted.
func (c *Console) deleteSupplier(w http.ResponseWriter, r *http.Request) {
	tenant, id, ok := c.supplierID(w, r)
	if !ok {
		return
	}
	if r.PostForm.Get("confirm") == "" {
		pg := &page{Problem: "Nothing was deleted: tick the box that confirms you want to forget this profile.",
			Fields: []jobs.FieldError{{Field: "confirm", Problem: "must be ticked to delete the profile"}}}
		c.showProfile(w, r, http.StatusBadRequest, tenant, id, pg)
		return
	}
	if err := c.ops.DeleteProfile(r.Context(), tenant, id, principal(r).Name); err != nil {
		c.storeFailed(w, r, err)
		return
	}
	v := url.Values{"tenant": {tenant}, "deleted": {supplier.PublicID(tenant, id)}}
	http.Redirect(w, r, c.cfg.RootPath+"/suppliers?"+v.Encode(), http.StatusSeeOther)
}

// supplierID parses the {supplierId} path segment, a public ID; false
// after answering 404.
func (c *Console) supplierID(w http.ResponseWriter, r *http.Request) (tenant, id string, ok bool) {
	tenant, id, ok = supplier.ParsePublicID(r.PathValue("supplierId"))
	if !ok {
		c.fail(w, r, []jobs.FieldError{{Field: "supplierId", Problem: "must be <tenant>:<scheme>:<hash>, as the list of profiles links it"}},
			http.StatusNotFound, "There is no such supplier profile.")
	}
	return tenant, id, ok
}

// profileFailure answers the profile operations' own errors; false when
// err is none of them.
func (c *Console) profileFailure(w http.ResponseWriter, r *http.Request, err error) bool {
	switch {
	case errors.Is(err, supplier.ErrProfileNotFound):
		c.fail(w, r, nil, http.StatusNotFound, "There is no such supplier profile (it may have been deleted).")
	case errors.Is(err, supplier.ErrBadCursor):
		c.invalid(w, r, jobs.FieldError{Field: "cursor", Problem: "is not a cursor of this list; start again from the first page"})
	case errors.Is(err, ErrNoSupplierMemory):
		c.fail(w, r, nil, http.StatusNotFound, "This deployment keeps no supplier profiles: the supplier memory is off.")
	default:
		return false
	}
	return true
}

// profileRead is a supplier profile that read fields of a result, as the
// job and review pages link it.
type profileRead struct {
	ID      string // the profile's public ID
	Version int
	Fields  []string // the fields it read, in words
	Learned []string // the jobs its anchors were learned from
}

// profilesRead are the profiles whose anchors read fields of a result of
// a job of tenant, from the fields' evidence. A profile of another tenant
// (which evidence never names) is not linked.
func profilesRead(tenant string, evidence map[string]extract.Evidence) []profileRead {
	var out []profileRead
	fields := make([]string, 0, len(evidence))
	for f := range evidence {
		fields = append(fields, f)
	}
	slices.Sort(fields)
	for _, f := range fields {
		e := evidence[f]
		if e.Source != extract.EvidenceProfile {
			continue
		}
		id, version, ok := profileOfRef(tenant, e.Profile)
		if !ok {
			continue
		}
		i := slices.IndexFunc(out, func(p profileRead) bool { return p.ID == id && p.Version == version })
		if i < 0 {
			out = append(out, profileRead{ID: id, Version: version})
			i = len(out) - 1
		}
		out[i].Fields = append(out[i].Fields, fieldName(f))
		if e.Learned != "" && jobOf(tenant, e.Learned) && !slices.Contains(out[i].Learned, e.Learned) {
			out[i].Learned = append(out[i].Learned, e.Learned)
		}
	}
	return out
}

// profileOfRef is the public ID and version of the profile an evidence
// reference names ("<supplier>@v<version>", the supplier either the
// store's ID or a public one), when it is a profile of tenant's.
func profileOfRef(tenant, ref string) (string, int, bool) {
	sup, version, ok := supplier.ParseRef(ref)
	if !ok {
		return "", 0, false
	}
	if strings.Count(sup, ":") == 1 {
		sup = supplier.PublicID(tenant, sup)
	}
	t, _, ok := supplier.ParsePublicID(sup)
	if !ok || t != tenant {
		return "", 0, false
	}
	return sup, version, true
}
