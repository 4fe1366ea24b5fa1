package console_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJobPage_NotAnInvoice_ShowsWhatToCorrect(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	k := b.rejected(t, "acme:memo-1:v1", "RECEIPT\nCoffee 3.50\nTotal 3.50\nChange due 1.50\n", "not_an_invoice")
	p := b.get(t, "/console/jobs/"+k.String(), alice)
	require.Equal(t, 200, p.status)
	i := strings.Index(p.body, `id="reason-advice"`)
	require.Positive(t, i, p.body)
	advice := p.body[i:min(len(p.body), i+1200)]
	require.Contains(t, advice, "it found a title that names it a receipt, not an invoice; wording typical of a receipt")

	other := b.rejected(t, "acme:inv-9:v1", "INVOICE\nTotal: 1.00\n", "total_mismatch")
	require.NotContains(t, b.get(t, "/console/jobs/"+other.String(), alice).body, `id="reason-advice"`, "only for not_an_invoice")
}
