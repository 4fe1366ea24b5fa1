package supplier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/relayops/relayops/extract"
)

// Memory is the supplier memory the worker uses: it reads a document with
// the stored profile of its supplier, learns a supplier's profile from the
// values a person confirmed, and counts what the profile's reads became.
// It holds no state of its own: the profiles are the Store's, so any
// number of workers share them.
type Memory struct {
	store *Store
}

// NewMemory returns the memory over store's profiles.
func NewMemory(store *Store) *Memory { return &Memory{store: store} }

// maxLearnAttempts bounds the retries of a learning that another one
// raced (ErrProfileConflict): each retry learns from the newer version.
const maxLearnAttempts = 5

// Read puts what the profile of x's supplier reads on pages over x (the
// rules' extraction). The supplier is looked up by the identifiers the
// page states and the vendor name (IdentityKeys), without registering
// anything: x is returned unchanged when no supplier or no profile is
// known, or the profile reads nothing. Each field read carries the
// profile's evidence ("<supplier>@v<version>", the job that taught it);
// the validator judges the result as it judges the rules' own.
func (m *Memory) Read(ctx context.Context, tenant string, pages []string, x extract.Extraction) (extract.Extraction, error) {
	keys := IdentityKeys(&extract.Invoice{Seller: x.Seller, Vendor: x.Vendor})
	if len(keys) == 0 {
		return x, nil
	}
	sup, err := m.store.Lookup(ctx, tenant, keys)
	if err != nil || sup == "" {
		return x, err
	}
	sp, err := m.store.Profile(ctx, tenant, sup)
	if errors.Is(err, ErrProfileNotFound) {
		return x, nil
	}
	if err != nil {
		return x, err
	}
	var p Profile
	if err := json.Unmarshal(sp.Data, &p); err != nil {
		return x, fmt.Errorf("supplier: profile of %s: %w", sup, err)
	}
	read := p.Read(pagesOf(pages), Ref(sup, sp.Version))
	if len(read.Evidence) == 0 {
		return x, nil
	}
	return Overlay(x, read), nil
}

// Learn refines (or starts) the profile of inv's supplier from pages and
// inv's values, which a person confirmed: kind LearnedCorrection or
// LearnedApproval, by operator, in job. The supplier is resolved as a
// claim resolves it (its aliases registered), so the profile is bound to
// the identifiers the page states: an issuer that prints only a logo is
// known by its VAT id or IBAN, with the name the person gave. A job the
// profile already learned from (a redelivered task) teaches nothing again;
// a learning that races another is made again from the newer version.
// ErrQuota when the tenant's supplier data is at its budget.
func (m *Memory) Learn(ctx context.Context, tenant string, pages []string, inv *extract.Invoice, job, kind, operator string) error {
	keys := IdentityKeys(inv)
	if len(keys) == 0 {
		return nil // nobody to learn for
	}
	sup, err := m.store.Resolve(ctx, tenant, keys)
	if err != nil {
		return err
	}
	corrected := correctedFields(inv)
	for range maxLearnAttempts {
		var p *Profile
		from := 0
		sp, err := m.store.Profile(ctx, tenant, sup)
		switch {
		case err == nil:
			p = new(Profile)
			if err := json.Unmarshal(sp.Data, p); err != nil {
				return fmt.Errorf("supplier: profile of %s: %w", sup, err)
			}
			from = sp.Version
			if slices.ContainsFunc(p.Learned, func(l LearnedFrom) bool { return l.Job == job }) {
				return nil
			}
			p.Version = from
		case !errors.Is(err, ErrProfileNotFound):
			return err
		}
		q := Learn(p, pagesOf(pages), ValuesOf(inv), LearnedFrom{Job: job, Operator: operator,
			At: m.store.clock.Now().UTC(), Fields: corrected, Kind: kind})
		data, err := json.Marshal(q)
		if err != nil {
			return fmt.Errorf("supplier: profile of %s: %w", sup, err)
		}
		ev := ProfileEvent{Supplier: sup, Job: job, Kind: kind, Operator: operator, Fields: q.Learned[len(q.Learned)-1].Anchored}
		err = m.store.SaveProfile(ctx, tenant, from, from+1, data, ev)
		if !errors.Is(err, ErrProfileConflict) {
			return err
		}
	}
	return ErrProfileConflict
}

// Count counts one document read with a profile: ref is the profile's
// evidence ("<supplier>@v<version>") on any field it read; missed when the
// document was then rejected, or a person corrected a field the profile
// read. A ref that names no supplier counts nothing.
func (m *Memory) Count(ctx context.Context, tenant, ref string, read, missed bool) error {
	sup, _, ok := strings.Cut(ref, "@v")
	if !ok || sup == "" {
		return nil
	}
	return m.store.CountRead(ctx, tenant, sup, read, missed)
}

// correctedFields are the fields of inv a person set (evidence
// "correction"), sorted: a learning drops the anchor of a field a person
// removed.
func correctedFields(inv *extract.Invoice) []string {
	var out []string
	for f, e := range inv.Evidence {
		if e.Source == extract.EvidenceCorrection {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// pagesOf are the pages as the profile reads them.
func pagesOf(pages []string) []Page {
	out := make([]Page, len(pages))
	copy(out, pages)
	return out
}
