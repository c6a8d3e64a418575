package setup

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/backend/groth16"
	groth16bls12377 "github.com/consensys/gnark/backend/groth16/bls12-377"
	groth16bn254 "github.com/consensys/gnark/backend/groth16/bn254"
	groth16bw6761 "github.com/consensys/gnark/backend/groth16/bw6-761"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"
	"github.com/consensys/gnark/std/rangecheck"
)

// devCircuit has public inputs, private wires, coefficients of every
// kind (1, −1, 2 and others), a commitment to a private and a public
// value, and range checks (a second commitment, gnark's).
type devCircuit struct {
	X, Y    frontend.Variable `gnark:",public"`
	A, B, C frontend.Variable
}

func (c *devCircuit) Define(api frontend.API) error {
	p := api.Mul(c.A, c.B)
	q := api.Add(api.Mul(p, 3), api.Mul(c.C, -1), api.Mul(c.A, 2), api.Mul(c.B, 1234567))
	api.AssertIsEqual(q, c.X)
	cm, err := api.Compiler().(frontend.Committer).Commit(c.A, c.X)
	if err != nil {
		return err
	}
	api.AssertIsDifferent(cm, 0)
	api.AssertIsEqual(api.Mul(c.C, c.C), api.Add(c.Y, 7))
	rangecheck.New(api).Check(c.B, 8)
	return nil
}

// devAssignment solves devCircuit.
func devAssignment() *devCircuit {
	return &devCircuit{X: 3*10 - 4 + 4 + 5*1234567, Y: 9, A: 2, B: 5, C: 4}
}

// keyLayout is what a key pair's layout is made of: the lengths of its
// lists, the points at infinity, the commitments' wires.
type keyLayout struct {
	A, B, Z, K, G2B, VKK, Commitments int
	InfinityA, InfinityB              []bool
	NbInfinityA, NbInfinityB          uint64
	Committed                         [][]int
	Domain                            uint64
}

func layoutOf(t *testing.T, pk groth16.ProvingKey, vk groth16.VerifyingKey) keyLayout {
	t.Helper()
	switch pk := pk.(type) {
	case *groth16bn254.ProvingKey:
		vk := vk.(*groth16bn254.VerifyingKey)
		return keyLayout{len(pk.G1.A), len(pk.G1.B), len(pk.G1.Z), len(pk.G1.K), len(pk.G2.B), len(vk.G1.K), len(pk.CommitmentKeys),
			pk.InfinityA, pk.InfinityB, pk.NbInfinityA, pk.NbInfinityB, vk.PublicAndCommitmentCommitted, pk.Domain.Cardinality}
	case *groth16bls12377.ProvingKey:
		vk := vk.(*groth16bls12377.VerifyingKey)
		return keyLayout{len(pk.G1.A), len(pk.G1.B), len(pk.G1.Z), len(pk.G1.K), len(pk.G2.B), len(vk.G1.K), len(pk.CommitmentKeys),
			pk.InfinityA, pk.InfinityB, pk.NbInfinityA, pk.NbInfinityB, vk.PublicAndCommitmentCommitted, pk.Domain.Cardinality}
	case *groth16bw6761.ProvingKey:
		vk := vk.(*groth16bw6761.VerifyingKey)
		return keyLayout{len(pk.G1.A), len(pk.G1.B), len(pk.G1.Z), len(pk.G1.K), len(pk.G2.B), len(vk.G1.K), len(pk.CommitmentKeys),
			pk.InfinityA, pk.InfinityB, pk.NbInfinityA, pk.NbInfinityB, vk.PublicAndCommitmentCommitted, pk.Domain.Cardinality}
	}
	t.Fatalf("a proving key %T", pk)
	return keyLayout{}
}

