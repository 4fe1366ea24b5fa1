package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/api"
	"github.com/relayops/relayops/console"
	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/supplier"
)

// withSuppliers gives the API server (and so the console) a supplier
// store on the bundle's Redis.
func withSuppliers(t *testing.T, s **supplier.Store) func(*api.Config) {
	return func(c *api.Config) {
		store, err := supplier.NewStore(supplier.Config{Redis: c.Store.Redis(), Clock: c.Clock})
		require.NoError(t, err)
		c.Suppliers, *s = store, store
	}
}

// kuehnPage is one page of a German supplier's invoice: the number and
// the date right of their labels, the totals under the items with a
// decimal comma.
func kuehnPage(number, date, net, tax, total string) supplier.Page {
	var b strings.Builder
	fmt.Fprintf(&b, "Kühn Metallbau GmbH                                         RECHNUNG\n")
	fmt.Fprintf(&b, "Industriestraße 4                              Rechnungsnummer: %s\n", number)
	fmt.Fprintf(&b, "70565 Stuttgart                                      Datum: %s\n", date)
	fmt.Fprintf(&b, "USt-IdNr. DE129273398\n\n")
	fmt.Fprintf(&b, "Position                                           Betrag\n")
	fmt.Fprintf(&b, "Geländer verzinkt                                € %s\n\n", net)
	fmt.Fprintf(&b, "                                   Nettobetrag   € %s\n", net)
	fmt.Fprintf(&b, "                                    MwSt. 19 %%   € %s\n", tax)
	fmt.Fprintf(&b, "                                  Gesamtbetrag   € %s\n", total)
	return b.String()
}

// learned stores the profile that a correction (job, by alice) and then
// an approval (confirm) teach of tenant's supplier known by keys; it
// returns the profile's public ID.
func learned(t *testing.T, s *supplier.Store, tenant string, keys []string, job, confirm string) string {
	t.Helper()
	ctx := context.Background()
	id, err := s.Resolve(ctx, tenant, keys)
	require.NoError(t, err)
	at := t0.Add(-time.Hour)
	p := supplier.Learn(nil, []supplier.Page{kuehnPage("MB-2024-118", "03.04.2024", "1.512,00", "287,28", "1.799,28")},
		supplier.Values{DocumentType: "invoice", InvoiceNumber: "MB-2024-118", IssueDate: "2024-04-03", Currency: "EUR",
			Vendor: "Kühn Metallbau GmbH", Subtotal: "1512.00", Tax: "287.28", Total: "1799.28"},
		supplier.LearnedFrom{Job: job, Operator: "alice", At: at, Kind: supplier.LearnedCorrection, Fields: []string{"total"}})
	save(t, s, tenant, id, 0, p, job, "alice", supplier.LearnedCorrection)
	if confirm != "" {
		q := supplier.Learn(p, []supplier.Page{kuehnPage("MB-2024-131", "17.04.2024", "840,00", "159,60", "999,60")},
			supplier.Values{DocumentType: "invoice", InvoiceNumber: "MB-2024-131", IssueDate: "2024-04-17", Currency: "EUR",
				Vendor: "Kühn Metallbau GmbH", Subtotal: "840.00", Tax: "159.60", Total: "999.60"},
			supplier.LearnedFrom{Job: confirm, Operator: "bob", At: at.Add(time.Minute), Kind: supplier.LearnedApproval})
		save(t, s, tenant, id, 1, q, confirm, "bob", supplier.LearnedApproval)
	}
	return supplier.PublicID(tenant, id)
}

func save(t *testing.T, s *supplier.Store, tenant, id string, from int, p *supplier.Profile, job, operator, kind string) {
	t.Helper()
	data, err := json.Marshal(p)
	require.NoError(t, err)
	ev := supplier.ProfileEvent{Supplier: id, Job: job, Kind: kind, Operator: operator, Fields: p.Learned[len(p.Learned)-1].Anchored}
	require.NoError(t, s.SaveProfile(context.Background(), tenant, from, p.Version, data, ev))
}

var kuehnKeys = []string{"vat:DE129273398", "name:kuhn metallbau"}

