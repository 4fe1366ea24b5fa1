package webhook

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	var ve *jobs.ValidationError
	require.True(t, errors.As(err, &ve), "want a *jobs.ValidationError, got %v", err)
	out := make([]string, len(ve.Fields))
	for i, f := range ve.Fields {
		out[i] = f.Field
	}
	return out
}

func TestCreate_BadRegistrations_NameTheFieldAndWriteNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	strict, err := NewRegistry(RegistryConfig{Redis: b.rdb}) // https, public only
	require.NoError(t, err)
	for _, tt := range []struct {
		name   string
		reg    Registration
		fields []string
	}{
		{"plain http", Registration{"acme", "http://example.com/hook", []string{EventJobSucceeded}}, []string{"url"}},
		{"literal loopback", Registration{"acme", "https://127.0.0.1/hook", []string{EventJobSucceeded}}, []string{"url"}},
		{"name resolving to loopback", Registration{"acme", "https://localhost:8443/hook", []string{EventJobSucceeded}}, []string{"url"}},
		{"private", Registration{"acme", "https://10.1.2.3/hook", []string{EventJobSucceeded}}, []string{"url"}},
		{"metadata", Registration{"acme", "https://169.254.169.254/latest", []string{EventJobSucceeded}}, []string{"url"}},
		{"ipv6 loopback", Registration{"acme", "https://[::1]/hook", []string{EventJobSucceeded}}, []string{"url"}},
		{"aws ipv6 metadata", Registration{"acme", "https://[fd00:ec2::254]/", []string{EventJobSucceeded}}, []string{"url"}},
		{"credentials", Registration{"acme", "https://u:p@93.184.216.34/", []string{EventJobSucceeded}}, []string{"url"}},
		{"not a url", Registration{"acme", "hook", []string{EventJobSucceeded}}, []string{"url"}},
		{"other scheme", Registration{"acme", "ftp://93.184.216.34/", []string{EventJobSucceeded}}, []string{"url"}},
		{"unknown event", Registration{"acme", "https://93.184.216.34/", []string{EventJobSucceeded, "job.exploded"}}, []string{"events[1]"}},
		{"no events", Registration{"acme", "https://93.184.216.34/", nil}, []string{"events"}},
		{"bad tenant", Registration{"Acme!", "https://93.184.216.34/", []string{EventJobSucceeded}}, []string{"tenant"}},
		{"everything", Registration{"", "http://127.0.0.1/", []string{"x"}}, []string{"tenant", "url", "events[0]"}},
	} {
		_, _, err := strict.Create(b.ctx, tt.reg)
		require.Equal(t, tt.fields, fieldsOf(t, err), tt.name)
	}
	keys := b.mini.Keys()
	require.Empty(t, keys, "nothing written")

	ep, secret, err := strict.Create(b.ctx, Registration{"acme", "https://93.184.216.34/hook", []string{EventJobSucceeded}})
	require.NoError(t, err, "a public literal address needs no DNS")
	require.Regexp(t, `^whsec_[A-Za-z0-9+/]{43}=$`, secret)
	require.Regexp(t, `^wh_acme_[0-9a-f]{20}$`, ep.ID)
}

func TestCheckURL_Overrides(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	require.ErrorIs(t, TargetPolicy{}.CheckURL(ctx, "http://93.184.216.34/", nil), ErrInsecureURL)
	require.NoError(t, TargetPolicy{AllowInsecure: true}.CheckURL(ctx, "http://93.184.216.34/", nil))
	require.ErrorIs(t, TargetPolicy{AllowInsecure: true}.CheckURL(ctx, "http://127.0.0.1/", nil), ErrForbiddenAddress)
	require.NoError(t, TargetPolicy{AllowInsecure: true, AllowPrivate: true}.CheckURL(ctx, "http://127.0.0.1/", nil))
}

func TestPublicAddr(t *testing.T) {
	t.Parallel()
	for a, want := range map[string]bool{
		"93.184.216.34": true, "2606:2800:220:1:248:1893:25c8:1946": true,
		"127.0.0.1": false, "10.0.0.1": false, "172.16.0.1": false, "192.168.1.1": false, "169.254.169.254": false,
		"100.100.100.200": false, "0.0.0.0": false, "::1": false, "fe80::1": false, "fd00:ec2::254": false,
		"::ffff:127.0.0.1": false, "224.0.0.1": false, "255.255.255.255": false, "100.64.0.1": false,
	} {
		require.Equal(t, want, PublicAddr(netip.MustParseAddr(a)), a)
	}
}

func TestRegistry_GetListDelete(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	a1, _ := b.register(t, "https://93.184.216.34/a", EventJobSucceeded)
	b.clock.Advance(time.Millisecond)
	a2, _ := b.register(t, "https://93.184.216.34/b", EventReviewDecided, EventJobSucceeded)
	g, _, err := b.reg.Create(b.ctx, Registration{Tenant: "globex", URL: "https://93.184.216.34/g", Events: []string{EventJobCancelled}})
	require.NoError(t, err)

	got, err := b.reg.Get(b.ctx, a2.ID)
	require.NoError(t, err)
	require.Equal(t, []string{EventJobSucceeded, EventReviewDecided}, got.Events)
	require.Nil(t, got.Disabled)

	list, err := b.reg.List(b.ctx, "acme")
	require.NoError(t, err)
	require.Equal(t, []string{a1.ID, a2.ID}, []string{list[0].ID, list[1].ID})
	all, err := b.reg.ListAll(b.ctx)
	require.NoError(t, err)
	require.Len(t, all, 3)
	require.Equal(t, g.ID, all[2].ID)

	require.NoError(t, b.reg.Delete(b.ctx, a1.ID))
	require.ErrorIs(t, b.reg.Delete(b.ctx, a1.ID), ErrNotFound)
	_, err = b.reg.Get(b.ctx, a1.ID)
	require.ErrorIs(t, err, ErrNotFound)
	_, err = b.reg.Get(b.ctx, "wh_acme_nothex")
	require.ErrorIs(t, err, ErrNotFound)
	_, err = b.reg.Rotate(b.ctx, a1.ID)
	require.ErrorIs(t, err, ErrNotFound)
}

func TestRegistry_KeysOfATenantShareOneHashTag(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ep, _ := b.register(t, "https://93.184.216.34/a")
	for _, k := range []string{endpointsKey("acme"), secretsKey("acme"), disabledKey("acme"), failuresKey("acme"), attemptsKey("acme", ep.ID)} {
		require.Contains(t, k, "{wh:acme}")
	}
}
