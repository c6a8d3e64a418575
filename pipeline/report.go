package pipeline

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteStats writes the stage table of a run, in the spirit of seed 004's
// --stats output.
func (r *Report) WriteStats(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "stage\ttime\tdetails")
	var total time.Duration
	for _, s := range r.Stages {
		fmt.Fprintf(tw, "%s\t%v\t%s\n", s.Name, s.Duration.Round(time.Millisecond), s.Note)
		total += s.Duration
	}
	fmt.Fprintf(tw, "total\t%v\t\n", total.Round(time.Millisecond))
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "constraints %d", r.Constraints)
	if r.ProofBytes > 0 {
		fmt.Fprintf(&b, ", proof %d bytes", r.ProofBytes)
	}
	fmt.Fprintf(&b, ", peak heap %.1f MiB", float64(r.PeakHeap)/(1<<20))
	if r.VerifyGas > 0 {
		fmt.Fprintf(&b, ", verifyProof %d gas (%s verifier; %s: %d), submit %d gas",
			r.VerifyGas, r.Verifier, r.Verifier.Other(), r.OtherVerifyGas, r.SubmitGas)
	} else if r.SubmitGas > 0 {
		fmt.Fprintf(&b, ", submit %d gas", r.SubmitGas)
	}
	_, err := fmt.Fprintln(w, b.String())
	return err
}

// Duration returns the time the named stages took, or all the stages
// with no name given.
func (r *Report) Duration(names ...string) time.Duration {
	var d time.Duration
	for _, s := range r.Stages {
		if len(names) == 0 || slices.Contains(names, s.Name) {
			d += s.Duration
		}
	}
	return d
}
