// Command devnode runs a single-node Ethereum development chain with an HTTP
// JSON-RPC endpoint, the way `geth --dev` does, built from the go-ethereum
// module that this repository pins. The tests of package solidity start it as
// a separate process to check deployment and submission over real JSON-RPC.
//
// It mines a block as soon as a transaction is pending (geth's `--dev.period
// 0`), keeps no peers, opens no IPC socket and serves HTTP on the given
// address only. The faucet account given with -dev.faucet is funded in the
// genesis block; the node holds no keys and signs nothing.
//
// Usage:
//
//	devnode -http.addr 127.0.0.1 -http.port 8545 -datadir DIR -dev.faucet 0xADDRESS
//
// It prints "devnode: listening on http://HOST:PORT" on standard output when
// the endpoint is up and stops on SIGINT or SIGTERM.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/rpc"
)

// chainID is the chain id of geth's developer mode.
const chainID = 1337

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "devnode:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	flags := flag.NewFlagSet("devnode", flag.ContinueOnError)
	httpAddr := flags.String("http.addr", "127.0.0.1", "HTTP JSON-RPC listening interface")
	httpPort := flags.Int("http.port", 8545, "HTTP JSON-RPC listening port")
	dataDir := flags.String("datadir", "", "data directory for the chain database (required)")
	faucetHex := flags.String("dev.faucet", "", "address funded in the genesis block (required)")
	gasLimit := flags.Uint64("dev.gaslimit", ethconfig.Defaults.Miner.GasCeil, "block gas limit")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *dataDir == "" {
		return fmt.Errorf("-datadir is required")
	}
	if !common.IsHexAddress(*faucetHex) {
		return fmt.Errorf("-dev.faucet %q is not an address", *faucetHex)
	}
	faucet := common.HexToAddress(*faucetHex)

	nodeConfig := node.DefaultConfig
	nodeConfig.Name = "devnode"
	nodeConfig.DataDir = *dataDir
	nodeConfig.IPCPath = ""
	nodeConfig.HTTPHost = *httpAddr
	nodeConfig.HTTPPort = *httpPort
	nodeConfig.HTTPModules = []string{"eth", "net", "web3"}
	nodeConfig.WSHost = ""
	nodeConfig.AuthPort = 0
	nodeConfig.P2P = p2p.Config{NoDiscovery: true, MaxPeers: 0, ListenAddr: ""}
	stack, err := node.New(&nodeConfig)
	if err != nil {
		return fmt.Errorf("create node: %w", err)
	}
	defer stack.Close()

	ethConfig := ethconfig.Defaults
	ethConfig.NetworkId = chainID
	ethConfig.SyncMode = ethconfig.FullSync
	ethConfig.Genesis = core.DeveloperGenesisBlock(*gasLimit, &faucet)
	ethConfig.Miner.PendingFeeRecipient = faucet
	backend, err := eth.New(stack, &ethConfig)
	if err != nil {
		return fmt.Errorf("create eth service: %w", err)
	}
	filterSystem := filters.NewFilterSystem(backend.APIBackend, filters.Config{})
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filters.NewFilterAPI(filterSystem)}})

	beacon, err := catalyst.NewSimulatedBeacon(0, faucet, backend)
	if err != nil {
		return fmt.Errorf("create block producer: %w", err)
	}
	catalyst.RegisterSimulatedBeaconAPIs(stack, beacon)
	stack.RegisterLifecycle(beacon)

	if err := stack.Start(); err != nil {
		return fmt.Errorf("start node: %w", err)
	}
	fmt.Printf("devnode: listening on %s\n", stack.HTTPEndpoint())

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
	return nil
}
