package main

import (
	"bytes"
	"context"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	bls12377 "github.com/consensys/gnark-crypto/ecc/bls12-377"
	"github.com/consensys/gnark/backend/groth16"
	mpcbls12377 "github.com/consensys/gnark/backend/groth16/bls12-377/mpcsetup"
	"github.com/consensys/gnark/constraint"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pipeline"
	"github.com/veriformer/veriformer/setup"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// statementCircuit has the one public input of every final circuit (the
// statement digest, see statement.Digest) and, like the direct circuit,
// one Pedersen commitment, so the ceremony's commitment keys are
// exercised. Its witness is the digest itself.
type statementCircuit struct {
	Digest frontend.Variable `gnark:",public"`
	Secret frontend.Variable
}

func (c *statementCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(api.Mul(c.Secret, c.Secret), api.Mul(c.Digest, c.Digest))
	commitment, err := api.(frontend.Committer).Commit(c.Secret)
	if err != nil {
		return err
	}
	api.AssertIsDifferent(commitment, 0)
	return nil
}

// otherCircuit has the same public inputs and size and another relation.
type otherCircuit struct {
	Digest frontend.Variable `gnark:",public"`
	Secret frontend.Variable
}

func (c *otherCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(api.Mul(c.Secret, c.Secret), api.Mul(c.Digest, c.Digest, 2))
	commitment, err := api.(frontend.Committer).Commit(c.Secret)
	if err != nil {
		return err
	}
	api.AssertIsDifferent(commitment, 0)
	return nil
}

func compileSmall(c frontend.Circuit) func(*circuitFlags) (constraint.ConstraintSystem, string, error) {
	return func(*circuitFlags) (constraint.ConstraintSystem, string, error) {
		ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, c)
		return ccs, "test circuit", err
	}
}

func init() {
	targets["test"] = target{ecc.BN254, compileSmall(&statementCircuit{})}
	targets["test-other"] = target{ecc.BN254, compileSmall(&otherCircuit{})}
}

// cmd runs the command with args and returns its output.
func cmd(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(args, strings.NewReader(stdin), &out)
	return out.String(), err
}

