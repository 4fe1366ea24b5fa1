package webhook

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/jobs"
)

// A committed credit note that may duplicate an earlier document: the
// job.succeeded event says what it is and links the first document and
// the invoice it credits, by job ID only.
func TestFromOutbox_Succeeded_SaysTheDocumentTypeAndAPossibleDuplicate(t *testing.T) {
	t.Parallel()
	k, _ := jobs.ParseKey("acme:scan-0094:v1")
	first, _ := jobs.ParseKey("acme:mail-4411:v1")
	inv, _ := jobs.ParseKey("acme:inv-7:v1")
	ev := jobs.Event{Type: jobs.EventExtractionCommitted, Key: k, EventID: "e1", At: time.UnixMilli(1), DocumentType: "creditNote",
		Match: &jobs.Match{Strength: jobs.DuplicateStrong, Of: first, Matched: []string{"number", "total"}, Credits: &inv}}
	e, ok := FromOutbox(ev)
	require.True(t, ok)
	require.Equal(t, "creditNote", e.Data.DocumentType)
	require.Equal(t, &Duplicate{JobID: "acme:mail-4411:v1", Strength: "strong", Matched: []string{"number", "total"}}, e.Data.PossibleDuplicateOf)
	require.Equal(t, "acme:inv-7:v1", e.Data.Credits)
	require.JSONEq(t, `{"type":"job.succeeded","timestamp":"1970-01-01T00:00:00.001Z","data":{"eventId":"e1","jobId":"acme:scan-0094:v1",
		"tenant":"acme","documentId":"scan-0094","operationVersion":1,"state":"succeeded","documentType":"creditNote",
		"possibleDuplicateOf":{"jobId":"acme:mail-4411:v1","strength":"strong","matched":["number","total"]},"credits":"acme:inv-7:v1",
		"links":{"job":"/v1/jobs/acme:scan-0094:v1","review":"/v1/reviews/acme:scan-0094:v1"}}}`, string(e.Body()))
}
