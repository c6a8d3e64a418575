package distributed

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// Span is one job of a run as its coordinator saw it, in times since
// the run's start: when its last attempt was published, when the worker
// that finished it started it (the result's arrival less the worker's
// own duration), when its result arrived and when the coordinator had
// verified it.
type Span struct {
	Job, Worker                           string
	Attempt                               int
	Published, Started, Received, Checked time.Duration
}

// Timeline records the spans of a run's jobs from its progress events
// ([Timeline.Progress]); its chart shows where a run's time went.
type Timeline struct {
	start time.Time
	mu    sync.Mutex
	spans map[string]*Span
}

// NewTimeline returns a timeline of a run started at start.
func NewTimeline(start time.Time) *Timeline {
	return &Timeline{start: start, spans: map[string]*Span{}}
}

// Progress returns a Progress that records each event and then passes
// it to next (nil for none).
func (t *Timeline) Progress(next Progress) Progress {
	return func(event, job string, r *Result, reason error) {
		t.record(event, job, r)
		if next != nil {
			next(event, job, r, reason)
		}
	}
}

func (t *Timeline) record(event, job string, r *Result) {
	if event == "ignored" {
		return
	}
	at := time.Since(t.start)
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.spans[job]
	if s == nil {
		// A job first seen by its result was published by an earlier
		// coordinator of the run: its publication is not known.
		s = &Span{Job: job, Published: -1}
		t.spans[job] = s
	}
	switch event {
	case "published":
		s.Published = at
	case "received":
		s.Worker, s.Attempt, s.Received = r.Worker, r.Attempt, at
		s.Started = max(at-time.Duration(r.Millis)*time.Millisecond, 0)
		if s.Published >= 0 {
			s.Started = max(s.Started, s.Published)
		}
	case "done":
		s.Checked = at
	}
}

// Spans returns the spans of the jobs done, by their start.
func (t *Timeline) Spans() []Span {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Span
	for _, s := range t.spans {
		if s.Checked > 0 {
			out = append(out, *s)
		}
	}
	slices.SortFunc(out, func(a, b Span) int {
		return cmp.Or(cmp.Compare(a.Started, b.Started), strings.Compare(a.Job, b.Job))
	})
	return out
}

// WriteChart writes the timeline as a text chart, a line per job done,
// width columns for the run's duration: '.' while the job waited in the
// queue, '#' while its worker ran it, '+' while the coordinator fetched
// and verified its output.
func (t *Timeline) WriteChart(w io.Writer, width int) error {
	spans := t.Spans()
	if len(spans) == 0 {
		_, err := fmt.Fprintln(w, "(no job done)")
		return err
	}
	width = max(width, 10)
	var end time.Duration
	jobW, workerW := len("job"), len("worker")
	for _, s := range spans {
		end = max(end, s.Checked)
		jobW, workerW = max(jobW, len(s.Job)), max(workerW, len(s.Worker))
	}
	col := func(d time.Duration) int {
		return min(int(int64(d)*int64(width)/int64(max(end, 1))), width-1)
	}
	sec := func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) }
	head := fmt.Sprintf("%-*s  %-*s  0 s", jobW, "job", workerW, "worker")
	if _, err := fmt.Fprintf(w, "%s%*s  %s\n", head, width+2-len("0 s"), sec(end), "ran"); err != nil {
		return err
	}
	for _, s := range spans {
		row := []byte(strings.Repeat(" ", width))
		from := s.Started
		if s.Published >= 0 {
			from = s.Published
		}
		for i := col(from); i <= col(s.Checked); i++ {
			switch {
			case i < col(s.Started):
				row[i] = '.'
			case i <= col(s.Received):
				row[i] = '#'
			default:
				row[i] = '+'
			}
		}
		if _, err := fmt.Fprintf(w, "%-*s  %-*s  |%s|  %s\n", jobW, s.Job, workerW, s.Worker, row, sec(s.Received-s.Started)); err != nil {
			return err
		}
	}
	return nil
}
