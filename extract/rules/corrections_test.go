package rules_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
)

func ptr(s string) *string { return &s }

// A receipt the rules reject keeps nothing; a person's corrections that
// give every required field overrule the verdict, judged by the one
// function the API and the worker share.
func TestJudgeCorrections_RulesRejection_PersonOverrulesNotAnInvoice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	receipt := "CORNER SHOP\nRECEIPT\nTea 2.50\nTOTAL 2.50\nChange due 0.50\n"
	x := rules.Rules{}
	cls, err := x.Classify(ctx, receipt)
	require.NoError(t, err)
	ext, err := x.Extract(ctx, receipt, cls)
	if err == nil {
		_, err = x.Validate(ctx, ext)
	}
	var rej *extract.Rejection
	require.True(t, errors.As(err, &rej), "the rules reject the receipt")
	require.Equal(t, extract.ReasonNotAnInvoice, rej.Reason)

	v, err := extract.JudgeCorrections(rej.Extraction, extract.Corrections{
		InvoiceNumber: ptr("R-1"), Vendor: ptr("Corner Shop"), IssueDate: ptr("2026-03-03"),
		Currency: ptr("GBP"), Total: ptr("2.50"),
	}, extract.Policy{})
	require.NoError(t, err)
	require.Equal(t, "R-1", v.Invoice.InvoiceNumber)
	require.Equal(t, "2.50", v.Invoice.Total)
}
