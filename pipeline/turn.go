package pipeline

import (
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/consensys/gnark/backend/groth16"

	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// TurnOptions configure one turn of a conversation in the aggregated
// design ([RunTurn]). AggregatedOptions.Capacity is the cache's rows, the
// same for every turn of the conversation (the circuits depend on it).
type TurnOptions struct {
	AggregatedOptions
	// History is the conversation's cached tokens, in order: the rows
	// the previous turns kept (their prompts and outputs,
	// committed.TurnKeep); empty for a first turn.
	History []int
	// StateIn, when not nil, is the digest the history's state must
	// have: the state out of the previous turn (Conversation.State).
	StateIn *big.Int
	// Earlier are the conversation's earlier turns, in order, with their
	// wrapper proofs (Conversation.Recorded). With Wrap and Chain, the
	// run records each of them on a new simulated chain before this
	// turn: the registry records a turn only once the turn that left its
	// state in is recorded, and a simulated chain starts empty.
	Earlier []RecordedTurn
	// keys, when not nil, holds the verifying keys of each bucket the
	// turns of one run have set up or loaded, so that the next turn in
	// the same bucket skips their stages ([RunStream]).
	keys map[int]*AggregatedKeys
}

// TurnReport is the outcome of a turn: the run's Report (its output, its
// bucket, the aggregator's proof or the wrapper's), the states in and out
// of the conversation, the final turn statement (the model id the
// deployment's, as the wrapper states it) and the history after the
// turn.
type TurnReport struct {
	*Report
	StateIn, StateOut *committed.State
	Turn              statement.Leaf
	History           []int
	// Turns are the conversation's turns so far, this one last, with
	// their wrapper proofs (this one's nil without Wrap).
	Turns []RecordedTurn
	// TurnGas is the gas each submission used on the simulated chain,
	// the earlier turns' first (nil without Chain).
	TurnGas []uint64
}

// checkTurn checks a turn's options before anything runs (the
// conversation's earlier turns, what recording them needs, the cache's
// capacity), fills in the defaults, and reports whether the turn ends on
// a simulated chain.
func (opts *TurnOptions) checkTurn() (bool, error) {
	if err := opts.checkRun(); err != nil {
		return false, err
	}
	if opts.Capacity < 1 {
		return false, fmt.Errorf("pipeline: a turn needs the cache's capacity (rows)")
	}
	if len(opts.Earlier) > 0 {
		last := opts.Earlier[len(opts.Earlier)-1]
		if opts.StateIn != nil && last.Turn.StateOut.Cmp(opts.StateIn) != 0 {
			return false, fmt.Errorf("pipeline: the conversation's last turn left state %#x, the turn starts from %#x", last.Turn.StateOut, opts.StateIn)
		}
		if err := checkRecords(opts.Earlier, last.ModelID, last.Turn.StateOut); err != nil {
			return false, fmt.Errorf("pipeline: the conversation's turns: %w", err)
		}
	}
	onChain := opts.Chain && opts.Wrap
	if onChain {
		if len(opts.History) > 0 && len(opts.Earlier) == 0 {
			return false, fmt.Errorf("pipeline: recording a turn on a new simulated chain needs the conversation's earlier turns and their proofs (or run without the chain)")
		}
		for i, t := range opts.Earlier {
			if len(t.Proof) == 0 {
				return false, fmt.Errorf("pipeline: turn %d of the conversation has no wrapper proof: it cannot be recorded on chain (run without the chain)", i+1)
			}
		}
		if err := checkSolc(); err != nil {
			return false, err
		}
	}
	if err := opts.defaults(); err != nil {
		return false, err
	}
	if m := opts.Model; opts.Capacity > m.Config.MaxPositions {
		return false, fmt.Errorf("pipeline: a cache of %d rows beyond the model's context of %d", opts.Capacity, m.Config.MaxPositions)
	}
	return onChain, nil
}

// RunTurn proves one turn of a conversation in the aggregated design:
// the request (opts.Prompt, opts.Tokens generated greedily) over the
// cache of opts.History, in the bucket that holds it, within a cache of
// opts.Capacity rows. The state in is the commitment to the history's
// cache (the empty state for a first turn); the turn's segments are
// proven natively and verified from it (committed.VerifyTurn), then by
// the turn segment circuits, the turn aggregator and, with Wrap, the
// wrapper, whose one public input is the statement digest of the turn's
// list of one. With Wrap and Chain, the wrapper's verifier and the
// registry are deployed on a
// new simulated chain, which records opts.Earlier and then this turn
// (the registry's submit); solcjs must be found before anything is
// proven, and if the on-chain stage fails the report of the verified
// proof is returned with the error.
func RunTurn(ctx context.Context, opts TurnOptions) (*TurnReport, error) {
	onChain, err := opts.checkTurn()
	if err != nil {
		return nil, err
	}
	m := opts.Model
	r := &runner{opts: &opts.Options, report: &Report{Prompt: opts.Prompt, Verifier: opts.Verifier}}
	rep := &TurnReport{Report: r.report}
	rows, err := opts.rows(len(opts.Prompt), opts.Tokens)
	if err != nil {
		return nil, err
	}
	if len(opts.History)+rows > opts.Capacity {
		return nil, fmt.Errorf("pipeline: a history of %d rows and a turn in a bucket of %d exceed the cache's %d rows (start a new conversation, or deploy a larger capacity)", len(opts.History), rows, opts.Capacity)
	}
	if len(opts.Buckets) > 0 {
		// Checked before anything is proven: a turn the deployment cannot
		// serve costs nothing.
		if err := checkDeployment(m, opts.Buckets, rows, false); err != nil {
			return nil, fmt.Errorf("%w (a shorter prompt or fewer tokens fit a smaller bucket; or deploy the bucket)", err)
		}
	}
	var (
		cache, next *model.Cache
		pass        statement.Request
		tr          *model.Trace
	)
	if err := r.stage("inference", func() (string, error) {
		var err error
		if cache, next, pass, tr, err = turnInference(m, opts.History, opts.Prompt, opts.Tokens, rows, opts.Capacity); err != nil {
			return "", err
		}
		rep.Output, rep.Rows = pass.Output, rows
		return fmt.Sprintf("%d tokens generated after %d cached rows, a pass in the bucket of %d, %d rows kept", len(pass.Output), cache.Len, rows, committed.TurnKeep(pass)), nil
	}); err != nil {
		return nil, err
	}
	r.generated(rep.Output)
	keys := opts.keys[rows]
	if keys == nil {
		if keys, err = r.setupAggregated(&opts.AggregatedOptions, len(opts.Prompt), len(rep.Output)); err != nil {
			return nil, err
		}
		if opts.keys != nil {
			opts.keys[rows] = keys
		}
	}
	rep.Constraints = keys.SegmentConstraints
	if err := r.proveTurn(&opts, keys, rep, cache, next, pass, tr); err != nil {
		return nil, err
	}
	in := rep.StateIn.Digest()
	rep.History = append(append([]int(nil), opts.History...), append(append([]int(nil), pass.Prompt...), pass.Output...)[:committed.TurnKeep(pass)]...)
	if next.Len != len(rep.History) {
		return nil, fmt.Errorf("pipeline: the turn leaves %d cached rows for a history of %d tokens", next.Len, len(rep.History))
	}
	rep.Turn = rep.List.Leaves[0]
	if len(opts.Earlier) > 0 {
		last := opts.Earlier[len(opts.Earlier)-1]
		if last.ModelID.Cmp(keys.FinalModelID) != 0 || last.Turn.StateOut.Cmp(in) != 0 {
			return nil, fmt.Errorf("pipeline: the conversation's last turn states model id %#x and state out %#x, this turn %#x and state in %#x", last.ModelID, last.Turn.StateOut, keys.FinalModelID, in)
		}
	}
	rep.Turns = append(slices.Clone(opts.Earlier), RecordedTurn{ModelID: keys.FinalModelID, Turn: rep.Turn})
	if !opts.Wrap {
		return rep, nil
	}
	if err := r.wrap(keys, rep.Report); err != nil {
		return nil, err
	}
	if rep.Turns[len(rep.Turns)-1].Proof, err = solidity.ProofBytes(rep.Proof); err != nil {
		return nil, err
	}
	if onChain {
		if err := r.recordTurns(ctx, keys.Wrapper.VK, rep); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// proveTurn runs the proving stages of a turn over cache: the state in
// (checked against opts.StateIn), the turn's segments, natively and in
// their circuits, and the turn aggregator, whose proof and list it
// records in rep.
func (r *runner) proveTurn(opts *TurnOptions, keys *AggregatedKeys, rep *TurnReport, cache, next *model.Cache, pass statement.Request, tr *model.Trace) error {
	m := opts.Model
	var (
		st       statement.Statement
		segments []recursion.SegmentProof
	)
	if err := r.stage("state in", func() (string, error) {
		var err error
		if rep.StateIn, err = committed.StateOf(keys.SRS, m, cache, opts.Capacity); err != nil {
			return "", err
		}
		if opts.StateIn != nil && rep.StateIn.Digest().Cmp(opts.StateIn) != 0 {
			return "", fmt.Errorf("pipeline: the history's cache has state %#x, the previous turn left %#x", rep.StateIn.Digest(), opts.StateIn)
		}
		return fmt.Sprintf("%d rows, digest %#x", rep.StateIn.Rows, rep.StateIn.Digest()), nil
	}); err != nil {
		return err
	}
	conv, err := turnOf(keys, m, cache, next, opts.History, rep.StateIn, opts.Queue != nil)
	if err != nil {
		return err
	}
	if opts.Queue != nil {
		st, list, aggProof, err := r.proveOnWorkers(&opts.AggregatedOptions, keys, pass, tr, conv)
		if err != nil {
			return err
		}
		rep.StateOut = conv.out
		rep.setAggregated(keys, st, list, aggProof)
		return nil
	}
	if st, _, segments, err = r.proveSegments(&opts.AggregatedOptions, keys, pass, tr, conv); err != nil {
		return err
	}
	rep.StateOut = conv.out
	list := conv.list(st)
	aggProof, err := r.aggregate(keys, st, list, segments, turnWitness(rep.StateIn, rep.StateOut, pass))
	if err != nil {
		return err
	}
	rep.setAggregated(keys, st, list, aggProof)
	return nil
}

// turnInference generates a turn over the cache of history: the cache
// before it, the cache it leaves (capacity rows), its pass in the bucket
// of rows and its trace.
func turnInference(m *model.Model, history, prompt []int, tokens, rows, capacity int) (cache, next *model.Cache, pass statement.Request, tr *model.Trace, err error) {
	cache = m.NewCache()
	if len(history) > 0 {
		if _, err = m.Forward(cache, history); err != nil {
			return nil, nil, pass, nil, fmt.Errorf("pipeline: the history: %w", err)
		}
	}
	output, err := m.Continue(cache, prompt, tokens)
	if err != nil {
		return nil, nil, pass, nil, err
	}
	pass = statement.Request{Prompt: prompt, Output: output, Rows: rows}
	tr, next, err = committed.TurnTrace(m, cache, pass, capacity)
	return cache, next, pass, tr, err
}

// turnOf is the turn over cache from the state in, for proveSegments;
// for workers (whose specs state the turn's leaf) with its state out
// too, the commitment to next, which the native proofs must give.
func turnOf(keys *AggregatedKeys, m *model.Model, cache, next *model.Cache, history []int, in *committed.State, workers bool) (*turnProving, error) {
	conv := &turnProving{turn: committed.Turn{Start: cache.Len, Capacity: in.Capacity}, history: history, in: in}
	if workers {
		var err error
		if conv.out, err = committed.StateOf(keys.SRS, m, next, in.Capacity); err != nil {
			return nil, err
		}
	}
	return conv, nil
}

// turnWitness is the turn aggregator's witness of a turn from state in
// to state out.
func turnWitness(in, out *committed.State, pass committed.Pass) *recursion.TurnWitness {
	return &recursion.TurnWitness{StateIn: in.Digest(), StateOut: out.Digest(), Rows: in.Rows, Keys: in.Keys, Values: in.Values, Keep: committed.TurnKeep(pass)}
}

// recordTurns deploys the wrapper's verifier and the registry on a new
// simulated chain and records the conversation's turns in order, each in
// the list it was proven in ([runner.record]); the registry must then
// hold the state the last turn left.
func (r *runner) recordTurns(ctx context.Context, vk groth16.VerifyingKey, rep *TurnReport) error {
	d, err := r.deployContracts(ctx, vk, rep.List.ModelID, false)
	if err != nil {
		return err
	}
	defer d.sim.Close()
	return r.stage("on-chain record", func() (string, error) {
		gas, err := r.record(ctx, d, turnSubmissions(rep.Turns))
		if err != nil {
			return "", err
		}
		ok, err := solidity.IsState(ctx, d.chain.Backend(), rep.Deployment.Registry, rep.List.ModelID, rep.Turn.StateOut)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("the registry did not record the turn's state out")
		}
		rep.TurnGas = gas
		rep.SubmitGas = gas[len(gas)-1]
		return fmt.Sprintf("%s recorded in order, submit %v gas", Count(len(rep.Turns), "turn"), rep.TurnGas), nil
	})
}
