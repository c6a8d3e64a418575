package pipeline

import (
	"context"
	"fmt"
	"math/big"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/backend/witness"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/params"

	"github.com/veriformer/veriformer/solidity"
	"github.com/veriformer/veriformer/statement"
)

type witnessPublic = witness.Witness

// SimulatedChain starts go-ethereum's simulated chain with one funded
// account, under the rules of the latest fork the pinned go-ethereum
// activates by default. Close the backend when done.
func SimulatedChain() (*solidity.Chain, *simulated.Backend, error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, nil, err
	}
	auth := bind.NewKeyedTransactor(key, params.AllDevChainProtocolChanges.ChainID)
	sim := simulated.NewBackend(types.GenesisAlloc{auth.From: {Balance: new(big.Int).Lsh(big.NewInt(1), 100)}}, currentRules)
	return solidity.NewSimulatedChain(sim, auth), sim, nil
}

// currentRules runs the simulated chain with the rules of the fork Ethereum
// mainnet runs (Osaka) instead of every fork go-ethereum knows: the later
// ones reprice storage creation (EIP-8037), and the gas figures reported
// are meant for mainnet.
func currentRules(_ *node.Config, eth *ethconfig.Config) {
	config := *eth.Genesis.Config
	config.AmsterdamTime, config.BogotaTime = nil, nil
	eth.Genesis.Config = &config
}

// checkSolc finds solcjs before a run that ends on the simulated chain
// proves anything: without it the on-chain stage would fail only after
// the proofs.
func checkSolc() error {
	if _, err := solidity.SolcjsPath(); err != nil {
		return fmt.Errorf("pipeline: the on-chain check needs solcjs (or run without the chain): %w", err)
	}
	return nil
}

// deployed is a simulated chain with the verifier and the registry
// deployed on it (Report.Deployment) and, when measured, the other
// template's (other). Close sim when done.
type deployed struct {
	chain *solidity.Chain
	sim   *simulated.Backend
	other *solidity.Deployment
}