func TestConsole_Suppliers_ListsOnlyTheTenantsProfiles_WithTheirFieldsAndFlag(t *testing.T) {
	t.Parallel()
	var s *supplier.Store
	b := setup(t, withSuppliers(t, &s))
	mine := learned(t, s, "acme", kuehnKeys, "acme:inv-7:v2", "acme:inv-9:v1")
	theirs := learned(t, s, "globex", kuehnKeys, "globex:inv-1:v2", "")

	p := b.get(t, "/console/suppliers?tenant=acme", alice)
	require.Equal(t, http.StatusOK, p.status, p.body)
	require.Contains(t, p.body, `href="/console/suppliers" aria-current="page" id="nav-suppliers"`, "the header's Suppliers entry is current")
	list := block(t, p.body, "suppliers")
	require.Contains(t, list, `href="/console/suppliers/`+mine+`"`)
	require.Contains(t, list, "Kühn Metallbau GmbH")
	require.Contains(t, list, ">v2<", "its version")
	require.Contains(t, list, "invoice number", "the fields learned, in words")
	require.Contains(t, list, "not flagged")
	require.NotContains(t, p.body, theirs, "never another tenant's profile")
	audit := block(t, p.body, "supplier-audit")
	require.Contains(t, audit, "acme:inv-7:v2")
	require.Contains(t, audit, "acme:inv-9:v1")
	require.NotContains(t, audit, "globex")

	// Each page of another console page links the list.
	require.Contains(t, b.get(t, "/console/reviews", alice).body, `href="/console/suppliers"`)
	require.Contains(t, b.get(t, "/console/audit", alice).body, `id="supplier-audit-link"`)

	// Without a tenant, the configured tenants are offered.
	choose := b.get(t, "/console/suppliers", alice)
	require.Equal(t, http.StatusOK, choose.status)
	require.Contains(t, block(t, choose.body, "choose-tenant"), `href="/console/suppliers?tenant=globex"`)
}

func TestConsole_Suppliers_APageAtATime_FlaggedInWords(t *testing.T) {
	t.Parallel()
	var s *supplier.Store
	b := setup(t, withSuppliers(t, &s))
	ctx := context.Background()
	for i := range 52 {
		p := &supplier.Profile{Version: 1, Vendor: fmt.Sprintf("Supplier %02d", i),
			Learned: []supplier.LearnedFrom{{Job: fmt.Sprintf("acme:d-%d:v2", i), Kind: supplier.LearnedCorrection}}}
		id, err := s.Resolve(ctx, "acme", []string{fmt.Sprintf("iban:DE0000000000000000%04d", i)})
		require.NoError(t, err)
		save(t, s, "acme", id, 0, p, p.Learned[0].Job, "alice", supplier.LearnedCorrection)
		countReads(t, s, "acme", id, 6, i%3)
		b.clock.Advance(time.Second) // an order the list can show: the newest first
	}
	first := b.get(t, "/console/suppliers?tenant=acme", alice)
	require.Equal(t, http.StatusOK, first.status)
	rows := strings.Count(block(t, first.body, "suppliers"), "<tr")
	require.Equal(t, 1+console.PageSize, rows, "a header and a page")
	require.Contains(t, first.body, "Supplier 51", "the newest first")
	require.Contains(t, first.body, "flagged: its reads keep being rejected or corrected", "2 misses of 6 reads flag a profile")
	next := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(first.body)
	require.NotNil(t, next)
	second := b.get(t, html.UnescapeString(next[1]), alice)
	require.Equal(t, http.StatusOK, second.status)
	require.Contains(t, second.body, "Supplier 00")
	require.Contains(t, second.body, "Supplier 01")
	require.NotContains(t, second.body, "Supplier 51")

	bad := b.get(t, "/console/suppliers?tenant=acme&cursor=x", alice)
	require.Equal(t, http.StatusBadRequest, bad.status)
	require.Contains(t, bad.body, "<code>cursor</code>")
}

