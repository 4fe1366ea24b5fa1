package supplier

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/internal/clock"
	"github.com/relayops/relayops/internal/redistest"
	"github.com/relayops/relayops/jobs"
)

type bundle struct {
	store *Store
	clock *clock.Stub
	ctx   context.Context
}

func setup(t *testing.T, b *redistest.Backend) *bundle {
	t.Helper()
	clk := clock.NewStub(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC))
	s, err := NewStore(Config{Redis: b.Client, Clock: clk, Window: 400 * 24 * time.Hour})
	require.NoError(t, err)
	return &bundle{store: s, clock: clk, ctx: context.Background()}
}

func key(t *testing.T, s string) jobs.Key {
	t.Helper()
	k, err := jobs.ParseKey(s)
	require.NoError(t, err)
	return k
}

func invoice(number, total, date string, seller ...extract.PartyID) *extract.Invoice {
	return &extract.Invoice{DocumentType: extract.DocInvoice, Direction: extract.DirectionDebit, InvoiceNumber: number,
		Vendor: "Lieferant GmbH", IssueDate: date, Currency: "EUR", Total: total, SignedTotal: total, Seller: seller}
}

var vat = extract.PartyID{Scheme: extract.IDVAT, ID: "DE136695976"}

func (b *bundle) claim(t *testing.T, job string, inv *extract.Invoice) *jobs.Match {
	t.Helper()
	k := key(t, job)
	m, err := b.store.Claim(b.ctx, k, FingerprintOf(k.Tenant, inv))
	require.NoError(t, err)
	return m
}

func TestClaim_FirstOwnsTheNumber_AnotherDocumentIsAPossibleDuplicate(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, be *redistest.Backend) {
		b := setup(t, be)
		require.Nil(t, b.claim(t, "acme:mail-4411:v1", invoice("RE-1001", "119.00", "2026-11-02", vat)))
		require.Nil(t, b.claim(t, "acme:mail-4411:v1", invoice("RE-1001", "119.00", "2026-11-02", vat)), "a re-run answers alike")
		require.Nil(t, b.claim(t, "acme:mail-4411:v2", invoice("RE-1001", "119.00", "2026-11-02", vat)), "a new version of the document supersedes")

		m := b.claim(t, "acme:scan-0093:v1", invoice("RE 1001", "119.00", "2026-11-02", vat))
		require.Equal(t, &jobs.Match{Strength: jobs.DuplicateStrong, Of: key(t, "acme:mail-4411:v2"), Matched: []string{"number", "total", "date"}}, m)
		again := b.claim(t, "acme:scan-0093:v1", invoice("RE 1001", "119.00", "2026-11-02", vat))
		require.Equal(t, m, again, "a redelivered event claims alike")

		weak := b.claim(t, "acme:scan-0094:v1", invoice("RE-1001", "120.00", "2026-11-02", vat))
		require.Equal(t, jobs.DuplicateWeak, weak.Strength, "the same number with another total")
		require.Equal(t, []string{"number"}, weak.Matched)

		weak = b.claim(t, "acme:scan-0095:v1", invoice("RE-1077", "119.00", "2026-11-02", vat))
		require.Equal(t, &jobs.Match{Strength: jobs.DuplicateWeak, Of: key(t, "acme:mail-4411:v2"), Matched: []string{"total", "date"}}, weak)

		require.Nil(t, b.claim(t, "globex:mail-4411:v1", invoice("RE-1001", "119.00", "2026-11-02", vat)), "never across tenants")
		other := extract.PartyID{Scheme: extract.IDVAT, ID: "ATU13585627"}
		require.Nil(t, b.claim(t, "acme:mail-9:v1", invoice("RE-1001", "119.00", "2026-11-02", other)), "another supplier's number")
	})
}

// An e-invoice's XML states the VAT id; its PDF, read by the rules, only
// the name (and an IBAN): one supplier through the aliases.
func TestClaim_XMLAndItsPDF_AreOneSupplier(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, be *redistest.Backend) {
		b := setup(t, be)
		iban := extract.PartyID{Scheme: extract.IDIBAN, ID: "DE89370400440532013000"}
		require.Nil(t, b.claim(t, "acme:xml-1:v1", invoice("471102", "529.87", "2018-03-05", vat, iban)))
		m := b.claim(t, "acme:pdf-1:v1", invoice("471102", "529.87", "2018-03-05"))
		require.NotNil(t, m, "the name alone finds the supplier")
		require.Equal(t, jobs.DuplicateStrong, m.Strength)

		// A namesake with a VAT id of its own is another supplier.
		namesake := extract.PartyID{Scheme: extract.IDVAT, ID: "ATU13585627"}
		require.Nil(t, b.claim(t, "acme:pdf-2:v1", invoice("471102", "529.87", "2018-03-05", namesake)))
	})
}

func TestClaim_ACreditNoteFindsTheInvoiceItCredits(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, be *redistest.Backend) {
		b := setup(t, be)
		require.Nil(t, b.claim(t, "acme:inv-7:v1", invoice("R-2023-0007", "100.00", "2023-01-10", vat)))
		cn := invoice("GS-1", "8.79", "2023-02-01", vat)
		cn.DocumentType, cn.Direction, cn.SignedTotal, cn.PrecedingInvoice = extract.DocCreditNote, extract.DirectionCredit, "-8.79", "R 2023 0007"
		m := b.claim(t, "acme:cn-1:v1", cn)
		require.NotNil(t, m)
		require.Empty(t, m.Strength)
		require.Equal(t, key(t, "acme:inv-7:v1"), *m.Credits)
	})
}

// A fingerprint older than the window no longer makes a duplicate.
func TestClaim_FingerprintsExpireWithTheWindow(t *testing.T) {
	t.Parallel()
	redistest.Backends(t, func(t *testing.T, be *redistest.Backend) {
		b := setup(t, be)
		require.Nil(t, b.claim(t, "acme:a:v1", invoice("RE-1", "10.00", "2026-01-01", vat)))
		b.clock.Advance(401 * 24 * time.Hour)
		require.Nil(t, b.claim(t, "acme:b:v1", invoice("RE-1", "10.00", "2026-01-01", vat)), "past the window the second owns it")
		require.Equal(t, jobs.DuplicateStrong, b.claim(t, "acme:c:v1", invoice("RE-1", "10.00", "2026-01-01", vat)).Strength)
	})
}

func TestFingerprint_EncodeDecodeAndRefuseMalformed(t *testing.T) {
	t.Parallel()
	fp := FingerprintOf("acme", invoice("RE-1", "10.00", "2026-01-01", vat))
	got, err := DecodeFingerprint(fp.Encode())
	require.NoError(t, err)
	require.Equal(t, fp, got)
	require.NotContains(t, fp.Encode(), "DE136695976", "hashes only")
	require.NotContains(t, fp.Encode(), "RE-1")
	for _, bad := range []string{"", "x|y", "|n|a|t|", "bogus:1|n|a|t|"} {
		_, err := DecodeFingerprint(bad)
		require.ErrorIs(t, err, ErrBadFingerprint, bad)
	}
	require.NotEqual(t, fp, FingerprintOf("globex", invoice("RE-1", "10.00", "2026-01-01", vat)), "salted with the tenant")
}
