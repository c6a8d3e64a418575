package committed

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
)

var updateGolden = flag.Bool("committed.golden", false, "rewrite testdata/golden.txt from fresh proofs")

// TestGoldenProofs proves both segments of the built-in model over 5 rows
// under the SRS of a fixed τ, with the limb rows kept in the field and
// with them generated (dropLimbVars lowered), and compares the SHA-256
// of each encoded proof with testdata/golden.txt. A prover change that
// claims to keep the proofs (a memory layout, a kernel) must pass it
// unchanged; one that changes them rewrites it (-committed.golden) and
// says why.
func TestGoldenProofs(t *testing.T) {
	srs, err := pcs.NewSRSOfTau(1<<18, big.NewInt(123456789))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, model.Default(), 5)
	saved := dropLimbVars
	defer func() { dropLimbVars = saved }()
	var lines []string
	for _, drop := range []int{saved, 1} {
		dropLimbVars = drop
		for _, seg := range []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}} {
			proof, _, err := Prove(srs, f.m, f.st, f.pass, f.tr, seg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := proof.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			lines = append(lines, fmt.Sprintf("segment %d-%d, limb rows dropped from 2^%d entries: %s", seg.From, seg.To, drop, hex.EncodeToString(sum[:])))
		}
	}
	// The proofs do not depend on where the limb rows live.
	for k := range 2 {
		if a, b := lines[k][strings.LastIndex(lines[k], " "):], lines[k+2][strings.LastIndex(lines[k+2], " "):]; a != b {
			t.Errorf("segment %d: the proofs with the limb rows kept and generated differ", k)
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	const path = "testdata/golden.txt"
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("the proofs differ from %s:\ngot\n%swant\n%s", path, got, want)
	}
}
