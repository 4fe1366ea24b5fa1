package worker

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
	"github.com/relayops/relayops/jobs"
)

// fakeMemory puts fixed fields over the rules' extraction, as a profile's
// read would, and records what is counted.
type fakeMemory struct {
	mu     sync.Mutex
	over   map[string]string // field → value the profile reads
	err    error
	counts []string // "ref read missed"
}

func (m *fakeMemory) Read(_ context.Context, _ string, _ []string, x extract.Extraction) (extract.Extraction, error) {
	if m.err != nil {
		return x, m.err
	}
	if x.Evidence == nil {
		x.Evidence = map[string]extract.Evidence{}
	}
	for f, v := range m.over {
		switch f {
		case "invoiceNumber":
			x.InvoiceNumber = v
		case "total":
			x.Total = v
		}
		x.Evidence[f] = extract.Evidence{Source: extract.EvidenceProfile, Profile: "name:abc@v3", Learned: "acme:first:v2"}
	}
	return x, nil
}

func (m *fakeMemory) Learn(context.Context, string, []string, *extract.Invoice, string, string, string) error {
	return nil
}

func (m *fakeMemory) Count(_ context.Context, _ string, ref string, read, missed bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts = append(m.counts, ref+map[bool]string{true: " read", false: ""}[read]+map[bool]string{true: " missed", false: ""}[missed])
	return nil
}

// numberless is an invoice whose number the rules do not read (it stands
// right of "Vorgang:").
const numberless = "Nordwind Atelier GmbH\nHafenweg 4, 20457 Hamburg\n\nRECHNUNG\n\n" +
	"Vorgang: NW-25-0057                              Datum: 04.03.2025\n\n" +
	"Leistung                                         Betrag\nGestaltung Katalog                               2.000,00\n\n" +
	"                           Netto                 2.000,00\n" +
	"                           USt 19 %              380,00\n" +
	"                           Endsumme              2.380,00 EUR\n"

func TestHandler_ProfileRead_CommitsWithItsEvidence_CountsARead(t *testing.T) {
	t.Parallel()
	mem := &fakeMemory{over: map[string]string{"invoiceNumber": "NW-25-0057"}}
	b := setup(t, &setupOpts{extractor: rules.Rules{}, memory: mem})
	k := mustKey(t, "acme", "nw-2", 1)
	b.submit(t, k, numberless, 0)
	require.NoError(t, b.deliver(k))
	j := b.job(t, k)
	require.Equal(t, jobs.StateSucceeded, j.State)
	res, err := b.store.Result(b.ctx, k)
	require.NoError(t, err)
	require.Contains(t, string(res), `"invoiceNumber":"NW-25-0057"`)
	require.Contains(t, string(res), `"profile":"name:abc@v3"`)
	require.Equal(t, []string{"name:abc@v3 read"}, mem.counts)
}

func TestHandler_ProfileReadRejected_CountsAMiss(t *testing.T) {
	t.Parallel()
	mem := &fakeMemory{over: map[string]string{"invoiceNumber": "NW-25-0057", "total": "2390.00"}}
	b := setup(t, &setupOpts{extractor: rules.Rules{}, memory: mem})
	k := mustKey(t, "acme", "nw-2", 1)
	b.submit(t, k, numberless, 0)
	require.Error(t, b.deliver(k))
	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Equal(t, "total_mismatch", j.ErrorReason, "the validator judges the profile's read as any other")
	require.Equal(t, []string{"name:abc@v3 read missed"}, mem.counts)
}

func TestHandler_ProfileUnavailable_TheRulesStand_NothingCounted(t *testing.T) {
	t.Parallel()
	mem := &fakeMemory{err: errors.New("redis: connection refused")}
	b := setup(t, &setupOpts{extractor: rules.Rules{}, memory: mem})
	k := mustKey(t, "acme", "nw-2", 1)
	b.submit(t, k, numberless, 0)
	require.Error(t, b.deliver(k))
	j := b.job(t, k)
	require.Equal(t, jobs.StateDeadLettered, j.State)
	require.Equal(t, "missing_field:invoiceNumber", j.ErrorReason)
	require.Empty(t, mem.counts)
}