// TestDevelopmentSetup: on every curve, the development keys have the
// layout of groth16.Setup's on the same circuit; a proof made with them
// verifies, and not on a changed public input, nor with a changed proof
// point.
func TestDevelopmentSetup(t *testing.T) {
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377, ecc.BW6_761} {
		t.Run(curve.String(), func(t *testing.T) {
			ccs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &devCircuit{})
			if err != nil {
				t.Fatal(err)
			}
			pk, vk, err := developmentSetup(ccs)
			if err != nil {
				t.Fatal(err)
			}
			gpk, gvk, err := groth16.Setup(ccs)
			if err != nil {
				t.Fatal(err)
			}
			got, want := layoutOf(t, pk, vk), layoutOf(t, gpk, gvk)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("layout %+v, groth16.Setup's %+v", got, want)
			}
			if got.Commitments != 2 || got.NbInfinityA == 0 || len(got.Committed[0]) == 0 {
				t.Fatalf("the circuit does not exercise the layout: %+v", got)
			}
			if err := CheckPair(pk, vk); err != nil {
				t.Fatal(err)
			}
			full, err := frontend.NewWitness(devAssignment(), curve.ScalarField())
			if err != nil {
				t.Fatal(err)
			}
			public, err := full.Public()
			if err != nil {
				t.Fatal(err)
			}
			proof, err := groth16.Prove(ccs, pk, full)
			if err != nil {
				t.Fatal(err)
			}
			if err := groth16.Verify(proof, vk, public); err != nil {
				t.Fatalf("honest proof refused: %v", err)
			}
			wrong := devAssignment()
			wrong.Y = 10
			wrongPublic, err := frontend.NewWitness(wrong, curve.ScalarField(), frontend.PublicOnly())
			if err != nil {
				t.Fatal(err)
			}
			if groth16.Verify(proof, vk, wrongPublic) == nil {
				t.Fatal("the proof verifies on a changed public input")
			}
			// gnark's keys do not verify this proof: the keys are the
			// development setup's own.
			if groth16.Verify(proof, gvk, public) == nil {
				t.Fatal("groth16.Setup's key verifies the development key's proof")
			}
		})
	}
}

// TestDevelopmentSetupTampered: a proof of the development keys with any
// of its points changed is refused (BN254, the curve verified on chain).
func TestDevelopmentSetupTampered(t *testing.T) {
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &devCircuit{})
	if err != nil {
		t.Fatal(err)
	}
	pk, vk, err := developmentSetup(ccs)
	if err != nil {
		t.Fatal(err)
	}
	full, err := frontend.NewWitness(devAssignment(), ecc.BN254.ScalarField())
	if err != nil {
		t.Fatal(err)
	}
	public, _ := full.Public()
	proof, err := groth16.Prove(ccs, pk, full)
	if err != nil {
		t.Fatal(err)
	}
	p := proof.(*groth16bn254.Proof)
	for name, point := range map[string]func() (undo func()){
		"Ar": func() func() {
			saved := p.Ar
			p.Ar.Add(&p.Ar, &p.Ar)
			return func() { p.Ar = saved }
		},
		"Krs": func() func() {
			saved := p.Krs
			p.Krs.Add(&p.Krs, &p.Ar)
			return func() { p.Krs = saved }
		},
		"Bs": func() func() {
			saved := p.Bs
			p.Bs.Add(&p.Bs, &p.Bs)
			return func() { p.Bs = saved }
		},
		"a commitment": func() func() {
			saved := slices.Clone(p.Commitments)
			p.Commitments[1].Add(&p.Commitments[1], &p.Ar)
			return func() { p.Commitments = saved }
		},
		"the proof of knowledge": func() func() {
			saved := p.CommitmentPok
			p.CommitmentPok.Add(&p.CommitmentPok, &p.Ar)
			return func() { p.CommitmentPok = saved }
		},
	} {
		undo := point()
		if groth16.Verify(p, vk, public) == nil {
			t.Errorf("%s changed: accepted", name)
		}
		undo()
	}
	if err := groth16.Verify(p, vk, public); err != nil {
		t.Fatalf("the restored proof: %v", err)
	}
}

// TestBitReverse checks the permutation on 8 and 1 elements.
func TestBitReverse(t *testing.T) {
	a := []int{0, 1, 2, 3, 4, 5, 6, 7}
	bitReverse(a)
	if want := []int{0, 4, 2, 6, 1, 5, 3, 7}; !slices.Equal(a, want) {
		t.Errorf("got %v, want %v", a, want)
	}
	one := []int{9}
	bitReverse(one)
	if one[0] != 9 {
		t.Error("one element moved")
	}
}

// BenchmarkDevelopmentSetup compares the development setup with
// groth16.Setup on a circuit of 2^15 multiplications, per curve.
func BenchmarkDevelopmentSetup(b *testing.B) {
	for _, curve := range []ecc.ID{ecc.BN254, ecc.BLS12_377, ecc.BW6_761} {
		ccs, err := frontend.Compile(curve.ScalarField(), r1cs.NewBuilder, &chainCircuit{N: 1 << 15})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/comb", curve), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := developmentSetup(ccs); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("%s/gnark", curve), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := groth16.Setup(ccs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// chainCircuit squares its input N times.
type chainCircuit struct {
	X frontend.Variable `gnark:",public"`
	Y frontend.Variable
	N int `gnark:"-"`
}

func (c *chainCircuit) Define(api frontend.API) error {
	x := c.Y
	for range c.N {
		x = api.Mul(x, x)
	}
	api.AssertIsEqual(x, c.X)
	return nil
}
