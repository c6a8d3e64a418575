package inference

import (
	"errors"
	"testing"

	bn254fr "github.com/consensys/gnark-crypto/ecc/bn254/fr"

	"github.com/veriformer/veriformer/internal/headshapes"
	"github.com/veriformer/veriformer/model"
)

// TestPaddedHeads proves and verifies a request of each padded head
// layout (Qwen2.5's group of 7, Qwen2's 6, Phi-3's head dimension 96, a
// group of 3 with head dimension 10, and every dimension padded at once);
// a nonzero query or rotated query in a padding column, and a changed
// context of a padding head, are rejected.
func TestPaddedHeads(t *testing.T) {
	for _, s := range headshapes.All() {
		t.Run(s.Name, func(t *testing.T) {
			m, err := s.Model()
			if err != nil {
				t.Fatal(err)
			}
			st, req, tr, proof := proveModel[bn254fr.Element](t, m, []int{5, 9, 2}, 3, 8)
			if err := Verify[bn254fr.Element](m, st, req, proof); err != nil {
				t.Fatalf("honest proof rejected: %v", err)
			}
			ly := &tr.Layers[0]
			col, err := headshapes.PaddingColumn(&m.Config)
			if err != nil {
				t.Fatal(err)
			}
			hl := m.Config.HeadLayout()
			padHead := -1
			if hl.Group > m.Config.Heads/m.Config.KVHeads {
				padHead = (hl.Group - 1) * hl.HeadDim
			}
			index := Index(tr)
			for _, c := range []struct {
				name string
				t    *model.Tensor
				col  int
			}{{"query", &ly.Q.Out, col}, {"rotated query", &ly.RopeQ.Out, col}, {"padding head's context", &ly.Attention.Context.Out, padHead}} {
				if c.col < 0 {
					continue
				}
				v := proof.Tensors[index[c.t]]
				v[c.col]++
				if err := Verify[bn254fr.Element](m, st, req, proof); !errors.Is(err, ErrRejected) {
					t.Errorf("%s changed in column %d: %v", c.name, c.col, err)
				}
				v[c.col]--
			}
		})
	}
}