// deployContracts compiles the verifier of vk and the registry (with other, those
// of the other template too) and deploys them, the registry accepting
// modelID, on a new simulated chain.
func (r *runner) deployContracts(ctx context.Context, vk groth16.VerifyingKey, modelID *big.Int, other bool) (*deployed, error) {
	rep := r.report
	if err := r.stage("solidity export and compilation", func() (string, error) {
		var err error
		if rep.Contracts, err = solidity.CompileContractsTemplate(ctx, vk, rep.Verifier); err != nil {
			return "", err
		}
		if other {
			if rep.OtherContracts, err = solidity.CompileContractsTemplate(ctx, vk, rep.Verifier.Other()); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("%s verifier %d bytes, registry %d bytes deployed code", rep.Verifier, len(rep.Contracts.Verifier.DeployedBytecode), len(rep.Contracts.Registry.DeployedBytecode)), nil
	}); err != nil {
		return nil, err
	}
	d := &deployed{}
	if err := r.stage("deployment (simulated chain)", func() (string, error) {
		var err error
		d.chain, d.sim, err = SimulatedChain()
		if err != nil {
			return "", err
		}
		if rep.Deployment, err = d.chain.DeployVerifierAndRegistry(ctx, rep.Contracts, modelID); err != nil {
			return "", err
		}
		if other {
			if d.other, err = d.chain.DeployVerifierAndRegistry(ctx, rep.OtherContracts, modelID); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("verifier %s, registry %s", rep.Deployment.Verifier, rep.Deployment.Registry), nil
	}); err != nil {
		if d.sim != nil {
			d.sim.Close()
		}
		return nil, err
	}
	return d, nil
}

// onChain compiles the verifier and registry, deploys them on the simulated
// chain, measures the verifier's gas beside the other template's on the
// same proof, and submits the proof.
func (r *runner) onChain(ctx context.Context, vk groth16.VerifyingKey, proof groth16.Proof, l statement.List) error {
	rep := r.report
	d, err := r.deployContracts(ctx, vk, l.ModelID, true)
	if err != nil {
		return err
	}
	defer d.sim.Close()
	chain := d.chain
	return r.stage("on-chain verification", func() (string, error) {
		var err error
		if rep.VerifyGasLimit, err = solidity.EstimateVerifyGas(ctx, chain.Backend(), rep.Deployment.Verifier, proof, l); err != nil {
			return "", err
		}
		if rep.VerifyGas, err = chain.VerifyProofGasUsed(ctx, rep.Deployment.Verifier, proof, l); err != nil {
			return "", err
		}
		if rep.OtherVerifyGas, err = chain.VerifyProofGasUsed(ctx, d.other.Verifier, proof, l); err != nil {
			return "", fmt.Errorf("%s verifier: %w", rep.Verifier.Other(), err)
		}
		receipt, err := chain.Submit(ctx, rep.Deployment.Registry, proof, l)
		if err != nil {
			return "", err
		}
		rep.SubmitGas = receipt.GasUsed
		if err := checkRecorded(ctx, chain, rep.Deployment.Registry, receipt, l); err != nil {
			return "", err
		}
		return fmt.Sprintf("verifyProof %d gas used (limit %d; %s verifier %d), submit %d gas",
			rep.VerifyGas, rep.VerifyGasLimit, rep.Verifier.Other(), rep.OtherVerifyGas, rep.SubmitGas), nil
	})
}

// checkRecorded checks that the receipt of a submission of the list l
// emitted the list's event under its root and that the registry then
// holds every leaf under that root.
func checkRecorded(ctx context.Context, chain *solidity.Chain, registry common.Address, receipt *types.Receipt, l statement.List) error {
	root, err := solidity.ListRoot(l)
	if err != nil {
		return err
	}
	events, err := solidity.ListEvents(receipt, registry)
	if err != nil {
		return err
	}
	if len(events) != 1 || events[0].Root != root || events[0].Count != len(l.Leaves) {
		return fmt.Errorf("the registry emitted %d list events, want the list's one", len(events))
	}
	for i := range l.Leaves {
		ok, err := solidity.IsVerified(ctx, chain.Backend(), registry, l, i)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("the registry does not hold leaf %d of the list", i)
		}
	}
	return nil
}

// submission is a list and the wrapper's proof of it, in the Solidity
// verifier's encoding.
type submission struct {
	list  statement.List
	proof []byte
}

// turnSubmissions returns the lists the turns were proven in, in order,
// each once.
func turnSubmissions(turns []RecordedTurn) []submission {
	var out []submission
	seen := map[string]bool{}
	for _, t := range turns {
		l := t.List()
		digest, err := l.Digest()
		if err != nil || seen[digest.String()] {
			continue
		}
		seen[digest.String()] = true
		out = append(out, submission{list: l, proof: t.Proof})
	}
	return out
}

// record submits the lists in order to the deployed registry: each
// submission must verify, emit the list's event and one event per leaf
// (a request's or a turn's), and leave every leaf recorded. It returns
// each submission's gas.
func (r *runner) record(ctx context.Context, d *deployed, subs []submission) ([]uint64, error) {
	registry := r.report.Deployment.Registry
	var gas []uint64
	for i, s := range subs {
		data, err := solidity.PackSubmitBytes(s.proof, s.list)
		if err != nil {
			return nil, fmt.Errorf("list %d: %w", i+1, err)
		}
		receipt, err := d.chain.SubmitCalldata(ctx, registry, data)
		if err != nil {
			return nil, fmt.Errorf("list %d: %w", i+1, err)
		}
		if err := checkRecorded(ctx, d.chain, registry, receipt, s.list); err != nil {
			return nil, fmt.Errorf("list %d: %w", i+1, err)
		}
		requests, err := solidity.Events(receipt, registry)
		if err != nil {
			return nil, err
		}
		turns, err := solidity.TurnEvents(receipt, registry)
		if err != nil {
			return nil, err
		}
		if len(requests)+len(turns) != len(s.list.Leaves) {
			return nil, fmt.Errorf("list %d: the registry emitted %d request and %d turn events for %d leaves", i+1, len(requests), len(turns), len(s.list.Leaves))
		}
		gas = append(gas, receipt.GasUsed)
	}
	return gas, nil
}
