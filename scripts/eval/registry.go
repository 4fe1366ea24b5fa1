package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/relayops/relayops/extract"
)

// Factory builds the extractor of one -extractor mode. The returned stop
// releases what the factory started (a fake model server); it may be nil.
type Factory func(ctx context.Context) (ex extract.Extractor, stop func(), err error)

// Registry maps -extractor names to their factories.
type Registry map[string]Factory

// extractors is the registry of the eval command. Each mode registers
// itself from its own file (rules.go, …) in an init function, so that adding
// a mode is one small file.
var extractors = Registry{}

// register adds a mode; a duplicate name is a programming error.
func register(name string, f Factory) {
	if _, dup := extractors[name]; dup {
		panic(fmt.Sprintf("eval: extractor %q registered twice", name))
	}
	extractors[name] = f
}

// Names returns the registered modes in order.
func (r Registry) Names() []string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
