// Command eval measures a document extractor on the evaluation corpus: the
// invoices, non-invoices and broken invoices internal/corpus generates from
// a seed, plus the hand-written documents of -dir. Every document goes
// through Classify → Extract → Validate of the chosen extractor, in
// process (no Redis), and the command prints
//
//   - accuracy per layout and per field (invoice number, vendor, date,
//     currency, total, subtotal, tax, line count) of the invoices that must
//     succeed;
//   - the rejection of documents that are not invoices, with the reason codes;
//   - the outcome of invoices that must be rejected (none may succeed);
//   - documents per second;
//
// then the targets: invoice number and total right on ≥ 98% of every
// layout, every non-invoice rejected, no false success. It exits 1 when a
// target is missed (after printing everything), 2 on bad usage.
//
// -v lists the failures by document ID with the field, the expected and the
// obtained value; it never prints a document's text.
//
// Usage: go run ./scripts/eval [-extractor rules] [-seed 1] [-n 500] [-dir testdata/corpus] [-v]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/relayops/relayops/internal/corpus"
)

// options are the command's flags.
type options struct {
	extractor string
	seed      int64
	n         int
	dir       string
	verbose   bool
}

func main() {
	var o options
	flag.StringVar(&o.extractor, "extractor", "rules", "extractor to measure (one of: "+strings.Join(extractors.Names(), ", ")+")")
	flag.Int64Var(&o.seed, "seed", 1, "seed of the generated corpus")
	flag.IntVar(&o.n, "n", 500, "generated documents (0: the hand-written set only)")
	flag.StringVar(&o.dir, "dir", "testdata/corpus", "directory of hand-written documents (empty: none)")
	flag.BoolVar(&o.verbose, "v", false, "list every failure: document ID, field, expected and obtained value")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	met, err := run(ctx, o, extractors, os.Stdout)
	stop()
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, "eval:", err)
		os.Exit(2)
	case !met:
		os.Exit(1)
	}
}

// errUsage marks bad flags.
var errUsage = errors.New("usage")

// run evaluates the extractor o names and writes the report to w. It
// reports whether every target is met.
func run(ctx context.Context, o options, reg Registry, w io.Writer) (bool, error) {
	factory, ok := reg[o.extractor]
	if !ok {
		return false, fmt.Errorf("%w: -extractor %q is not one of: %s", errUsage, o.extractor, strings.Join(reg.Names(), ", "))
	}
	if o.n < 0 {
		return false, fmt.Errorf("%w: -n must not be negative (got %d)", errUsage, o.n)
	}
	docs, err := corpus.Generate(o.seed, o.n)
	if err != nil {
		return false, err
	}
	if o.dir != "" {
		hand, err := corpus.Load(o.dir)
		if err != nil {
			return false, fmt.Errorf("-dir: %w (run from the repository root)", err)
		}
		docs = append(docs, hand...)
	}
	if len(docs) == 0 {
		return false, fmt.Errorf("%w: no documents (-n 0 and no -dir)", errUsage)
	}
	ex, stopExtractor, err := factory(ctx)
	if err != nil {
		return false, fmt.Errorf("-extractor %s: %w", o.extractor, err)
	}
	if stopExtractor != nil {
		defer stopExtractor()
	}
	invoices, others, broken := documentsOf(docs)
	fmt.Fprintf(w, "Extractor %s on %d documents (seed %d: %d generated; %s: %d hand-written): %d invoices that must succeed, %d non-invoices, %d invoices that must be rejected\n\n",
		o.extractor, len(docs), o.seed, o.n, dirName(o.dir), len(docs)-o.n, invoices, others, broken)
	outs := runPipeline(ctx, ex, docs)
	if err := ctx.Err(); err != nil {
		return false, err
	}
	rep := newReport(outs)
	rep.write(w)
	if o.verbose {
		rep.failures(w)
	}
	return rep.verdict(w), nil
}

func dirName(dir string) string {
	if dir == "" {
		return "no -dir"
	}
	return dir
}
