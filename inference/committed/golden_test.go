package committed

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/big"
	"testing"

	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/internal/snapshot"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
)

var updateGolden = flag.Bool("committed.golden", false, "rewrite testdata/golden.csv from fresh proofs")

// TestGoldenProofs proves both segments of the built-in model over 5 rows
// under the SRS of a fixed τ, with the limb rows kept in the field and
// with them generated (dropLimbVars lowered), and compares the SHA-256
// of each encoded proof with testdata/golden.csv. A prover change that
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
	segs := []inference.Segment{{From: 0, To: 1}, {From: 1, To: 2}}
	rows := [][]string{{"segment", "limb rows dropped from (variables)", "sha256"}}
	digests := map[inference.Segment][]string{}
	for _, drop := range []int{saved, 1} {
		dropLimbVars = drop
		for _, seg := range segs {
			proof, _, err := Prove(srs, f.m, f.st, f.pass, f.tr, seg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := proof.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			digest := hex.EncodeToString(sum[:])
			digests[seg] = append(digests[seg], digest)
			rows = append(rows, []string{fmt.Sprintf("%d-%d", seg.From, seg.To), fmt.Sprint(drop), digest})
		}
	}
	// The proofs do not depend on where the limb rows live.
	for _, seg := range segs {
		if d := digests[seg]; d[0] != d[1] {
			t.Errorf("segment %v: the proofs with the limb rows kept and generated differ", seg)
		}
	}
	snapshot.CheckCSV(t, "testdata/golden.csv", rows, *updateGolden)
}
