package flags

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/pipeline"
)

// TestDeployment: the deployment's flags parse into one spec, applied to
// a run's options as given; each bad value or combination is refused
// with the flag it names, before anything is loaded.
func TestDeployment(t *testing.T) {
	parse := func(design bool, args ...string) (Spec, error) {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		d := AddDeployment(fs, design)
		if err := fs.Parse(args); err != nil {
			return Spec{}, err
		}
		return d.Parse()
	}
	s, err := parse(true, "--design", "aggregated", "--segment-size", "2", "--vocab-chunk", "64", "--srs", "ceremony.srs", "--buckets", "16, 64", "--capacity", "32")
	if err != nil {
		t.Fatal(err)
	}
	var opts pipeline.AggregatedOptions
	s.Apply(&opts)
	if s.Design != pipeline.Aggregated || opts.SegmentSize != 2 || opts.VocabChunk != 64 || opts.SRS != "ceremony.srs" || !slices.Equal(opts.Buckets, []int{16, 64}) || opts.Capacity != 32 || opts.Slots != 0 {
		t.Fatalf("spec %+v applied as %+v", s, opts)
	}
	s, err = parse(true, "--design", "aggregated", "--capacity", "8", "--mix", "2, 1")
	if err != nil {
		t.Fatal(err)
	}
	s.Apply(&opts)
	if opts.Mix == nil || *opts.Mix != (pipeline.Mix{Requests: 2, Turns: 1}) || opts.Capacity != 8 {
		t.Fatalf("a mixed deployment %+v applied as %+v", s, opts)
	}
	if s, err := parse(true); err != nil || s.Design != pipeline.Direct {
		t.Fatalf("no flags: %+v, %v", s, err)
	}
	for _, c := range []struct {
		args []string
		err  string
	}{
		{[]string{"--design", "opened"}, "--design"},
		{[]string{"--design", "aggregated", "--segment-size", "0"}, "--segment-size"},
		{[]string{"--design", "aggregated", "--vocab-chunk", "-1"}, "--vocab-chunk"},
		{[]string{"--design", "aggregated", "--capacity", "-1"}, "--capacity"},
		{[]string{"--design", "aggregated", "--batch-slots", "-1"}, "--batch-slots"},
		{[]string{"--design", "aggregated", "--capacity", "8", "--batch-slots", "2"}, "not both"},
		{[]string{"--design", "aggregated", "--buckets", "16,x"}, "--buckets"},
		{[]string{"--design", "aggregated", "--buckets", "0"}, "--buckets"},
		{[]string{"--srs", "ceremony.srs"}, "--design aggregated"},
		{[]string{"--vocab-chunk", "64"}, "--design aggregated"},
		{[]string{"--buckets", "16"}, "--design aggregated"},
		{[]string{"--capacity", "16"}, "--design aggregated"},
		{[]string{"--batch-slots", "4"}, "--design aggregated"},
		{[]string{"--design", "aggregated", "--mix", "2,1"}, "--capacity"},
		{[]string{"--design", "aggregated", "--capacity", "8", "--mix", "2"}, "--mix"},
		{[]string{"--design", "aggregated", "--capacity", "8", "--mix", "2,0"}, "--mix"},
		{[]string{"--design", "aggregated", "--capacity", "8", "--mix", "0,1"}, "--mix"},
		{[]string{"--design", "aggregated", "--capacity", "8", "--mix", "-1,3"}, "--mix"},
		{[]string{"--capacity", "8", "--mix", "1,1"}, "--design aggregated"},
	} {
		if _, err := parse(true, c.args...); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%v: %v, want an error naming %q", c.args, err, c.err)
		}
	}
	// Without --design (ceremony), the design is the caller's.
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	d := AddDeployment(fs, false)
	if fs.Lookup("design") != nil || fs.Lookup("buckets") != nil {
		t.Fatal("--design and --buckets defined without the design")
	}
	if err := fs.Parse([]string{"--capacity", "16"}); err != nil {
		t.Fatal(err)
	}
	if s, err := d.ParseFor(pipeline.Aggregated); err != nil || s.Capacity != 16 {
		t.Fatalf("a turn's deployment: %+v, %v", s, err)
	}
	if _, err := d.ParseFor(pipeline.Direct); err == nil {
		t.Fatal("a direct circuit of a turn's deployment accepted")
	}
}
