package pipeline

import (
	"context"
	"fmt"
	"math/big"
	"slices"

	"github.com/consensys/gnark/backend/groth16"

	gpcs "github.com/veriformer/veriformer/gadgets/pcs"
	"github.com/veriformer/veriformer/inference"
	"github.com/veriformer/veriformer/inference/committed"
	"github.com/veriformer/veriformer/model"
	"github.com/veriformer/veriformer/recursion"
	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

// ListOptions configure a mixed list's run ([RunList]): the deployment
// (AggregatedOptions with Mix and Capacity) and as many requests and
// turns as Mix says.
type ListOptions struct {
	AggregatedOptions
	Requests []ListRequest
	Turns    []ListTurn
}

// ListRequest is a request of a mixed list: a prompt and the number of
// tokens to generate greedily.
type ListRequest struct {
	Prompt []int
	Tokens int
}

// ListTurn is a turn of a mixed list: the next turn of a conversation,
// over its cached History, from the state StateIn its last turn left
// (nil for no check), after its Earlier turns, as [TurnOptions] states
// one.
type ListTurn struct {
	ListRequest
	History []int
	StateIn *big.Int
	Earlier []RecordedTurn
}

// ListReport is the outcome of a mixed list: the run's Report (List the
// list under the final model id, Statement its (model id, list digest,
// number of leaves)), each request's output, and each turn's report
// (its states, leaf, history and the conversation's turns so far, this
// one last, recorded with the list).
type ListReport struct {
	*Report
	Outputs [][]int
	Turns   []*TurnReport
	// Gas is the gas of each submission on the simulated chain: the
	// lists of the turns' earlier turns, then the list.
	Gas []uint64
}

// listItem is one leaf of a mixed list as the run proves it: its pass
// and trace, and for a turn the caches before and after it.
type listItem struct {
	pass        statement.Request
	tr          *model.Trace
	cache, next *model.Cache
	turn        *ListTurn
}

// checkList checks a mixed list's options before anything runs and
// reports whether the list ends on a simulated chain.
func (opts *ListOptions) checkList() (bool, error) {
	opts.MixedList = true
	mix := opts.Mix
	if mix == nil {
		return false, fmt.Errorf("pipeline: a mixed list needs its deployment's mix of requests and turns")
	}
	if len(opts.Requests) != mix.Requests || len(opts.Turns) != mix.Turns {
		return false, fmt.Errorf("pipeline: a mixed list of %s and %s, the deployment's lists hold %d and %d", Count(len(opts.Requests), "request"), Count(len(opts.Turns), "turn"), mix.Requests, mix.Turns)
	}
	for i, t := range opts.Turns {
		turn := TurnOptions{AggregatedOptions: opts.AggregatedOptions, History: t.History, StateIn: t.StateIn, Earlier: t.Earlier}
		turn.Prompt, turn.Tokens, turn.MixedList = t.Prompt, t.Tokens, false
		if _, err := turn.checkTurn(); err != nil {
			return false, fmt.Errorf("turn %d: %w", i+1, err)
		}
	}
	for i, q := range opts.Requests {
		if len(q.Prompt) == 0 || q.Tokens < 1 {
			return false, fmt.Errorf("pipeline: request %d: need a prompt and at least one token to generate", i+1)
		}
	}
	onChain := opts.Chain && opts.Wrap
	if onChain {
		if err := checkSolc(); err != nil {
			return false, err
		}
	}
	return onChain, opts.defaults()
}

// Rows returns the bucket of a mixed list: every leaf's pass is proven
// in it, so it holds the longest (opts.Bucket when set, else the
// smallest of opts.Buckets or of the model's that does).
func (opts *ListOptions) Rows() (int, error) {
	prompt, tokens := 1, 1
	for _, q := range opts.Requests {
		prompt, tokens = longer(prompt, tokens, q.Prompt, q.Tokens)
	}
	for _, t := range opts.Turns {
		prompt, tokens = longer(prompt, tokens, t.Prompt, t.Tokens)
	}
	return opts.rows(prompt, tokens)
}

// longer returns the prompt and token counts of the longer pass.
func longer(prompt, tokens int, p []int, g int) (int, int) {
	if len(p)+g > prompt+tokens {
		return len(p), g
	}
	return prompt, tokens
}

// RunList proves a mixed list in the aggregated design: opts.Requests
// and opts.Turns, each generated greedily and proven as a pass of its
// own in one bucket (the requests' by the request segment circuits, the
// turns' from their states in by the turn segment circuits), completed by
// one aggregator of the deployment's mixed lists ([Mix]) and, with Wrap,
// the wrapper, whose one public input is the statement digest of the
// list: the requests' leaves, then the turns', in order. With Wrap and
// Chain, the verifier and the registry are deployed on a new simulated
// chain, which records every turn's earlier turns and then the list.
func RunList(ctx context.Context, opts ListOptions) (*ListReport, error) {
	onChain, err := opts.checkList()
	if err != nil {
		return nil, err
	}
	r := &runner{opts: &opts.Options, report: &Report{Verifier: opts.Verifier}, ctx: ctx}
	rep := &ListReport{Report: r.report}
	rows, err := opts.Rows()
	if err != nil {
		return nil, err
	}
	for i, t := range opts.Turns {
		if len(t.History)+rows > opts.Capacity {
			return nil, fmt.Errorf("pipeline: turn %d: a history of %d rows and a turn in a bucket of %d exceed the cache's %d rows (start a new conversation, or deploy a larger capacity)", i+1, len(t.History), rows, opts.Capacity)
		}
	}
	if len(opts.Buckets) > 0 {
		if err := checkDeployment(opts.Model, opts.Buckets, rows, false); err != nil {
			return nil, fmt.Errorf("%w (shorter prompts or fewer tokens fit a smaller bucket; or deploy the bucket)", err)
		}
	}
	opts.Bucket, rep.Rows = rows, rows
	items, err := r.listInference(&opts, rows, rep)
	if err != nil {
		return nil, err
	}
	keys, err := r.setupAggregated(&opts.AggregatedOptions, 1, 1)
	if err != nil {
		return nil, err
	}
	rep.Constraints = keys.SegmentConstraints
	if err := r.proveList(&opts, keys, items, rep); err != nil {
		return nil, err
	}
	if !opts.Wrap {
		rep.turnReports()
		return rep, nil
	}
	if err := r.wrap(keys, rep.Report); err != nil {
		return nil, err
	}
	proof, err := solidity.ProofBytes(rep.Proof)
	if err != nil {
		return nil, err
	}
	for _, t := range rep.Turns {
		t.Turns[len(t.Turns)-1].Proof = proof
	}
	if onChain {
		err = r.recordList(ctx, keys.Wrapper.VK, rep, proof)
	}
	rep.turnReports()
	return rep, err
}

// turnReports gives each turn the list's report with the turn's prompt
// and output: what its artifacts hold ([WriteTurnArtifacts]).
func (rep *ListReport) turnReports() {
	for _, t := range rep.Turns {
		own := *rep.Report
		own.Prompt, own.Output = t.Prompt, t.Output
		t.Report = &own
	}
}

// listInference generates every leaf of the list: a request's pass, or
// a turn's over its history's cache.
func (r *runner) listInference(opts *ListOptions, rows int, rep *ListReport) ([]listItem, error) {
	m := opts.Model
	var items []listItem
	err := r.stage("inference", func() (string, error) {
		for i, q := range opts.Requests {
			req, tr, err := inference.Generate(m, q.Prompt, q.Tokens, rows)
			if err != nil {
				return "", fmt.Errorf("request %d: %w", i+1, err)
			}
			items = append(items, listItem{pass: req, tr: tr})
			rep.Outputs = append(rep.Outputs, req.Output)
		}
		for i := range opts.Turns {
			t := &opts.Turns[i]
			it := listItem{turn: t}
			var err error
			if it.cache, it.next, it.pass, it.tr, err = turnInference(m, t.History, t.Prompt, t.Tokens, rows, opts.Capacity); err != nil {
				return "", fmt.Errorf("turn %d: %w", i+1, err)
			}
			items = append(items, it)
		}
		return fmt.Sprintf("the list's %d leaves generated, each a pass in the bucket of %d", len(items), rows), nil
	})
	return items, err
}

// proveList proves each leaf's pass with its kind's segment circuits,
// then the list's aggregator, whose proof and list it records in rep.
func (r *runner) proveList(opts *ListOptions, keys *AggregatedKeys, items []listItem, rep *ListReport) error {
	m := opts.Model
	passes := make([]recursion.PassWitness, len(items))
	leaves := make([]statement.Leaf, len(items))
	for p, it := range items {
		part := keys.pass(p)
		prove := r.proveSegments
		if opts.Queue != nil {
			prove = r.proveSegmentsOnWorkers
		}
		if it.turn == nil {
			r.logf("request %d of %d:", p+1, len(opts.Requests))
			st, list, segments, err := prove(&opts.AggregatedOptions, part, it.pass, it.tr, nil)
			if err != nil {
				return fmt.Errorf("request %d: %w", p+1, err)
			}
			passes[p], leaves[p] = recursion.PassWitness{Statement: st, Segments: segments}, list.Leaves[0]
			continue
		}
		i := p - len(opts.Requests)
		r.logf("turn %d of %d:", i+1, len(opts.Turns))
		in, err := committed.StateOf(keys.SRS, m, it.cache, opts.Capacity)
		if err != nil {
			return err
		}
		if it.turn.StateIn != nil && in.Digest().Cmp(it.turn.StateIn) != 0 {
			return fmt.Errorf("pipeline: turn %d: the history's cache has state %#x, the previous turn left %#x", i+1, in.Digest(), it.turn.StateIn)
		}
		conv, err := turnOf(keys, m, it.cache, it.next, it.turn.History, in, opts.Queue != nil)
		if err != nil {
			return err
		}
		st, _, segments, err := prove(&opts.AggregatedOptions, part, it.pass, it.tr, conv)
		if err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		passes[p] = recursion.PassWitness{Statement: st, Segments: segments, Turn: turnWitness(in, conv.out, it.pass)}
		leaves[p] = conv.list(st).Leaves[0]
		history := slices.Concat(it.turn.History, it.pass.Prompt, it.pass.Output)[:len(it.turn.History)+committed.TurnKeep(it.pass)]
		rep.Turns = append(rep.Turns, &TurnReport{Report: &Report{Prompt: it.pass.Prompt, Output: it.pass.Output}, StateIn: in, StateOut: conv.out, Turn: leaves[p], History: history})
	}
	list := statement.List{ModelID: keys.ModelID, Leaves: leaves}
	digest, err := list.ListDigest()
	if err != nil {
		return err
	}
	a, err := recursion.AggregatorAssignment(keys.Catalog.layout(keys.Shapes), gpcs.KeyOf(keys.Committed.PCS), list, passes)
	if err != nil {
		return err
	}
	proof, err := r.proveAggregator(keys, a, func(p groth16.Proof) error {
		return recursion.VerifyAggregated(p, keys.Aggregator.VK, list)
	})
	if err != nil {
		return err
	}
	st := statement.Statement{ModelID: keys.ModelID, InputDigest: digest, OutputDigest: big.NewInt(int64(len(leaves)))}
	rep.setAggregated(keys, st, list, proof)
	for i, t := range rep.Turns {
		earlier := opts.Turns[i].Earlier
		if len(earlier) > 0 && earlier[len(earlier)-1].ModelID.Cmp(keys.FinalModelID) != 0 {
			return fmt.Errorf("pipeline: turn %d: the conversation's turns state model id %#x, the deployment's is %#x", i+1, earlier[len(earlier)-1].ModelID, keys.FinalModelID)
		}
		t.List = rep.List
		t.Turns = append(slices.Clone(earlier), RecordedTurn{ModelID: keys.FinalModelID, Turn: t.Turn, Leaves: rep.List.Leaves})
	}
	return nil
}

// recordList deploys the wrapper's verifier and the registry on a new
// simulated chain and records the turns' earlier turns, each in the list
// it was proven in, then the list ([runner.record]); the registry must
// then hold the state each turn left.
func (r *runner) recordList(ctx context.Context, vk groth16.VerifyingKey, rep *ListReport, proof []byte) error {
	d, err := r.deployContracts(ctx, vk, rep.List.ModelID, false)
	if err != nil {
		return err
	}
	defer d.sim.Close()
	return r.stage("on-chain record", func() (string, error) {
		var earlier []RecordedTurn
		for _, t := range rep.Turns {
			earlier = append(earlier, t.Turns[:len(t.Turns)-1]...)
		}
		subs := append(turnSubmissions(earlier), submission{list: rep.List, proof: proof})
		gas, err := r.record(ctx, d, subs)
		if err != nil {
			return "", err
		}
		for i, t := range rep.Turns {
			ok, err := solidity.IsState(ctx, d.chain.Backend(), rep.Deployment.Registry, rep.List.ModelID, t.Turn.StateOut)
			if err != nil {
				return "", err
			}
			if !ok {
				return "", fmt.Errorf("the registry did not record turn %d's state out", i+1)
			}
		}
		rep.Gas, rep.SubmitGas = gas, gas[len(gas)-1]
		n := uint64(len(rep.List.Leaves))
		return fmt.Sprintf("%d earlier lists, then the list of %d leaves: submit %d gas (%d per leaf)", len(subs)-1, n, rep.SubmitGas, rep.SubmitGas/n), nil
	})
}
