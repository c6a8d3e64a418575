package pipeline

import (
	"testing"

	"github.com/veriformer/veriformer/setup"
)

func TestParseTensors(t *testing.T) {
	for in, want := range map[string]Tensors{"": Committed, "committed": Committed, "opened": Opened} {
		if got, err := ParseTensors(in); err != nil || got != want {
			t.Errorf("ParseTensors(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"open", "Committed", "kzg"} {
		if _, err := ParseTensors(in); err == nil {
			t.Errorf("ParseTensors(%q) accepted", in)
		}
	}
}

// TestLoadSRS: a development SRS is made once and read back from the
// cache (same τ: same commitments, so the same model id); ceremony keys
// refuse it.
func TestLoadSRS(t *testing.T) {
	opts := &AggregatedOptions{Options: Options{CacheDir: t.TempDir()}}
	r := &runner{opts: &opts.Options, report: &Report{}}
	if s, err := r.cachedSRS(opts, 16); err != nil || s != nil {
		t.Fatalf("an empty cache gives %v, %v", s, err)
	}
	first, err := r.loadSRS(opts, 16)
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.cachedSRS(opts, 16)
	if err != nil || again == nil {
		t.Fatalf("the cached SRS: %v, %v", again, err)
	}
	if first.Hash() != again.Hash() {
		t.Error("the cached development SRS differs from the one made")
	}
	opts.KeyKind = setup.Ceremony
	if _, err := r.loadSRS(opts, 16); err == nil {
		t.Error("a development SRS accepted with ceremony keys")
	}
	opts.SRS = "no such ceremony file"
	if _, err := r.loadSRS(opts, 16); err == nil {
		t.Error("a missing ceremony file accepted")
	}
}
