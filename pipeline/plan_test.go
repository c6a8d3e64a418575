package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestPlanJSON: every field of a plan item is in the JSON, key_kind too
// when the keys are not cached (an empty string then).
func TestPlanJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePlanJSON(&buf, []PlanItem{{Kind: "direct", Name: "direct circuit", Curve: "bn254", Constraints: 10, SetupEstimateS: 1}}); err != nil {
		t.Fatal(err)
	}
	var items []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &items); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"kind", "name", "bucket", "curve", "constraints", "circuit", "cached", "key_kind", "setup_estimate_s", "prove_estimate_s"} {
		if _, ok := items[0][key]; !ok {
			t.Errorf("the plan's JSON has no %s: %s", key, buf.String())
		}
	}
}

// TestWritePlan: the table lists each circuit with its keys' state and
// the totals of the constraints and estimates.
func TestWritePlan(t *testing.T) {
	var buf bytes.Buffer
	items := []PlanItem{
		{Kind: "segment", Name: "segment 1/1", Bucket: 4, Curve: "bls12_377", Constraints: 100, Cached: true, KeyKind: "development", SetupEstimateS: 60, ProveEstimateS: 2},
		{Kind: "wrapper", Name: "BN254 wrapper", Curve: "bn254", Constraints: 50, SetupEstimateS: 600, ProveEstimateS: 120},
	}
	if err := WritePlan(&buf, items); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"cached (development)", "to set up", "all", "2 circuits", "150", "11m0s", "2m2s"} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan's table has no %q:\n%s", want, out)
		}
	}
	buf.Reset()
	if err := WritePlanJSON(&buf, nil); err != nil || strings.TrimSpace(buf.String()) != "[]" {
		t.Fatalf("an empty plan's JSON: %q, %v", buf.String(), err)
	}
}
