//go:build full

package recursion

import (
	"encoding/csv"
	"math/big"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"

	"github.com/veriformer/veriformer/setup"
	stmt "github.com/veriformer/veriformer/statement"
)

// The tests of this file compile, solve, set up, prove and verify the BN254
// wrapper: minutes and ~10 GB for the first, the first time about 41
// minutes and 14 GB on 2 shared cores for the second (the keys are then
// cached). Run them with
//
//	go test -tags full ./recursion -run 'TestWrapperCircuit|TestWrapperProve' -timeout 180m -v

var (
	wrapperOnce sync.Once
	wrapperCCS  constraint.ConstraintSystem
	wrapperErr  error
)

// getWrapperCCS compiles the wrapper once per test binary.
func getWrapperCCS(t *testing.T, nbCommitments int) constraint.ConstraintSystem {
	t.Helper()
	wrapperOnce.Do(func() {
		start := time.Now()
		wrapperCCS, wrapperErr = CompileWrapper(nbCommitments)
		if wrapperErr == nil {
			t.Logf("wrapper: %d constraints, compiled in %v", wrapperCCS.GetNbConstraints(), time.Since(start))
		}
	})
	if wrapperErr != nil {
		t.Fatal(wrapperErr)
	}
	return wrapperCCS
}

// TestWrapperCircuit compiles the wrapper, checks its size and solves it on
// honest and dishonest witnesses.
func TestWrapperCircuit(t *testing.T) {
	f := getFixture(t)
	a := getAggregated(t)
	ccs := getWrapperCCS(t, AggregatorCommitments(f.aggregator.CCS))
	checkCount(t, "wrapper", ccs.GetNbConstraints())

	assignment, _, err := WrapperAssignment(a.proof, f.aggregator.VK, a.list, a.deployment, a.slot)
	if err != nil {
		t.Fatal(err)
	}
	solve := func(w *Wrapper) error {
		full, err := frontend.NewWitness(w, ecc.BN254.ScalarField())
		if err != nil {
			return err
		}
		return ccs.IsSolved(full)
	}
	start := time.Now()
	if err := solve(assignment); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrapper solved in %v", time.Since(start))
	for name, tamper := range map[string]func(*Wrapper){
		"final model id": func(w *Wrapper) { w.ModelID = w.InnerModelID },
		"list digest":    func(w *Wrapper) { w.ListDigest = 1 },
		"inner model id": func(w *Wrapper) { w.InnerModelID = 1 },
		"statement digest": func(w *Wrapper) {
			w.StatementDigest = new(big.Int).Add(w.StatementDigest.(*big.Int), big.NewInt(1))
		},
	} {
		bad := *assignment
		tamper(&bad)
		if err := solve(&bad); err == nil {
			t.Errorf("wrapper accepts a wrong %s", name)
		}
	}
}

// TestWrapperProve sets the wrapper up (DEVELOPMENT ONLY keys, cached),
// proves an aggregator proof with Wrap and verifies the result.
func TestWrapperProve(t *testing.T) {
	f := getFixture(t)
	a := getAggregated(t)
	ccs := getWrapperCCS(t, AggregatorCommitments(f.aggregator.CCS))
	_, final, err := WrapperAssignment(a.proof, f.aggregator.VK, a.list, a.deployment, a.slot)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := setup.DefaultCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	keys, err := setup.LoadOrSetup(ccs, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrapper keys (setup or cache) in %v", time.Since(start))
	start = time.Now()
	proof, got, err := Wrap(a.proof, f.aggregator.VK, a.list, a.deployment, a.slot, keys)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrapper proved and verified in %v", time.Since(start))
	if gd, _ := got.Digest(); gd == nil || gd.Cmp(mustDigest(t, final)) != 0 {
		t.Fatalf("Wrap states %v, want %v", got, final)
	}
	bad := final
	bad.Leaves = bad.Leaves[1:]
	if err := VerifyWrapped(proof, keys.VK, bad); err == nil {
		t.Fatal("wrapper proof verifies for another list")
	}
}

// checkCount compares a constraint count with its snapshot in
// testdata/constraints.csv (columns: circuit, constraints).
func checkCount(t *testing.T, circuit string, got int) {
	t.Helper()
	f, err := os.Open("testdata/constraints.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if row[0] != circuit {
			continue
		}
		want, err := strconv.Atoi(row[1])
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: %d constraints, snapshot says %d", circuit, got, want)
		}
		return
	}
	t.Errorf("%s: no snapshot (%d constraints)", circuit, got)
}

func mustDigest(t *testing.T, l stmt.List) *big.Int {
	t.Helper()
	d, err := l.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
