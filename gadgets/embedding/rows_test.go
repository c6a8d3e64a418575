package embedding

import (
	"testing"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/test"
)

const rowsVocab, rowsDim = 5, 4

var (
	rowsTable = []int64{
		1, -2, 3, 0,
		4, 5, -6, 7,
		0, 0, 0, 0,
		-8, 9, 10, -11,
		12, -13, 0, 14,
	}
	rowsPos = []int64{
		1, 0, -1, 2,
		0, 3, 0, -4,
		5, 0, 0, 0,
	}
)

type rowsCircuit struct {
	Tokens []frontend.Variable
	X      []frontend.Variable
	Gamma  frontend.Variable
}

func (c *rowsCircuit) Define(api frontend.API) error {
	return CheckRows(api, rowsTable, rowsVocab, rowsDim, rowsPos, c.Tokens, c.X, c.Gamma)
}

// rowsAssignment returns x[r] = E[tokens[r]] + pos[r].
func rowsAssignment(tokens []int) *rowsCircuit {
	a := &rowsCircuit{Gamma: 123456789}
	for r, tok := range tokens {
		a.Tokens = append(a.Tokens, tok)
		for j := range rowsDim {
			a.X = append(a.X, rowsTable[tok*rowsDim+j]+rowsPos[r*rowsDim+j])
		}
	}
	return a
}

func TestCheckRows(t *testing.T) {
	assert := test.NewAssert(t)
	tokens := []int{3, 0, 3}
	placeholder := &rowsCircuit{Tokens: make([]frontend.Variable, 3), X: make([]frontend.Variable, 3*rowsDim)}
	opts := []test.TestingOption{test.WithValidAssignment(rowsAssignment(tokens)), test.WithCurves(ecc.BN254, ecc.BLS12_377), test.NoFuzzing(), test.NoSerializationChecks()}

	for i := range 3 * rowsDim {
		bad := rowsAssignment(tokens)
		bad.X[i] = bad.X[i].(int64) + 1
		opts = append(opts, test.WithInvalidAssignment(bad))
	}
	wrongToken := rowsAssignment(tokens)
	wrongToken.Tokens[1] = 4
	swapped := rowsAssignment(tokens)
	swapped.Tokens[0], swapped.Tokens[1] = 0, 3
	outside := rowsAssignment([]int{3, 2, 3})
	outside.Tokens[1] = rowsVocab // the row of zeros plus pos, at an index past the table
	zeros := rowsAssignment([]int{3, 2, 3})
	zeros.Tokens[1] = 2 // honest: token 2 is the row of zeros
	opts = append(opts, test.WithInvalidAssignment(wrongToken), test.WithInvalidAssignment(swapped), test.WithInvalidAssignment(outside), test.WithValidAssignment(zeros))
	assert.CheckCircuit(placeholder, opts...)
}

func TestCheckRowsShapes(t *testing.T) {
	api := &shapeOnly{}
	x := make([]frontend.Variable, rowsDim)
	tok := []frontend.Variable{0}
	for name, err := range map[string]error{
		"table size": CheckRows(api, rowsTable[:4], rowsVocab, rowsDim, nil, tok, x, 2),
		"row width":  CheckRows(api, rowsTable, rowsVocab, rowsDim, nil, tok, x[:3], 2),
		"offsets":    CheckRows(api, rowsTable, rowsVocab, rowsDim, rowsPos, tok, x, 2),
	} {
		if err == nil {
			t.Errorf("CheckRows accepts a wrong %s", name)
		}
	}
}

// shapeOnly is an API that must not be used: the shape checks fail first.
type shapeOnly struct{ frontend.API }
