package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// row is one document's figures.
type row struct {
	doc             *document
	queueWait       time.Duration // MEASURED: claim − enqueue, from the job record
	extractMeasured time.Duration // MEASURED: wall time of the extract stage (includes the synthetic delay)
	reviewMeasured  time.Duration // MEASURED: review decidedAt − createdAt
	commitToReview  time.Duration // MEASURED: job finishedAt → review createdAt (relay + consumer)
	endToEnd        time.Duration // MEASURED: job createdAt → review decidedAt
	attempts        int
}

// workerStat is the mean of one of the worker's own histograms.
type workerStat struct {
	mean  time.Duration
	count uint64
}

// results is everything the report prints.
type results struct {
	rows      []row
	samples   []sample
	sampleErr error
	elapsed   time.Duration
	// The worker's histograms over the run, to cross-check the table.
	workerQueueWait, workerInference workerStat
}

func report(out io.Writer, r *results) {
	fmt.Fprintf(out, "Per document (the run took %.1f s)\n\n", r.elapsed.Seconds())
	documentTable(out, r.rows)
	crossCheck(out, r)
	fmt.Fprintln(out)
	depthReport(out, r.samples, r.sampleErr)
	fmt.Fprintln(out)
	legend(out)
}

func msec(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

func documentTable(out io.Writer, rows []row) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "document\tsubmitted\tQUEUE WAIT\tINFERENCE\t\tREVIEW WAIT\t\tfinish→review\tend to end\t")
	fmt.Fprintln(tw, "\tat\tmeasured\tsynthetic\tmeasured\tsynthetic\tmeasured\tmeasured\tmeasured\t")
	var sum row
	var maxQueue time.Duration
	for i, r := range rows {
		fmt.Fprintf(tw, "%s\t%.2f s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f s\t\n",
			r.doc.key.DocumentID, (time.Duration(i) * cadence).Seconds(), msec(r.queueWait),
			msec(r.doc.inference), msec(r.extractMeasured), msec(r.doc.reviewDelay), msec(r.reviewMeasured),
			msec(r.commitToReview), r.endToEnd.Seconds())
		sum.queueWait += r.queueWait
		sum.extractMeasured += r.extractMeasured
		sum.reviewMeasured += r.reviewMeasured
		sum.commitToReview += r.commitToReview
		sum.endToEnd += r.endToEnd
		maxQueue = max(maxQueue, r.queueWait)
	}
	if n := time.Duration(len(rows)); n > 0 {
		var inf, rev time.Duration
		for _, r := range rows {
			inf += r.doc.inference
			rev += r.doc.reviewDelay
		}
		fmt.Fprintf(tw, "mean\t\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f s\t\n", msec(sum.queueWait/n), msec(inf/n),
			msec(sum.extractMeasured/n), msec(rev/n), msec(sum.reviewMeasured/n), msec(sum.commitToReview/n),
			(sum.endToEnd / n).Seconds())
		fmt.Fprintf(tw, "max\t\t%s\t\t\t\t\t\t\t\n", msec(maxQueue))
	}
	_ = tw.Flush()
	for _, r := range rows {
		if r.attempts != 1 {
			fmt.Fprintf(out, "note: %s took %d attempts\n", r.doc.key, r.attempts)
		}
	}
}

// crossCheck prints the worker's own view of the same run (its Prometheus
// histograms), which should agree with the table's means.
func crossCheck(out io.Writer, r *results) {
	line := func(what string, st workerStat, unit string) string {
		if st.count == 0 {
			return what + ": not exported by this worker"
		}
		return fmt.Sprintf("%s: mean %s over %d %s", what, msec(st.mean), st.count, unit)
	}
	fmt.Fprintf(out, "\nThe worker's own histograms over the run (MEASURED by the handler, another view of the same columns):\n  %s\n  %s\n",
		line("relayops_queue_wait_seconds", r.workerQueueWait, "attempts"),
		line("relayops_inference_seconds (the extract stage)", r.workerInference, "calls"))
}

var bars = []rune("▁▂▃▄▅▆▇█")

// depthReport prints the sampled queue depth as a sparkline, one character
// per sample, and as a table of the highest depth in each half second.
func depthReport(out io.Writer, samples []sample, err error) {
	fmt.Fprintf(out, "Queue depth: pending + active tasks of the Asynq extract queue, every %s (%d samples)\n", sampleEvery, len(samples))
	if err != nil {
		fmt.Fprintf(out, "  sampling failed at least once (those samples are missing): %v\n", err)
	}
	if len(samples) == 0 {
		return
	}
	peak, peakAt, sum := 0, time.Duration(0), 0
	for _, s := range samples {
		if s.depth > peak {
			peak, peakAt = s.depth, s.at
		}
		sum += s.depth
	}
	var line, axis strings.Builder
	for i, s := range samples {
		b := 0
		if peak > 0 {
			b = s.depth * (len(bars) - 1) / peak
		}
		line.WriteRune(bars[b])
		if i%10 == 0 {
			axis.WriteString(fmt.Sprintf("%-10s", fmt.Sprintf("|%ds", i/10)))
		}
	}
	fmt.Fprintf(out, "  %s   (▁ = 0, █ = %d)\n  %s\n", line.String(), peak, strings.TrimRight(axis.String(), " "))
	fmt.Fprintf(out, "  peak %d at %.1f s; mean %.1f over the run\n\n", peak, peakAt.Seconds(), float64(sum)/float64(len(samples)))

	const window = 500 * time.Millisecond
	tw := tabwriter.NewWriter(out, 0, 0, 1, ' ', tabwriter.AlignRight)
	head, vals := "  t (s)\t", "  max depth\t"
	for from := time.Duration(0); from <= samples[len(samples)-1].at; from += window {
		m := 0
		for _, s := range samples {
			if s.at >= from && s.at < from+window {
				m = max(m, s.depth)
			}
		}
		head += fmt.Sprintf("%.1f\t", from.Seconds())
		vals += fmt.Sprintf("%d\t", m)
	}
	fmt.Fprintln(tw, head)
	fmt.Fprintln(tw, vals)
	_ = tw.Flush()
}

func legend(out io.Writer) {
	fmt.Fprintf(out, `Legend: MEASURED numbers come from this run; SYNTHETIC ones are fixed constants of the reference run.
  queue wait     MEASURED: claim time − enqueue time (the job record's startedAt − enqueuedAt, the
                 store's clock, ms resolution): the relay's hop into Asynq plus the wait for one of
                 the worker's %d handlers.
  inference      SYNTHETIC constant per document (a sleep where a model call would be), beside the
                 MEASURED wall time of the whole extract stage: that sleep plus the real rules-based
                 extraction.
  review wait    SYNTHETIC constant per document (the synthetic reviewer's delay), beside the MEASURED
                 decidedAt − createdAt of the review record.
  finish→review  MEASURED: the job's finishedAt to its review's createdAt (extraction.committed
                 through the relay to the review consumer).
  end to end     MEASURED: the job's createdAt to its review's decidedAt.
  queue depth    MEASURED: asynq.Inspector's pending + active of the extract queue; jobs still in an
                 outbox stream, not yet enqueued by the relay, are not counted.
  Everything else is real code: the outbox store and its Lua scripts, the relay, Asynq, the extract
  handler with its checkpoints and commit, the review consumer, jobs.Store.Decide. On miniredis
  (the default) Redis itself is an in-memory stand-in whose timings are not redis-server's.
`, concurrency)
}