func TestConsole_SupplierProfile_ShowsEachAnchorInWords_WhatItLearnedFrom_AndItsAudit(t *testing.T) {
	t.Parallel()
	var s *supplier.Store
	b := setup(t, withSuppliers(t, &s))
	id := learned(t, s, "acme", kuehnKeys, "acme:inv-7:v2", "acme:inv-9:v1")

	p := b.get(t, "/console/suppliers/"+id, alice)
	require.Equal(t, http.StatusOK, p.status, p.body)
	anchors := html.UnescapeString(block(t, p.body, "anchors"))
	require.Contains(t, anchors, "total</strong>: right of 'Gesamtbetrag', on page 1, right side, written 1.234,56 €, "+
		`learned from job <a href="/console/jobs/acme:inv-7:v2">acme:inv-7:v2</a>, confirmed 1 time`)
	require.Contains(t, anchors, "invoice number</strong>: right of 'Rechnungsnummer:'")
	require.Contains(t, anchors, "written like A-9-9 (A letters, 9 digits)")
	require.Contains(t, anchors, "issue date</strong>: right of 'Datum:'")
	require.Contains(t, anchors, "written 31.12.2024 (day, month, year)")
	require.Contains(t, html.UnescapeString(block(t, p.body, "profile-vendor")), "Kühn Metallbau GmbH")

	learnedFrom := block(t, p.body, "learned")
	require.Less(t, strings.Index(learnedFrom, "acme:inv-9:v1"), strings.Index(learnedFrom, "acme:inv-7:v2"), "the newest first")
	require.Contains(t, learnedFrom, `<a href="/console/jobs/acme:inv-7:v2">`)
	require.Contains(t, learnedFrom, "<td>correction</td>\n  <td>alice</td>\n  <td>total</td>")
	require.Contains(t, learnedFrom, "<td>approval</td>\n  <td>bob</td>")

	history := block(t, p.body, "supplier-audit")
	require.Equal(t, 2, strings.Count(history, `data-action="profile_learned"`))
	require.Contains(t, block(t, p.body, "profile-flag"), "Not flagged")
	require.Contains(t, p.body, `action="/console/suppliers/`+id+`/delete"`)
}

func TestConsole_SupplierProfile_OfAnotherTenant_IsNotFound(t *testing.T) {
	t.Parallel()
	var s *supplier.Store
	b := setup(t, withSuppliers(t, &s))
	theirs := learned(t, s, "globex", kuehnKeys, "globex:inv-1:v2", "")
	_, sup, ok := supplier.ParsePublicID(theirs)
	require.True(t, ok)

	for _, path := range []string{
		"/console/suppliers/acme:" + sup, // globex's supplier under acme's name
		"/console/suppliers/acme:vat:0123456789abcdef01234567",
		"/console/suppliers/" + sup, // no tenant
		"/console/suppliers/acme:vat:..%2f..%2fx",
	} {
		p := b.get(t, path, alice)
		require.Equal(t, http.StatusNotFound, p.status, path)
		require.NotContains(t, p.body, "Kühn", path)
	}
	csrf := b.get(t, "/console/suppliers/"+theirs, alice).csrf(t)
	before := b.snapshot(t)
	res := b.post(t, "/console/suppliers/acme:"+sup+"/delete", url.Values{"csrf": {csrf}, "confirm": {"1"}}, alice)
	require.Equal(t, http.StatusNotFound, res.status)
	require.Equal(t, before, b.snapshot(t), "nothing of globex's was deleted")
}

