package worker

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/jobs"
)

// corrected commits a version made by a reprocess with corrections: the
// operator's corrections over the base the API judged them over, judged by
// the same function (extract.JudgeCorrections) on the same stored inputs,
// so a correction accepted once succeeds. Nothing is read or extracted
// again: what the person saw is what is committed.
func (a *attempt) corrected(ctx context.Context) ([]byte, error) {
	if err := a.h.faults.Hit(extract.StageValidate); err != nil {
		return nil, err
	}
	c, base, err := a.corrections()
	if err != nil {
		return nil, err
	}
	if a.claim.Base == nil {
		// A version made before bases were kept: its base is what the
		// extractor reads now, as it was then.
		if base, err = a.reextract(ctx); err != nil {
			return nil, err
		}
	}
	v, err := extract.JudgeCorrections(base, c, a.h.policy)
	a.h.metrics.stageRun(extract.StageValidate, err)
	if err != nil {
		return nil, err
	}
	a.learnCorrection(ctx, v.Invoice)
	return json.Marshal(v.Invoice)
}

// corrections decodes the claim's corrections and their base ("null":
// nothing was read).
func (a *attempt) corrections() (extract.Corrections, *extract.Extraction, error) {
	var c extract.Corrections
	if err := json.Unmarshal(a.claim.Corrections, &c); err != nil {
		// The API judged them before the version existed: a bug.
		return c, nil, deadLetter(jobs.CodeInternal)
	}
	if len(a.claim.Base) == 0 {
		return c, nil, nil
	}
	var base *extract.Extraction
	if err := json.Unmarshal(a.claim.Base, &base); err != nil {
		return c, nil, deadLetter(jobs.CodeInternal)
	}
	return c, base, nil
}

// reextract is the base of a version from before bases were kept: the
// document read and extracted again, or what the extractor's rejection
// kept (nil when it kept nothing, as for not_an_invoice).
func (a *attempt) reextract(ctx context.Context) (*extract.Extraction, error) {
	doc, err := a.read(ctx)
	if err != nil {
		return nil, err
	}
	text := doc.Text()
	cls, err := a.h.extractor.Classify(ctx, text)
	if err != nil {
		return keptOf(err)
	}
	out, err := a.h.extractor.Extract(ctx, text, cls)
	if err != nil {
		return keptOf(err)
	}
	x, err := extract.DecodeExtraction(out)
	if err != nil {
		return nil, errBadOutput
	}
	return &x, nil
}

// keptOf is what a rejection kept, or err when it is no rejection.
func keptOf(err error) (*extract.Extraction, error) {
	var r *extract.Rejection
	if errors.As(err, &r) {
		return r.Extraction, nil
	}
	return nil, err
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
