package main

import (
	"context"

	"github.com/relayops/relayops/extract"
	"github.com/relayops/relayops/extract/rules"
)

// The rules extractor: the default, offline; its zero value is ready.
func init() {
	register(rules.ExtractorRules, func(context.Context) (extract.Extractor, func(), error) {
		return rules.Rules{}, nil, nil
	})
}