func TestConsole_DeleteSupplier_ForgetsTheProfile_AuditedWithTheOperator(t *testing.T) {
	t.Parallel()
	var s *supplier.Store
	b := setup(t, withSuppliers(t, &s))
	id := learned(t, s, "acme", kuehnKeys, "acme:inv-7:v2", "")
	theirs := learned(t, s, "globex", kuehnKeys, "globex:inv-1:v2", "")
	tenant, sup, _ := supplier.ParsePublicID(id)

	p := b.get(t, "/console/suppliers/"+id, bob)
	res := b.post(t, "/console/suppliers/"+id+"/delete", url.Values{"csrf": {p.csrf(t)}, "confirm": {"1"}}, bob)
	require.Equal(t, http.StatusSeeOther, res.status, res.body)
	require.Equal(t, "/console/suppliers?"+url.Values{"deleted": {id}, "tenant": {"acme"}}.Encode(), res.header.Get("Location"))

	ctx := context.Background()
	_, err := s.Profile(ctx, tenant, sup)
	require.ErrorIs(t, err, supplier.ErrProfileNotFound)
	events, err := s.ProfileAudit(ctx, "acme", 10)
	require.NoError(t, err)
	require.Equal(t, supplier.ActionProfileDeleted, events[0].Action)
	require.Equal(t, "bob", events[0].Operator)
	require.Equal(t, sup, events[0].Supplier)
	_, gsup, _ := supplier.ParsePublicID(theirs)
	_, err = s.Profile(ctx, "globex", gsup)
	require.NoError(t, err, "another tenant's profile of the same supplier stays")

	list := b.get(t, res.header.Get("Location"), bob)
	require.Equal(t, http.StatusOK, list.status)
	require.Contains(t, list.body, `class="notice"`)
	require.Contains(t, list.body, "The profile "+id+" is forgotten")
	require.NotContains(t, block(t, list.body, "suppliers"), id)
	audit := block(t, list.body, "supplier-audit")
	require.Contains(t, audit, `data-action="profile_deleted"`)
	require.Contains(t, audit, "<td>bob</td>")

	gone := b.get(t, "/console/suppliers/"+id, bob)
	require.Equal(t, http.StatusNotFound, gone.status)
	require.Contains(t, gone.body, "no such supplier profile")
	again := b.post(t, "/console/suppliers/"+id+"/delete", url.Values{"csrf": {p.csrf(t)}, "confirm": {"1"}}, bob)
	require.Equal(t, http.StatusNotFound, again.status)
}

func TestConsole_DeleteSupplier_WithoutCSRF_OrConfirmation_IsRefusedAndChangesNothing(t *testing.T) {
	t.Parallel()
	var s *supplier.Store
	b := setup(t, withSuppliers(t, &s))
	id := learned(t, s, "acme", kuehnKeys, "acme:inv-7:v2", "")
	path := "/console/suppliers/" + id + "/delete"
	token := b.get(t, "/console/suppliers/"+id, alice).csrf(t)
	before := b.snapshot(t)

	for name, tc := range map[string]struct {
		form   url.Values
		a      auth
		status int
	}{
		"no token":          {url.Values{"confirm": {"1"}}, alice, http.StatusForbidden},
		"a wrong token":     {url.Values{"csrf": {"1.AAAA"}, "confirm": {"1"}}, alice, http.StatusForbidden},
		"another's token":   {url.Values{"csrf": {token}, "confirm": {"1"}}, bob, http.StatusForbidden},
		"no confirmation":   {url.Values{"csrf": {token}}, alice, http.StatusBadRequest},
		"a tenant's token":  {url.Values{"csrf": {token}, "confirm": {"1"}}, auth{token: tokAcme}, http.StatusForbidden},
		"no authentication": {url.Values{"csrf": {token}, "confirm": {"1"}}, auth{}, http.StatusUnauthorized},
	} {
		res := b.post(t, path, tc.form, tc.a)
		require.Equal(t, tc.status, res.status, name)
	}
	refused := b.post(t, path, url.Values{"csrf": {token}}, alice)
	require.Contains(t, refused.body, "<code>confirm</code>", "the page names the box")
	require.Contains(t, refused.body, `id="anchors"`, "and shows the profile again")

	get := b.get(t, path, alice)
	require.Equal(t, http.StatusMethodNotAllowed, get.status, "no link deletes")
	req := b.post(t, path, url.Values{"csrf": {token}, "confirm": {"1"}}, alice) // the control: this one deletes
	require.NotEqual(t, before, b.snapshot(t))
	require.Equal(t, http.StatusSeeOther, req.status)
}

func TestConsole_Suppliers_WithoutSupplierMemory_SaySo(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	for _, path := range []string{"/console/suppliers?tenant=acme", "/console/suppliers/acme:vat:0123456789abcdef01234567"} {
		p := b.get(t, path, alice)
		require.Equal(t, http.StatusNotFound, p.status, path)
		require.Contains(t, p.body, "the supplier memory is off", path)
	}
}

