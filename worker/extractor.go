package worker

import "context"

// Stage names, also the checkpoint names in the store.
const (
	StageClassify = "classify"
	StageExtract  = "extract"
	StageValidate = "validate"
)

// Stages lists the pipeline's stages in order.
var Stages = []string{StageClassify, StageExtract, StageValidate}

// Extractor is the document pipeline the extract handler runs. Each stage
// returns JSON, which the handler checkpoints before the next stage starts:
// a redelivered job resumes after its last completed stage and never calls a
// checkpointed stage again.
//
// A stage's error is classified by Classify: wrap ErrPermanent (or use
// Permanent) for a document no retry can fix, anything else is retried.
// Error messages may quote the document: the handler logs them at debug level
// only and never stores or returns them. A stage should return promptly when
// ctx is done; if it does not, its output is still judged by the attempt's
// deadline.
type Extractor interface {
	// Classify tells what kind of document content is.
	Classify(ctx context.Context, content string) ([]byte, error)
	// Extract pulls the fields out of content, given its classification.
	Extract(ctx context.Context, content string, classification []byte) ([]byte, error)
	// Validate checks an extraction and returns the final result.
	Validate(ctx context.Context, extraction []byte) ([]byte, error)
}
