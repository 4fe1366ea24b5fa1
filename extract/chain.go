package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Chain is the "rules,llm" extractor: the cheap extractor first, the model
// only for the documents it rejects for a reason other than not_an_invoice
// (the hard tail). A document the first extractor accepts never reaches the
// model; one it judges not to be an invoice is rejected without a call.
//
// Stages: Classify is the first extractor's (cheap, recomputed after a
// crash). Extract runs the first extractor's extract and validation and,
// when they reject the document, the model; it is checkpointed because it
// may have called the model. Validate judges whichever extraction came out,
// with the one validator.
type Chain struct {
	first, model Extractor
}

var _ Extractor = (*Chain)(nil)

// NewChain returns a Chain that tries first and falls back to model.
func NewChain(first, model Extractor) *Chain { return &Chain{first: first, model: model} }

// Checkpointed: classify as the first extractor says; extract always, as
// it may call the model.
func (c *Chain) Checkpointed(stage string) bool {
	switch stage {
	case StageClassify:
		return c.first.Checkpointed(StageClassify)
	case StageExtract:
		return true
	}
	return false
}

// Classify runs the first extractor's classifier. A rejection other than
// not_an_invoice defers to the extract stage, where the model gets its turn.
func (c *Chain) Classify(ctx context.Context, content string) ([]byte, error) {
	out, err := c.first.Classify(ctx, content)
	if fallsBack(err) {
		return json.Marshal(Classification{DocumentType: DocDeferred})
	}
	return out, err
}

// Extract returns the first extractor's extraction when its own validation
// accepts it, else the model's (see Chain).
func (c *Chain) Extract(ctx context.Context, content string, classification []byte) ([]byte, error) {
	var cls Classification
	if err := json.Unmarshal(classification, &cls); err != nil {
		return nil, fmt.Errorf("%w: chain: the classification is not JSON", ErrPermanent)
	}
	if cls.DocumentType != DocDeferred {
		ext, err := c.first.Extract(ctx, content, classification)
		if err == nil {
			_, err = c.first.Validate(ctx, ext)
		}
		if !fallsBack(err) {
			if err != nil {
				return nil, err
			}
			return ext, nil
		}
	}
	deferred, _ := json.Marshal(Classification{DocumentType: DocDeferred})
	return c.model.Extract(ctx, content, deferred)
}

// Validate judges the extraction, whoever made it, with ValidateExtraction.
func (c *Chain) Validate(ctx context.Context, extraction []byte) ([]byte, error) {
	return Validate(ctx, extraction)
}

// fallsBack reports whether err is a rejection the model may do better on.
func fallsBack(err error) bool {
	var r *Rejection
	return errors.As(err, &r) && r.Reason != ReasonNotAnInvoice
}
