package test

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"

	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/statement"
)

// checkArtifacts writes the run's artifacts and checks them offline the
// way prove verify does: the honest directory verifies, with the key the
// run wrote; a list.json of another list (its words and digests those of
// the changed leaves), and for an aggregator's proof a deployment.json
// that places the aggregator in another slot or under another inner id,
// do not.
func checkArtifacts(t *testing.T, rep *pipeline.Report) {
	t.Helper()
	dir := t.TempDir()
	if err := pipeline.WriteArtifacts(dir, rep); err != nil {
		t.Fatal(err)
	}
	v, err := pipeline.VerifyArtifacts(dir, "")
	if err != nil {
		t.Fatalf("the run's artifacts: %v", err)
	}
	if v.Final != (rep.Proof != nil) || len(v.List.Leaves) != len(rep.List.Leaves) {
		t.Fatalf("verified %+v for a report with a final proof %v", v, rep.Proof != nil)
	}
	rewrite := func(name string, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(what string) {
		t.Helper()
		if _, err := pipeline.VerifyArtifacts(dir, ""); err == nil {
			t.Errorf("%s: verified", what)
		}
	}
	honest, err := os.ReadFile(filepath.Join(dir, pipeline.ListFile))
	if err != nil {
		t.Fatal(err)
	}
	leaf := rep.List.Leaves[0]
	other := statement.List{ModelID: rep.List.ModelID, Leaves: append([]statement.Leaf{statement.RequestLeaf(leaf.Input, new(big.Int).Add(leaf.Output, big.NewInt(1)))}, rep.List.Leaves[1:]...)}
	lj, err := pipeline.ListJSONOf(other)
	if err != nil {
		t.Fatal(err)
	}
	rewrite(pipeline.ListFile, lj)
	refused("another output digest")
	if err := os.WriteFile(filepath.Join(dir, pipeline.ListFile), honest, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep.Proof != nil {
		return
	}
	data, err := os.ReadFile(filepath.Join(dir, pipeline.DeploymentFile))
	if err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(d *pipeline.DeploymentJSON){
		"another slot":     func(d *pipeline.DeploymentJSON) { d.Slot = (d.Slot + 1) % len(d.Leaves) },
		"another inner id": func(d *pipeline.DeploymentJSON) { d.InnerModelID = "0x1" },
		"another model":    func(d *pipeline.DeploymentJSON) { d.ModelDigest = "0x1" },
	} {
		var d pipeline.DeploymentJSON
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		change(&d)
		rewrite(pipeline.DeploymentFile, d)
		refused(name)
	}
}
