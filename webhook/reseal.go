package webhook

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	_ "embed"

	"github.com/redis/go-redis/v9"

	"github.com/relayops/relayops/internal/keyring"
)

//go:embed lua/reseal.lua
var resealLua string

var resealScript = redis.NewScript(resealLua)

// ResealResult counts what Reseal did.
type ResealResult struct {
	Resealed int // endpoints whose secrets are now sealed under the first data key
	Current  int // endpoints whose secrets already were
}

// Reseal seals every endpoint's signing secrets under the first key of the
// registry's data keys: those in clear (stored without a key) and those
// sealed under an older key. Signing secrets live as long as their
// endpoint, unlike documents, which expire: run it after a data key
// rotation, before the old key leaves the ring. It is safe to run while
// the API serves and to run again; an endpoint rotated meanwhile is read
// again.
func (r *Registry) Reseal(ctx context.Context) (ResealResult, error) {
	var res ResealResult
	if !r.cfg.Keys.Enabled() {
		return res, errors.New("webhook: reseal: no data key is configured")
	}
	tenants, err := r.rdb.SMembers(ctx, tenantsKey).Result()
	if err != nil {
		return res, fmt.Errorf("webhook: reseal: %w", err)
	}
	slices.Sort(tenants)
	for _, t := range tenants {
		if err := r.resealTenant(ctx, t, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func (r *Registry) resealTenant(ctx context.Context, tenant string, res *ResealResult) error {
	all, err := r.rdb.HGetAll(ctx, secretsKey(tenant)).Result()
	if err != nil {
		return fmt.Errorf("webhook: reseal %s: %w", tenant, err)
	}
	for id, stored := range all {
		for {
			if !r.stale(stored) {
				res.Current++
				break
			}
			s, err := r.decodeSecrets(tenant, id, stored)
			if err != nil {
				return fmt.Errorf("webhook: reseal: %w", err)
			}
			fresh, err := r.encodeSecrets(tenant, id, s)
			if err != nil {
				return err
			}
			n, err := resealScript.Run(ctx, r.rdb, []string{secretsKey(tenant)}, id, stored, fresh).Int()
			if err != nil {
				return fmt.Errorf("webhook: reseal %s: %w", id, err)
			}
			if n == 1 {
				res.Resealed++
				break
			}
			stored, err = r.rdb.HGet(ctx, secretsKey(tenant), id).Result()
			if errors.Is(err, redis.Nil) {
				break // deleted meanwhile
			}
			if err != nil {
				return fmt.Errorf("webhook: reseal %s: %w", id, err)
			}
		}
	}
	return nil
}

// stale reports whether a stored secrets value holds a secret in clear or
// one sealed under a key other than the first.
func (r *Registry) stale(stored string) bool {
	cur, rest, _ := strings.Cut(stored, "|")
	prev, _, _ := strings.Cut(rest, "|")
	for _, p := range []string{cur, prev} {
		if p == "" {
			continue
		}
		b64, ok := strings.CutPrefix(p, sealedSecret)
		if !ok {
			return true
		}
		b, err := base64.RawStdEncoding.DecodeString(b64)
		if id, ok := keyring.KeyID(b, 0); err != nil || !ok || id != r.cfg.Keys.Primary() {
			return true
		}
	}
	return false
}
