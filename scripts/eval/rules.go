package main

import (
	"context"

	"github.com/relayops/relayops/extract"
)

// The rules extractor: the default, offline; its zero value is ready.
func init() {
	register(extract.ExtractorRules, func(context.Context) (extract.Extractor, func(), error) {
		return extract.Rules{}, nil, nil
	})
}
