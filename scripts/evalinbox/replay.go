package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/relayops/relayops/scripts/realcorpus"
)

// options are the command's flags that a replay reads.
type options struct {
	root      string
	only      []string // supplier keys; none: every document
	profiles  []string // the runs: "on", "off"
	verbose   bool
	keep      bool
	timeout   time.Duration // a job's end, a review's creation
	learnWait time.Duration // an approval's learning, with profiles on
}

// inbox orders the corpus as an accounts-payable inbox receives it in the
// replay: grouped by supplier, suppliers in the order of their first
// document, each supplier's documents in file order. A document without a
// supplier key (no invoice, mostly) stands alone. only keeps those
// suppliers.
func inbox(docs []realcorpus.Document, only []string) ([]item, error) {
	known := map[string]bool{}
	var order []string
	groups := map[string][]realcorpus.Document{}
	for _, d := range docs {
		key := d.Truth.Supplier
		if key == "" {
			key = "\x00" + d.File // a group of its own
		}
		if !known[key] {
			known[key] = true
			order = append(order, key)
		}
		groups[key] = append(groups[key], d)
	}
	for _, s := range only {
		if !known[s] {
			return nil, fmt.Errorf("-only: no document's truth names the supplier %q (the supplier keys are in testdata/real's truth files)", s)
		}
	}
	var items []item
	ids := map[string]bool{}
	for _, key := range order {
		if len(only) > 0 && !slices.Contains(only, key) {
			continue
		}
		first := len(items)
		seen := false
		for _, d := range groups[key] {
			it := item{doc: d, documentID: documentID(d.File, ids), supplier: d.Truth.Supplier}
			if it.kind() == kindBooked && it.supplier != "" {
				it.later = seen
				seen = true
			}
			items = append(items, it)
		}
		followed := false
		for i := len(items) - 1; i >= first; i-- {
			items[i].next = followed
			followed = followed || items[i].kind() == kindBooked && items[i].supplier != ""
		}
	}
	return items, nil
}

var notInDocumentID = regexp.MustCompile(`[^A-Za-z0-9._~-]+`)

// documentID is the documentId a file is submitted under: its path
// without "testdata/" and its extension, in the characters a document ID
// allows, unique among ids (which it joins).
func documentID(file string, ids map[string]bool) string {
	name := strings.TrimPrefix(filepath.ToSlash(strings.TrimSuffix(file, filepath.Ext(file))), "testdata/")
	id := strings.Trim(notInDocumentID.ReplaceAllString(strings.ReplaceAll(name, "/", "."), "-"), ".-_~")
	sum := sha256.Sum256([]byte(file))
	if id == "" {
		id = "document"
	}
	if len(id) > 110 || ids[id] {
		id = strings.Trim(id[:min(len(id), 110)], ".-_~") + "-" + hex.EncodeToString(sum[:4])
	}
	ids[id] = true
	return id
}

// inboxRun is one replay of the inbox on a fresh system.
type inboxRun struct {
	profiles    string // RELAYOPS_SUPPLIER_PROFILES
	outcomes    []outcome
	learned     int     // supplier profiles stored at the end
	sys         *system // still running with -keep
	interrupted bool
}

// replay deploys a fresh system with profiles on or off and works the
// inbox through it, printing a line per document to progress. The system
// is stopped at the end, unless opt.keep (then run.sys is running).
func replay(ctx context.Context, opt options, bins binaries, profiles string, items []item, progress io.Writer) (*inboxRun, error) {
	fmt.Fprintf(progress, "evalinbox: profiles %s: starting redis-server, api and worker\n", profiles)
	sys, err := deploy(ctx, bins, profiles)
	if err != nil {
		return nil, fmt.Errorf("profiles %s: %w", profiles, err)
	}
	r := &inboxRun{profiles: profiles, sys: sys}
	defer func() {
		if !opt.keep || r.sys == nil {
			sys.stop()
			if !r.hasProblems() {
				sys.removeFiles()
			}
			r.sys = nil
		}
	}()
	c := &clerk{api: newClient(sys), learning: profiles == "on", learnWait: opt.learnWait, timeout: opt.timeout}
	for i, it := range items {
		if ctx.Err() != nil {
			r.interrupted = true
			break
		}
		o := c.work(ctx, it)
		if ctx.Err() != nil && len(o.problems) > 0 {
			r.interrupted = true // the work was cut short, not the system wrong
			break
		}
		r.outcomes = append(r.outcomes, o)
		fmt.Fprintf(progress, "[profiles %-3s] %3d/%d %s: %s\n", profiles, i+1, len(items), it.doc.File, o.summary())
	}
	if !r.interrupted {
		if ps, err := c.api.profiles(ctx); err == nil {
			r.learned = len(ps)
		}
	}
	if r.hasProblems() {
		fmt.Fprintf(progress, "evalinbox: profiles %s: the processes' logs are kept in %s\n", profiles, sys.dir)
	}
	return r, nil
}

func (r *inboxRun) hasProblems() bool {
	return slices.ContainsFunc(r.outcomes, func(o outcome) bool { return len(o.problems) > 0 })
}

// summary is a document's line of progress.
func (o outcome) summary() string {
	var parts []string
	switch {
	case o.state == "":
	case o.state == stateSucceeded:
		parts = append(parts, "succeeded")
	default:
		parts = append(parts, "rejected "+o.reason)
	}
	switch {
	case o.state == stateDeadLettered && o.kind() == kindOther:
		parts = append(parts, "right: "+o.doc.Truth.DocumentType)
	case o.state == stateDeadLettered && o.kind() == kindExpected:
		parts = append(parts, "right: its truth expects a rejection")
	}
	if o.corrected {
		c := "corrected"
		if len(o.removed) > 0 {
			c += " (cleared " + strings.Join(o.removed, ", ") + ")"
		}
		parts = append(parts, c)
	}
	switch {
	case o.refused != nil:
		parts = append(parts, "correction REFUSED: "+fieldErrors(o.refused))
	case o.failed != "":
		parts = append(parts, "accepted correction FAILED: "+o.failed)
	case o.newJobID != "" && o.decided != "":
		parts = append(parts, "succeeded")
	}
	if len(o.wrong) > 0 {
		parts = append(parts, "FALSE SUCCESS "+wrongFields(o.wrong))
	}
	if o.dup != "" {
		parts = append(parts, "duplicate "+o.dup)
	}
	if o.decided != "" {
		d := o.decided
		if o.approvalFixes != nil && o.approvalRefused == nil {
			d += " with corrections"
		}
		parts = append(parts, d)
	}
	if o.approvalRefused != nil {
		parts = append(parts, "approval's corrections REFUSED: "+fieldErrors(o.approvalRefused))
	}
	if o.profileRead {
		parts = append(parts, "read with a profile")
	}
	if o.waited && !o.learned {
		parts = append(parts, "no profile learned")
	}
	if o.rateLimited > 0 {
		parts = append(parts, fmt.Sprintf("%d × 429", o.rateLimited))
	}
	for _, p := range o.problems {
		parts = append(parts, "UNEXPECTED "+p)
	}
	return strings.Join(parts, ", ")
}

func fieldErrors(fs []fieldError) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.Field + " " + f.Problem
	}
	return strings.Join(parts, "; ")
}

func wrongFields(ws []realcorpus.Wrong) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmt.Sprintf("%s %q (want %q)", w.Field, w.Committed, w.Want)
	}
	return strings.Join(parts, ", ")
}

// errInterrupted: Ctrl-C ended the replay before its end.
var errInterrupted = errors.New("interrupted")
