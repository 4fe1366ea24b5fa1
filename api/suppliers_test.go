package api

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/supplier"
)

func withSuppliers(t testing.TB) (*setupOpts, **supplier.Store) {
	var s *supplier.Store
	return &setupOpts{modify: func(c *Config) {
		var err error
		s, err = supplier.NewStore(supplier.Config{Redis: c.Store.Redis(), Clock: c.Clock})
		require.NoError(t, err)
		c.Suppliers = s
	}}, &s
}

// A tenant reads its own supplier profiles, another tenant's are 404; an
// operator lists a named tenant's and deletes one, audited in its history.
func TestSuppliers_ListShowDelete_TenantScopedAndAudited(t *testing.T) {
	t.Parallel()
	opts, sp := withSuppliers(t)
	b := setup(t, opts)
	s, ctx := *sp, context.Background()
	sup, err := s.Resolve(ctx, "acme", []string{"vat:DE136695976", "name:lieferant"})
	require.NoError(t, err)
	ev := supplier.ProfileEvent{Supplier: sup, Job: "acme:inv-1:v2", Kind: "correction", Operator: "alice", Fields: []string{"total"}}
	require.NoError(t, s.SaveProfile(ctx, "acme", 0, 1, []byte(`{"version":1,"vendor":"Lieferant GmbH","anchors":{"total":{},"invoiceNumber":{}}}`), ev))
	id := "acme:" + sup

	list := b.do(t, call{method: "GET", path: "/v1/suppliers", token: tokAcme}).json(t)
	items := list["items"].([]any)
	require.Len(t, items, 1)
	item := items[0].(map[string]any)
	require.Equal(t, id, item["supplierId"])
	require.Equal(t, "Lieferant GmbH", item["vendor"])
	require.Equal(t, []any{"invoiceNumber", "total"}, item["fields"])
	require.Nil(t, item["profile"], "the list shows a summary")

	require.Empty(t, b.do(t, call{method: "GET", path: "/v1/suppliers", token: tokGlobex}).json(t)["items"])
	b.do(t, call{method: "GET", path: "/v1/suppliers/" + id, token: tokGlobex}).requireError(t, 404, CodeNotFound)
	b.do(t, call{method: "GET", path: "/v1/suppliers", token: tokAlice}).requireError(t, 400, CodeInvalidRequest)
	b.do(t, call{method: "GET", path: "/v1/suppliers/acme:vat:nothex", token: tokAlice}).requireError(t, 404, CodeNotFound)

	one := b.do(t, call{method: "GET", path: "/v1/suppliers/" + id, token: tokAcme}).json(t)
	require.NotNil(t, one["profile"])
	hist := one["history"].([]any)
	require.Len(t, hist, 1)
	require.Nil(t, hist[0].(map[string]any)["operator"], "a tenant learns that an operator acted, not which one")
	require.Equal(t, "acme:inv-1:v2", hist[0].(map[string]any)["jobId"])

	b.do(t, call{method: "DELETE", path: "/v1/suppliers/" + id, token: tokAcme}).requireError(t, 403, CodeForbidden)
	require.Equal(t, 204, b.do(t, call{method: "DELETE", path: "/v1/suppliers/" + id, token: tokAlice}).Status)
	b.do(t, call{method: "GET", path: "/v1/suppliers/" + id, token: tokAlice}).requireError(t, 404, CodeNotFound)
	b.do(t, call{method: "DELETE", path: "/v1/suppliers/" + id, token: tokAlice}).requireError(t, 404, CodeNotFound)
	audit, err := s.ProfileAudit(ctx, "acme", 10)
	require.NoError(t, err)
	require.Equal(t, supplier.ActionProfileDeleted, audit[0].Action)
	require.Equal(t, "alice", audit[0].Operator)
}
