//go:build full

package pipeline

import (
	"testing"

	"github.com/veriformer/veriformer/model"
)

// TestPlanStandIn: with no SRS in the cache, the plan compiles the
// aggregator on a stand-in key and reports it as not cached, with a setup
// estimate; the wrapper's shape comes from the same stand-in. About a
// minute: the micro model's segment, its aggregator and the wrapper
// compiled.
func TestPlanStandIn(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	opts := AggregatedOptions{Options: Options{Model: m, Tokens: 2, CacheDir: t.TempDir()}, Wrap: true}
	items, err := Plan(Aggregated, opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 {
		t.Fatalf("plan of %d circuits: %+v", len(items), items)
	}
	for _, it := range items {
		if it.Cached || it.KeyKind != "" || it.SetupEstimateS <= 0 || it.Constraints == 0 {
			t.Errorf("plan item %+v", it)
		}
	}
	if items[1].Kind != "aggregator" || items[2].Kind != "wrapper" {
		t.Fatalf("plan %+v", items)
	}
	// The catalog of Circuits, on the same empty cache, refuses the
	// aggregator but compiles the wrapper from the stand-in's shape.
	cat, err := Circuits(Aggregated, opts, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.Circuits[1].Compile(); err == nil {
		t.Fatal("the aggregator compiled without an SRS")
	}
	ccs, err := cat.Circuits[2].Compile()
	if err != nil || ccs.GetNbConstraints() != items[2].Constraints {
		t.Fatalf("the wrapper without an SRS: %v", err)
	}
}