// A job whose fields a profile read links that profile, and the jobs its
// anchors were learned from; a reference to another tenant's profile is
// never linked.
func TestConsole_JobReadByAProfile_LinksTheProfile(t *testing.T) {
	t.Parallel()
	var s *supplier.Store
	b := setup(t, withSuppliers(t, &s))
	id := learned(t, s, "acme", kuehnKeys, "acme:inv-7:v2", "")
	_, sup, _ := supplier.ParsePublicID(id)
	read := func(ref, learned string) extract.Evidence {
		return extract.Evidence{Source: extract.EvidenceProfile, Page: 1, Line: 9, Label: "Gesamtbetrag", Profile: ref, Learned: learned}
	}
	x := extract.Extraction{DocumentType: extract.DocInvoice, InvoiceNumber: "MB-2024-140", Vendor: "Kühn Metallbau GmbH",
		IssueDate: "2024-05-02", Currency: "EUR", Subtotal: "100.00", Tax: "19.00", Total: "119.00", Source: extract.Source{Extractor: "rules"},
		Evidence: map[string]extract.Evidence{
			"total":         read(supplier.Ref(sup, 1), "acme:inv-7:v2"),
			"invoiceNumber": read(supplier.Ref(sup, 1), "acme:inv-7:v2"),
			"tax":           read(supplier.Ref("globex:"+sup, 1), "globex:inv-1:v2"),
			"vendor":        {Source: "text"},
		}}
	k := b.reviewOf(t, "acme:inv-12:v1", judged(t, x))
	for _, path := range []string{"/console/jobs/", "/console/reviews/"} {
		p := b.get(t, path+k.String(), alice)
		require.Equal(t, http.StatusOK, p.status, path)
		links := block(t, p.body, "profiles-read")
		require.Contains(t, links, `href="/console/suppliers/`+id+`"`, path)
		require.Contains(t, links, "(version 1): invoice number, total", path)
		require.Contains(t, links, `<a href="/console/jobs/acme:inv-7:v2">`, path)
		require.NotContains(t, links, "globex", path)
		require.NotContains(t, links, ", tax", path)
	}
}

// A profile's second layout (its credit notes' label) and a flag are
// explained on its page.
func TestConsole_SupplierProfile_AlternateAnchorAndFlag_InWords(t *testing.T) {
	t.Parallel()
	var s *supplier.Store
	b := setup(t, withSuppliers(t, &s))
	ctx := context.Background()
	id, err := s.Resolve(ctx, "acme", []string{"iban:DE02120300000000202051"})
	require.NoError(t, err)
	text := supplier.Format{Kind: supplier.FormatText, Shape: "9"}
	p := &supplier.Profile{Version: 1, Anchors: map[string]supplier.Anchor{
		"invoiceNumber": {Relation: supplier.RelationRight, Label: "Rechnungsnummer", Format: text, Job: "acme:inv-3:v2", Confirmed: 2,
			Alternate: &supplier.Anchor{Relation: supplier.RelationBelow, Label: "Gutschriftsnummer", Below: 1, Format: text, Job: "acme:cn-1:v2"}},
	}, Learned: []supplier.LearnedFrom{{Job: "acme:inv-3:v2", Kind: supplier.LearnedCorrection, Operator: "alice", Anchored: []string{"invoiceNumber"}}}}
	save(t, s, "acme", id, 0, p, "acme:inv-3:v2", "alice", supplier.LearnedCorrection)
	countReads(t, s, "acme", id, 5, 2)

	page := b.get(t, "/console/suppliers/"+supplier.PublicID("acme", id), alice)
	require.Equal(t, http.StatusOK, page.status)
	number := html.UnescapeString(block(t, page.body, "anchors"))
	require.Contains(t, number, "right of 'Rechnungsnummer', written like 9 (9 digits), learned from job "+
		`<a href="/console/jobs/acme:inv-3:v2">acme:inv-3:v2</a>, confirmed 2 times`)
	require.Contains(t, number, "Where that label is not printed (another layout of the supplier's): below 'Gutschriftsnummer' in its column, "+
		`written like 9 (9 digits), learned from job <a href="/console/jobs/acme:cn-1:v2">acme:cn-1:v2</a>`)
	require.Contains(t, block(t, page.body, "profile-flag"), "Flagged.")
	require.Contains(t, block(t, page.body, "profile-reads"), "5 documents read with it; 2 of them then rejected")
}

// countReads counts reads documents read with a stored profile, misses of
// them missed, as the worker counts them.
func countReads(t *testing.T, s *supplier.Store, tenant, id string, reads, misses int) {
	t.Helper()
	for i := range reads {
		require.NoError(t, s.CountRead(context.Background(), tenant, id, true, i < misses))
	}
}
