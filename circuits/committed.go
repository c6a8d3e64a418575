package circuits

import (
	"fmt"

	"github.com/consensys/gnark/frontend"

	gcommitted "github.com/veriformer/veriformer/gadgets/committed"
	gstatement "github.com/veriformer/veriformer/gadgets/statement"
	native "github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/pcs"
	"github.com/veriformer/veriformer/statement"
)

// Committed is the aggregated design's segment circuit, over BLS12-377: it
// verifies one segment's committed proof of model m, the field part of
// its verifier entirely (gadgets/committed.VerifySegment), with the
// model's weights as constants. The request — its prompt and output in
// buffers of the pass's rows, their lengths — is a private input bound
// to the statement's digests; the public inputs are
// gadgets/committed.Publics, which the aggregator (package recursion)
// verifies the circuit's proofs on. The circuit is fixed by the model,
// the segment and the pass's rows (its shape, native NewShape): one
// circuit serves every request whose pass fits them.
type Committed struct {
	Publics gcommitted.Publics `gnark:",public"`
	Request gstatement.Request
	Proof   gcommitted.Proof

	// Not circuit variables: tagged so that gnark's schema walk (at
	// every compile and witness) does not visit them. Without the tag it
	// walks every weight of the model, 124M of them for GPT-2 small,
	// which cost 50 s per witness.
	shape *native.Shape `gnark:"-"`
	model *model.Model  `gnark:"-"`
}

// NewCommitted returns the placeholder of the segment circuit of shape s
// for model m.
func NewCommitted(m *model.Model, s *native.Shape) (*Committed, error) {
	pub, p, err := placeholders(s)
	if err != nil {
		return nil, err
	}
	return &Committed{
		Publics: pub,
		Request: gstatement.PlaceholderRequest(s.Pass.Rows),
		Proof:   p,
		shape:   s, model: m,
	}, nil
}

// placeholders returns the public inputs and the proof of a segment
// circuit of shape s, sized to compile.
func placeholders(s *native.Shape) (gcommitted.Publics, gcommitted.Proof, error) {
	pub, err := gcommitted.PlaceholderPublics(s)
	if err != nil {
		return gcommitted.Publics{}, gcommitted.Proof{}, err
	}
	p, err := gcommitted.PlaceholderProof(s)
	if err != nil {
		return gcommitted.Publics{}, gcommitted.Proof{}, err
	}
	return pub, p, nil
}

// AssignCommitted returns the assignment of the segment circuit of shape
// s for a native proof of the statement st about the request of s (its
// Pass) and the scalars of its opening's check (native
// Shape.VerifyField).
func AssignCommitted(m *model.Model, s *native.Shape, st statement.Statement, proof *native.Proof, check *pcs.GroupCheck) (*Committed, error) {
	req, err := gstatement.ValueOfRequest(s.Pass)
	if err != nil {
		return nil, err
	}
	return &Committed{
		Publics: gcommitted.ValueOfPublics(s, st, proof, check),
		Request: req,
		Proof:   gcommitted.ValueOfProof(proof),
		shape:   s, model: m,
	}, nil
}

// Define implements frontend.Circuit.
func (c *Committed) Define(api frontend.API) error {
	return gcommitted.VerifySegment(api, c.model, c.shape, c.Publics, c.Request, c.Proof)
}

// CommittedBatch is the segment circuit of a batch's pass (native
// "Batches"): [Committed] with the batch's requests — up to slots of
// them, each in buffers of the pass's rows, and their count — as the
// private input, bound to the statement (model id, list digest, number
// of requests) by gadgets/committed.VerifyBatchSegment. The circuit is
// fixed by the model, the segment, the pass's rows and the number of
// slots; the layout of the requests in the rows is a witness, so one
// circuit serves every batch of up to slots requests whose rows fit.
type CommittedBatch struct {
	Publics gcommitted.Publics `gnark:",public"`
	Batch   gstatement.BatchRequest
	Proof   gcommitted.Proof

	shape *native.Shape `gnark:"-"`
	model *model.Model  `gnark:"-"`
}

// NewCommittedBatch returns the placeholder of the segment circuit of the
// batch's shape s (a stacked pass: its layout does not enter the
// circuit) with slots request slots, for model m.
func NewCommittedBatch(m *model.Model, s *native.Shape, slots int) (*CommittedBatch, error) {
	pub, p, err := placeholders(s)
	if err != nil {
		return nil, err
	}
	return &CommittedBatch{Publics: pub, Batch: gstatement.PlaceholderBatchRequest(s.Pass.Rows, slots), Proof: p, shape: s, model: m}, nil
}

// AssignCommittedBatch returns the assignment of the batch's segment
// circuit of shape s with slots request slots for a native proof of the
// statement st (statement.StackStatement) about the batch's pass of s
// and the scalars of its opening's check.
func AssignCommittedBatch(m *model.Model, s *native.Shape, slots int, st statement.Statement, proof *native.Proof, check *pcs.GroupCheck) (*CommittedBatch, error) {
	stack, ok := s.Pass.Stack()
	if !ok {
		return nil, fmt.Errorf("circuits: the shape's pass is not a batch's")
	}
	req, err := gstatement.ValueOfBatchRequest(stack, slots)
	if err != nil {
		return nil, err
	}
	return &CommittedBatch{Publics: gcommitted.ValueOfPublics(s, st, proof, check), Batch: req, Proof: gcommitted.ValueOfProof(proof), shape: s, model: m}, nil
}

// Define implements frontend.Circuit.
func (c *CommittedBatch) Define(api frontend.API) error {
	return gcommitted.VerifyBatchSegment(api, c.model, c.shape, c.Publics, c.Batch, c.Proof)
}