func mustCmd(t *testing.T, args ...string) string {
	t.Helper()
	out, err := cmd(t, "", args...)
	if err != nil {
		t.Fatalf("ceremony %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

var hashPattern = regexp.MustCompile(`contribution hash (sha256:[0-9a-f]{64})`)

// contribution runs a contribute command and returns the hash it printed.
func contribution(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, err := cmd(t, stdin, args...)
	if err != nil {
		t.Fatalf("ceremony %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	m := hashPattern.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no contribution hash in %q", out)
	}
	return m[1]
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// TestCeremony runs a three-contributor ceremony for a small BN254 circuit
// through the command, seals its keys into a cache, proves with them and
// verifies the proof natively and on the simulated chain; then checks that
// verify refuses a tampered, a skipped and a wrong-circuit contribution.
func TestCeremony(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ceremony")
	mustCmd(t, "phase1", "new", "--dir", dir, "--circuit", "test")
	entropy := filepath.Join(t.TempDir(), "entropy")
	if err := os.WriteFile(entropy, []byte("dice rolls: 3 1 4 1 5 9 2 6"), 0o600); err != nil {
		t.Fatal(err)
	}
	var hashes []string
	hashes = append(hashes, contribution(t, "", "phase1", "contribute", "--dir", dir))
	hashes = append(hashes, contribution(t, "", "phase1", "contribute", "--dir", dir, "--entropy-file", entropy))
	hashes = append(hashes, contribution(t, "typed at the keyboard", "phase1", "contribute", "--dir", dir, "--entropy-file", "-"))
	if _, err := cmd(t, "", "phase2", "new", "--dir", dir, "--circuit", "test"); err == nil {
		t.Fatal("phase 2 started before phase 1 was sealed")
	}
	mustCmd(t, "beacon", "--dir", dir, "--phase", "1", "--value", "0x5eed0001")
	if _, err := cmd(t, "", "phase1", "contribute", "--dir", dir); err == nil {
		t.Fatal("contribution accepted after the beacon")
	}
	mustCmd(t, "phase1", "verify", "--dir", dir)
	// The same phase 1 serves another circuit's phase 2, for the
	// wrong-circuit case below.
	otherDir := filepath.Join(t.TempDir(), "other")
	copyDir(t, dir, otherDir)

	mustCmd(t, "phase2", "new", "--dir", dir, "--circuit", "test")
	for range 3 {
		hashes = append(hashes, contribution(t, "", "phase2", "contribute", "--dir", dir))
	}
	mustCmd(t, "beacon", "--dir", dir, "--phase", "2", "--value", "5eed0002")
	out := mustCmd(t, "phase2", "verify", "--dir", dir, "--circuit", "test")
	for _, h := range hashes {
		if !strings.Contains(out, h) {
			t.Errorf("verify does not print the contribution hash %s:\n%s", h, out)
		}
	}

	// Seal into a cache; the keys load as ceremony keys and prove.
	cache := t.TempDir()
	mustCmd(t, "seal", "--dir", dir, "--circuit", "test", "--cache", cache)
	ccs, _, err := compileSmall(&statementCircuit{})(nil)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	keys, err := setup.LoadOrSetup(ccs, cache, setup.WithKind(setup.Ceremony), setup.WithLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "ceremony keys") {
		t.Errorf("the load does not say it used ceremony keys: %q", log.String())
	}
	if got := keys.Manifest.Ceremony; got == nil || len(got.Phase1) != 3 || len(got.Phase2) != 3 || got.Phase2[2] != hashes[5] {
		t.Errorf("the manifest does not record the transcript: %+v", got)
	}
	proveOnChain(t, ccs, keys)

	// Refusals. Each case starts from a copy of the honest ceremony.
	variant := func(change func(d string)) string {
		d := filepath.Join(t.TempDir(), "variant")
		copyDir(t, dir, d)
		change(d)
		return d
	}
	flip := func(path string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		data[len(data)/2] ^= 1
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustCmd(t, "phase2", "new", "--dir", otherDir, "--circuit", "test-other")
	contribution(t, "", "phase2", "contribute", "--dir", otherDir)
	for name, change := range map[string]func(d string){
		"tampered phase-1 contribution": func(d string) { flip(filepath.Join(d, "phase1", "0002.bin")) },
		"tampered phase-2 contribution": func(d string) { flip(filepath.Join(d, "phase2", "0002.bin")) },
		"skipped phase-1 contribution": func(d string) {
			os.Remove(filepath.Join(d, "phase1", "0002.bin"))
			os.Rename(filepath.Join(d, "phase1", "0003.bin"), filepath.Join(d, "phase1", "0002.bin"))
		},
		"skipped phase-2 contribution": func(d string) {
			os.Remove(filepath.Join(d, "phase2", "0002.bin"))
			os.Rename(filepath.Join(d, "phase2", "0003.bin"), filepath.Join(d, "phase2", "0002.bin"))
		},
		"missing phase-2 contribution": func(d string) { os.Remove(filepath.Join(d, "phase2", "0002.bin")) },
		"contribution on the wrong circuit": func(d string) {
			data, err := os.ReadFile(filepath.Join(otherDir, "phase2", "0001.bin"))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(d, "phase2", "0001.bin"), data, 0o644)
		},
		"oversized phase-2 file": func(d string) {
			os.WriteFile(filepath.Join(d, "phase2", "0002.bin"), make([]byte, 10<<20), 0o644)
		},
		"another beacon": func(d string) {
			os.WriteFile(filepath.Join(d, "phase1", "beacon"), []byte("5eed0003\n"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			d := variant(change)
			out, err := cmd(t, "", "phase2", "verify", "--dir", d, "--circuit", "test")
			if err == nil {
				t.Fatalf("verify accepts it:\n%s", out)
			}
			t.Log(err)
			if _, err := cmd(t, "", "seal", "--dir", d, "--circuit", "test", "--cache", t.TempDir()); err == nil {
				t.Fatal("seal accepts it")
			}
		})
	}
	if _, err := cmd(t, "", "phase2", "verify", "--dir", dir, "--circuit", "test-other"); err == nil {
		t.Error("verify accepts the ceremony for another circuit")
	}
}

// proveOnChain proves with the sealed keys and verifies the proof natively
// and through the exported Solidity verifier on the simulated chain.
func proveOnChain(t *testing.T, ccs constraint.ConstraintSystem, keys *setup.Keys) {
	t.Helper()
	digest, err := statement.Statement{ModelID: big.NewInt(5), InputDigest: big.NewInt(7), OutputDigest: big.NewInt(4)}.Digest()
	if err != nil {
		t.Fatal(err)
	}
	assignment := &statementCircuit{Digest: digest, Secret: digest}
	w, err := frontend.NewWitness(assignment, ecc.BN254.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	proof, err := groth16.Prove(ccs, keys.PK, w, solidity.ProverOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	public, err := w.Public()
	if err != nil {
		t.Fatal(err)
	}
	if err := groth16.Verify(proof, keys.VK, public, solidity.VerifierOptions()...); err != nil {
		t.Fatalf("native verification: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	contracts, err := solidity.CompileContracts(ctx, keys.VK)
	if err != nil {
		t.Fatal(err)
	}
	chain, sim, err := pipeline.SimulatedChain()
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	d, err := chain.DeployVerifierAndRegistry(ctx, contracts, big.NewInt(5))
	if err != nil {
		t.Fatal(err)
	}
	st := statement.Statement{ModelID: big.NewInt(5), InputDigest: big.NewInt(7), OutputDigest: big.NewInt(4)}
	if _, err := chain.Submit(ctx, d.Registry, proof, st.List()); err != nil {
		t.Fatalf("on-chain verification: %v", err)
	}
	ok, err := solidity.IsVerified(ctx, chain.Backend(), d.Registry, st.List(), 0)
	if err != nil || !ok {
		t.Fatalf("the registry did not record the inference (%v)", err)
	}
	bad := st
	bad.OutputDigest = big.NewInt(5)
	if _, err := chain.Submit(ctx, d.Registry, proof, bad.List()); err == nil {
		t.Fatal("the chain accepts the proof for another statement")
	}
}

// TestSRS runs a BLS12-377 phase 1 with two contributors and seals it into
// an SRS file: gnark's SrsCommons, whose powers of τ in G1 and [τ]₂ pass
// the pairing check e([τⁱ⁺¹]₁, [1]₂) = e([τⁱ]₁, [τ]₂).
func TestSRS(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "srs")
	mustCmd(t, "phase1", "new", "--dir", dir, "--circuit", "srs", "--power", "3")
	contribution(t, "", "phase1", "contribute", "--dir", dir)
	contribution(t, "", "phase1", "contribute", "--dir", dir)
	out := filepath.Join(t.TempDir(), "srs.bin")
	if _, err := cmd(t, "", "seal", "--dir", dir, "--circuit", "srs", "--out", out); err == nil {
		t.Fatal("SRS sealed without a beacon")
	}
	mustCmd(t, "beacon", "--dir", dir, "--phase", "1", "--value", "01")
	mustCmd(t, "seal", "--dir", dir, "--circuit", "srs", "--out", out)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var srs mpcbls12377.SrsCommons
	if _, err := srs.ReadFrom(f); err != nil {
		t.Fatal(err)
	}
	if len(srs.G1.Tau) != 2*8-1 || len(srs.G2.Tau) != 8 {
		t.Fatalf("SRS with %d G1 and %d G2 powers, want 15 and 8", len(srs.G1.Tau), len(srs.G2.Tau))
	}
	_, _, g1, g2 := bls12377.Generators()
	if !srs.G1.Tau[0].Equal(&g1) || !srs.G2.Tau[0].Equal(&g2) || srs.G1.Tau[1].Equal(&g1) {
		t.Fatal("the SRS does not start with the generators or τ = 1")
	}
	for i := 0; i+1 < len(srs.G1.Tau); i++ {
		var negTau bls12377.G2Affine
		negTau.Neg(&srs.G2.Tau[1])
		ok, err := bls12377.PairingCheck([]bls12377.G1Affine{srs.G1.Tau[i+1], srs.G1.Tau[i]}, []bls12377.G2Affine{g2, negTau})
		if err != nil || !ok {
			t.Fatalf("power %d of τ is not the previous times τ", i+1)
		}
	}
	// A BN254 ceremony is not a BLS12-377 SRS.
	bn := filepath.Join(t.TempDir(), "bn")
	mustCmd(t, "phase1", "new", "--dir", bn, "--curve", "bn254", "--power", "2")
	contribution(t, "", "phase1", "contribute", "--dir", bn)
	mustCmd(t, "beacon", "--dir", bn, "--phase", "1", "--value", "01")
	if _, err := cmd(t, "", "seal", "--dir", bn, "--circuit", "srs", "--out", filepath.Join(t.TempDir(), "x")); err == nil {
		t.Fatal("a BN254 phase 1 sealed as the BLS12-377 SRS")
	}
}

// TestTargetsCoverCatalog: every circuit of every deployment kind's
// catalog (pipeline.Circuits, which prove, --plan and export use) —
// requests in both designs, a conversation's turns (--capacity), a
// batch's requests (--batch-slots), a mixed list's requests and turns
// (--capacity with --mix) — is a target of the ceremony on the
// same curve; for the turn's and the batch's, the ceremony's flags
// compile the catalog's very segment circuit (the same circuit hash),
// and every aggregated kind has the one wrapper.
func TestTargetsCoverCatalog(t *testing.T) {
	m, err := model.Builtin(model.Micro)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	kinds := []struct {
		name   string
		design pipeline.Design
		args   []string
		set    func(*pipeline.AggregatedOptions)
	}{
		{"direct request", pipeline.Direct, nil, func(*pipeline.AggregatedOptions) {}},
		{"request", pipeline.Aggregated, nil, func(*pipeline.AggregatedOptions) {}},
		{"turn", pipeline.Aggregated, []string{"--capacity", "8"}, func(o *pipeline.AggregatedOptions) { o.Capacity = 8 }},
		{"batch", pipeline.Aggregated, []string{"--batch-slots", "2", "--bucket", "4"}, func(o *pipeline.AggregatedOptions) { o.Slots, o.Bucket = 2, 4 }},
		{"mixed list", pipeline.Aggregated, []string{"--capacity", "8", "--mix", "2,1"}, func(o *pipeline.AggregatedOptions) {
			o.Capacity, o.Mix, o.MixedList = 8, &pipeline.Mix{Requests: 2, Turns: 1}, true
		}},
	}
	for _, k := range kinds {
		opts := pipeline.AggregatedOptions{Options: pipeline.Options{Model: m, Tokens: 2, CacheDir: cache}, Wrap: true}
		k.set(&opts)
		cat, err := pipeline.Circuits(k.design, opts, 2)
		if err != nil {
			t.Fatalf("%s: %v", k.name, err)
		}
		wrappers := 0
		for _, c := range cat.Circuits {
			target, ok := targets[c.Kind]
			if !ok || target.compile == nil || target.curve != c.Curve {
				t.Errorf("%s: %s circuit on %s has no ceremony target", k.name, c.Kind, c.Curve)
			}
			if c.Kind == "wrapper" {
				wrappers++
			}
		}
		if k.design == pipeline.Aggregated && wrappers != 1 {
			t.Errorf("%s: %d wrappers in the catalog, want the one", k.name, wrappers)
		}
		if k.args == nil {
			continue
		}
		// The ceremony names the kind's segment circuit with its flags.
		var seg *pipeline.Circuit
		for _, c := range cat.Circuits {
			if c.Kind == "segment" {
				seg = c
				break
			}
		}
		want, err := seg.Compile()
		if err != nil {
			t.Fatal(err)
		}
		fs := flag.NewFlagSet("ceremony", flag.ContinueOnError)
		f := addCircuitFlags(fs)
		if err := fs.Parse(append([]string{"--circuit", "segment", "--model", "micro", "--prompt-tokens", "2", "--tokens", "2"}, k.args...)); err != nil {
			t.Fatal(err)
		}
		got, _, err := targets["segment"].compile(f)
		if err != nil {
			t.Fatalf("%s: the ceremony's segment: %v", k.name, err)
		}
		gh, err := setup.CircuitHash(got)
		if err != nil {
			t.Fatal(err)
		}
		wh, err := setup.CircuitHash(want)
		if err != nil {
			t.Fatal(err)
		}
		if gh != wh {
			t.Errorf("%s: the ceremony's segment circuit %.16s, the catalog's %.16s", k.name, gh, wh)
		}
	}
}

// TestAggregatorNeedsSRS: production keys of an aggregator are made
// over the SRS of a ceremony only, never over a development one.
func TestAggregatorNeedsSRS(t *testing.T) {
	_, err := cmd(t, "", "phase1", "new", "--dir", t.TempDir(), "--circuit", "aggregator", "--model", "micro", "--prompt-tokens", "2", "--tokens", "2")
	if err == nil || !strings.Contains(err.Error(), "--srs") {
		t.Fatalf("an aggregator's ceremony without --srs: %v", err)
	}
}
