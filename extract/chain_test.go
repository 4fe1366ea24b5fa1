package extract

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/internal/llmtest"
)

// stubFirst is a first extractor whose verdict the test sets: its classify
// and validate return the given errors, its extract the rules' extraction.
type stubFirst struct {
	classifyErr, validateErr error
	extraction               Extraction
}

func (s *stubFirst) Checkpointed(string) bool { return false }

func (s *stubFirst) Classify(context.Context, string) ([]byte, error) {
	if s.classifyErr != nil {
		return nil, s.classifyErr
	}
	return json.Marshal(Classification{DocumentType: DocInvoice})
}

func (s *stubFirst) Extract(context.Context, string, []byte) ([]byte, error) {
	return json.Marshal(s.extraction)
}

func (s *stubFirst) Validate(context.Context, []byte) ([]byte, error) {
	if s.validateErr != nil {
		return nil, s.validateErr
	}
	return []byte(`{}`), nil
}

// runChain runs the three stages as the worker does.
func runChain(t *testing.T, c *Chain) (*Invoice, error) {
	t.Helper()
	ctx := context.Background()
	cls, err := c.Classify(ctx, sampleDocument)
	if err != nil {
		return nil, err
	}
	ext, err := c.Extract(ctx, sampleDocument, cls)
	if err != nil {
		return nil, err
	}
	res, err := c.Validate(ctx, ext)
	if err != nil {
		return nil, err
	}
	var inv Invoice
	require.NoError(t, json.Unmarshal(res, &inv))
	return &inv, nil
}

func rulesExtraction() Extraction {
	return Extraction{
		DocumentType: DocInvoice, InvoiceNumber: "4471", Vendor: "Northwind Traders GmbH", IssueDate: "2026-03-03",
		Currency: "EUR", Subtotal: "25.50", Tax: "5.10", Total: "30.60",
		LineItems: []ExtractedLine{
			{Description: "Widget", Quantity: "2", UnitPrice: "10.00", Amount: "20.00"},
			{Description: "Gadget", Quantity: "1", UnitPrice: "5.50", Amount: "5.50"},
		},
		Source: Source{Extractor: "rules"},
	}
}

func TestChain_RulesAccept_TheModelIsNeverCalled(t *testing.T) {
	t.Parallel()
	b := setupModel(t, func(llmtest.Request) llmtest.Reply { return llmtest.Completion(answer(t, nil), 1, 1) }, nil)
	first := &stubFirst{extraction: rulesExtraction()}

	inv, err := runChain(t, NewChain(first, b.model))

	require.NoError(t, err)
	require.Equal(t, "rules", inv.Source.Extractor)
	require.Zero(t, b.srv.Calls())
}

func TestChain_RulesSayNotAnInvoice_RejectedWithoutAModelCall(t *testing.T) {
	t.Parallel()
	for name, first := range map[string]*stubFirst{
		"at classify": {classifyErr: Reject(ReasonNotAnInvoice)},
		"at validate": {validateErr: Reject(ReasonNotAnInvoice), extraction: Extraction{DocumentType: DocReceipt}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupModel(t, func(llmtest.Request) llmtest.Reply { return llmtest.Completion(answer(t, nil), 1, 1) }, nil)
			_, err := runChain(t, NewChain(first, b.model))
			var rej *Rejection
			require.ErrorAs(t, err, &rej)
			require.Equal(t, ReasonNotAnInvoice, rej.Reason)
			require.Zero(t, b.srv.Calls())
		})
	}
}

func TestChain_RulesRejectForAnotherReason_TheModelExtracts(t *testing.T) {
	t.Parallel()
	for name, first := range map[string]*stubFirst{
		"at validate": {validateErr: Reject(ReasonAmbiguousDate), extraction: rulesExtraction()},
		"at classify": {classifyErr: Reject(FieldReason(ReasonMissingField, "total"))},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setupModel(t, func(llmtest.Request) llmtest.Reply { return llmtest.Completion(answer(t, nil), 700, 90) }, nil)

			inv, err := runChain(t, NewChain(first, b.model))

			require.NoError(t, err)
			require.Equal(t, Source{Extractor: "llm", Model: testModel, PromptTokens: 700, CompletionTokens: 90}, inv.Source)
			require.Equal(t, "30.60", inv.Total)
			require.Equal(t, 1, b.srv.Calls())
		})
	}
}

// The model's answer in the chain is judged by the same validator.
func TestChain_ModelAnswerThatDoesNotAddUp_IsRejected(t *testing.T) {
	t.Parallel()
	b := setupModel(t, func(llmtest.Request) llmtest.Reply {
		return llmtest.Completion(answer(t, func(a map[string]any) { a["total"] = "0.00" }), 1, 1)
	}, nil)
	first := &stubFirst{validateErr: Reject(ReasonTotalMismatch), extraction: rulesExtraction()}

	_, err := runChain(t, NewChain(first, b.model))

	var rej *Rejection
	require.ErrorAs(t, err, &rej)
	require.Equal(t, ReasonTotalMismatch, rej.Reason)
	require.Equal(t, 1, b.srv.Calls())
}

func TestChain_RulesFailOtherwise_NoFallback(t *testing.T) {
	t.Parallel()
	b := setupModel(t, func(llmtest.Request) llmtest.Reply { return llmtest.Completion(answer(t, nil), 1, 1) }, nil)
	boom := errors.New("rules: internal")
	first := &stubFirst{validateErr: boom, extraction: rulesExtraction()}

	_, err := runChain(t, NewChain(first, b.model))

	require.ErrorIs(t, err, boom)
	require.Zero(t, b.srv.Calls())
}

func TestChain_Checkpointed_ExtractBecauseItMayCallTheModel(t *testing.T) {
	t.Parallel()
	b := setupModel(t, func(llmtest.Request) llmtest.Reply { return llmtest.Reply{} }, nil)
	c := NewChain(&stubFirst{}, b.model)
	require.False(t, c.Checkpointed(StageClassify), "the rules' classify is cheap")
	require.True(t, c.Checkpointed(StageExtract))
	require.False(t, c.Checkpointed(StageValidate))
}
