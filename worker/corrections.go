package worker

import (
	"encoding/json"
	"errors"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// extractor is the extractor of this attempt: the handler's, with the
// operator's corrections put over it when the job is a version made by a
// reprocess with corrections (extract.WithCorrections: the corrected
// fields win over the rules and the model alike).
func (a *attempt) extractor() (extract.Extractor, error) {
	if len(a.claim.Corrections) == 0 {
		return a.h.extractor, nil
	}
	var c extract.Corrections
	if err := json.Unmarshal(a.claim.Corrections, &c); err != nil {
		// The API validated them before the version existed: a bug.
		return nil, deadLetter(jobs.CodeInternal)
	}
	return extract.WithCorrections(a.h.extractor, c), nil
}

// rejectionDetail is what a content rejection in cause keeps (the partial
// extraction and its failing fields, JSON) for the store to keep beside
// the reason, or nil.
func rejectionDetail(cause error) []byte {
	var r *extract.Rejection
	if !errors.As(cause, &r) {
		return nil
	}
	k := r.Kept()
	if k == nil {
		return nil
	}
	b, err := json.Marshal(k)
	if err != nil {
		return nil
	}
	return b
}
