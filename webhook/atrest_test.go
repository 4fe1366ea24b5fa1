package webhook

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/keyring"
)

func ring(t *testing.T, ids ...string) *keyring.Ring {
	t.Helper()
	keys := make([]keyring.Key, len(ids))
	for i, id := range ids {
		keys[i] = keyring.Key{ID: id, Secret: bytes.Repeat([]byte(id[:1]), keyring.KeySize)}
	}
	r, err := keyring.New(keys)
	require.NoError(t, err)
	return r
}

// registryOn is a second registry on b's Redis with other data keys, as a
// process restarted with another RELAYOPS_DATA_KEYS.
func registryOn(t *testing.T, b *bundle, keys *keyring.Ring) *Registry {
	t.Helper()
	r, err := NewRegistry(RegistryConfig{Redis: b.rdb, Clock: b.clock, Policy: TargetPolicy{AllowInsecure: true, AllowPrivate: true},
		RotationGrace: time.Minute, Keys: keys})
	require.NoError(t, err)
	return r
}

func TestSecrets_WithAKey_AreSealedInRedis_AndSignAsBefore(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{keys: ring(t, "k1")})
	ep, secret := b.register(t, "http://127.0.0.1:1/hook")
	raw, err := b.rdb.HGet(b.ctx, secretsKey("acme"), ep.ID).Result()
	require.NoError(t, err)
	require.NotContains(t, raw, secret)
	require.NotContains(t, raw, "whsec_")
	rot, err := b.reg.Rotate(b.ctx, ep.ID)
	require.NoError(t, err)
	raw, err = b.rdb.HGet(b.ctx, secretsKey("acme"), ep.ID).Result()
	require.NoError(t, err)
	require.NotContains(t, raw, secret)
	require.NotContains(t, raw, rot.Secret)
	got, err := b.reg.Get(b.ctx, ep.ID)
	require.NoError(t, err)
	require.Equal(t, []string{rot.Secret, secret}, got.secrets.signing(b.clock.Now()), "both sign during the grace period")
}

func TestSecrets_CopiedToAnotherEndpoint_DoNotOpen(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{keys: ring(t, "k1")})
	ep, _ := b.register(t, "http://127.0.0.1:1/hook")
	other, _ := b.register(t, "http://127.0.0.1:2/hook")
	raw, err := b.rdb.HGet(b.ctx, secretsKey("acme"), ep.ID).Result()
	require.NoError(t, err)
	require.NoError(t, b.rdb.HSet(b.ctx, secretsKey("acme"), other.ID, raw).Err())
	_, err = b.reg.Get(b.ctx, other.ID)
	require.ErrorIs(t, err, keyring.ErrUnopenable)
}

func TestSecrets_StoredInClear_StayUsableOnceAKeyIsSet_AndRotateSealed(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	ep, secret := b.register(t, "http://127.0.0.1:1/hook")
	raw, err := b.rdb.HGet(b.ctx, secretsKey("acme"), ep.ID).Result()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(raw, secret+"|"), "without a key: as earlier releases stored it")

	keyed := registryOn(t, b, ring(t, "k1"))
	got, err := keyed.Get(b.ctx, ep.ID)
	require.NoError(t, err)
	require.Equal(t, secret, got.secrets.current)
	rot, err := keyed.Rotate(b.ctx, ep.ID)
	require.NoError(t, err)
	got, err = keyed.Get(b.ctx, ep.ID)
	require.NoError(t, err)
	require.Equal(t, []string{rot.Secret, secret}, got.secrets.signing(b.clock.Now()))
}

func TestSecrets_AfterDataKeyRotation_OldSealedSecretsOpen(t *testing.T) {
	t.Parallel()
	b := setup(t, &setupOpts{keys: ring(t, "k1")})
	ep, secret := b.register(t, "http://127.0.0.1:1/hook")
	got, err := registryOn(t, b, ring(t, "k2", "k1")).Get(b.ctx, ep.ID)
	require.NoError(t, err)
	require.Equal(t, secret, got.secrets.current)
	_, err = registryOn(t, b, ring(t, "k2")).Get(b.ctx, ep.ID)
	require.ErrorIs(t, err, keyring.ErrUnopenable, "k1 retired while a secret it sealed lives")
}

func TestReseal_MovesEverySecretToTheFirstKey_SoTheOldKeyCanGo(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	clear, clearSecret := b.register(t, "http://127.0.0.1:1/hook")
	old := registryOn(t, b, ring(t, "k1"))
	sealed, sealedSecret, err := old.Create(b.ctx, Registration{Tenant: "globex", URL: "http://127.0.0.1:2/hook", Events: EventTypes})
	require.NoError(t, err)
	rot, err := old.Rotate(b.ctx, sealed.ID)
	require.NoError(t, err)

	rotated := registryOn(t, b, ring(t, "k2", "k1"))
	res, err := rotated.Reseal(b.ctx)
	require.NoError(t, err)
	require.Equal(t, ResealResult{Resealed: 2}, res)
	res, err = rotated.Reseal(b.ctx)
	require.NoError(t, err)
	require.Equal(t, ResealResult{Current: 2}, res, "a second run has nothing to do")

	retired := registryOn(t, b, ring(t, "k2"))
	got, err := retired.Get(b.ctx, clear.ID)
	require.NoError(t, err)
	require.Equal(t, clearSecret, got.secrets.current)
	got, err = retired.Get(b.ctx, sealed.ID)
	require.NoError(t, err)
	require.Equal(t, []string{rot.Secret, sealedSecret}, got.secrets.signing(b.clock.Now()), "the previous secret and its grace survive")
	raw, err := b.rdb.HGet(b.ctx, secretsKey("acme"), clear.ID).Result()
	require.NoError(t, err)
	require.NotContains(t, raw, clearSecret)
}

func TestReseal_WithoutAKey_Fails(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	_, err := b.reg.Reseal(b.ctx)
	require.Error(t, err)
}
