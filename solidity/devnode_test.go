package solidity

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/consensys/gnark/backend/groth16"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"

	"github.com/veriformer/veriformer/statement"
)

// devnodeEnv names the environment variable that overrides the path of the
// development node binary built by scripts/setup-geth.sh.
const devnodeEnv = "VERIFORMER_DEVNODE"

// devnodePath returns the development node binary, or fails the test with
// the command that builds it.
func devnodePath(t *testing.T) string {
	t.Helper()
	if path := os.Getenv(devnodeEnv); path != "" {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s=%s: %v: run scripts/setup-geth.sh or correct the variable", devnodeEnv, path, err)
		}
		return path
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, ".cache", "bin", "devnode")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("development node not found at %s: run scripts/setup-geth.sh (or set %s)", path, devnodeEnv)
	}
	return path
}

// freePort returns a TCP port on the loopback interface that was free a
// moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	return listener.Addr().(*net.TCPAddr).Port
}

// startDevnode starts a development chain on the loopback interface whose
// genesis funds faucet and returns its JSON-RPC URL; the node is stopped when
// the test ends. A node that exits before listening (its port taken since
// freePort looked) is started again on another port, up to three times.
func startDevnode(t *testing.T, faucet string) string {
	t.Helper()
	binary := devnodePath(t)
	var failures []string
	for range 3 {
		url, err := tryStartDevnode(t, binary, faucet)
		if err == nil {
			return url
		}
		failures = append(failures, err.Error())
	}
	t.Fatalf("development node did not start:\n%s", strings.Join(failures, "\n"))
	return ""
}

func tryStartDevnode(t *testing.T, binary, faucet string) (string, error) {
	cmd := exec.Command(binary,
		"-http.addr", "127.0.0.1", "-http.port", fmt.Sprint(freePort(t)),
		"-datadir", t.TempDir(), "-dev.faucet", faucet)
	output := &nodeOutput{listening: make(chan string, 1)}
	cmd.Stdout, cmd.Stderr = output, output
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case url := <-output.listening:
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
				t.Error("development node did not stop within 30 s of SIGTERM")
			}
		})
		return url, nil
	case err := <-exited:
		return "", fmt.Errorf("exited (%v): %s", err, output.String())
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		return "", fmt.Errorf("did not listen within 60 s: %s", output.String())
	}
}

// nodeOutput collects the node's output and announces the URL of its
// endpoint once it prints it.
type nodeOutput struct {
	mu        sync.Mutex
	text      strings.Builder
	announced bool
	listening chan string
}

func (o *nodeOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.text.Write(p)
	if !o.announced {
		lines := strings.Split(o.text.String(), "\n")
		for _, line := range lines[:len(lines)-1] { // complete lines only
			if url, ok := strings.CutPrefix(line, "devnode: listening on "); ok {
				o.announced = true
				o.listening <- strings.TrimSpace(url)
				break
			}
		}
	}
	return len(p), nil
}

func (o *nodeOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.text.String()
}

// TestDevnodeRPC deploys and submits over JSON-RPC to a separate node
// process, with the key read from an encrypted keystore file.
// devChainID is the chain id of go-ethereum's developer mode.
var devChainID = big.NewInt(1337)

func TestDevnodeRPC(t *testing.T) {
	f := loadFixture(t)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	address := crypto.PubkeyToAddress(key.PublicKey)
	keystoreFile, passwordFile := writeKeystore(t, key, "correct horse battery staple")
	loaded, err := LoadKey(keystoreFile, passwordFile)
	if err != nil {
		t.Fatal(err)
	}
	if crypto.PubkeyToAddress(loaded.PublicKey) != address {
		t.Fatal("keystore key differs from the generated key")
	}

	url := startDevnode(t, address.Hex())
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("node listens on %s, want the loopback interface", url)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// A pinned chain id that is not the node's is refused before signing.
	wrongChain := big.NewInt(1)
	_, err = DeployRPC(ctx, url, loaded, wrongChain, f.plain.contracts, nil)
	var mismatch *ChainIDMismatchError
	if !errors.As(err, &mismatch) || mismatch.Endpoint.Cmp(devChainID) != 0 || mismatch.Want.Cmp(wrongChain) != 0 {
		t.Fatalf("deploy pinned to chain 1 on a chain %s node: %v, want a ChainIDMismatchError", devChainID, err)
	}
	if _, err := SubmitRPC(ctx, url, loaded, wrongChain, common.Address{}, f.plain.proof, f.plain.list); !errors.As(err, &mismatch) {
		t.Fatalf("submit pinned to chain 1 on a chain %s node: %v, want a ChainIDMismatchError", devChainID, err)
	}
	for _, v := range f.variants() {
		deployment, err := DeployRPC(ctx, url, loaded, devChainID, v.contracts, nil)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		leaf := v.list.Leaves[0]
		tampered := List{ModelID: v.list.ModelID, Leaves: []Leaf{statement.RequestLeaf(leaf.Input, new(big.Int).Add(leaf.Output, big.NewInt(1)))}}
		_, err = SubmitRPC(ctx, url, loaded, nil, deployment.Registry, v.proof, tampered)
		var revert *RevertError
		if !errors.As(err, &revert) || revert.Reason != "ProofInvalid()" {
			t.Fatalf("%s: wrong output digest: %v, want a ProofInvalid() revert", v.name, err)
		}

		receipt, err := SubmitRPC(ctx, url, loaded, devChainID, deployment.Registry, v.proof, v.list)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		events, err := Events(receipt, deployment.Registry)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].Submitter != address || !sameRequest(events[0], v.list, 0) {
			t.Fatalf("%s: events %+v", v.name, events)
		}
		for _, check := range []struct {
			list List
			want bool
		}{{v.list, true}, {tampered, false}} {
			verified, err := IsVerifiedRPC(ctx, url, deployment.Registry, check.list, 0)
			if err != nil {
				t.Fatal(err)
			}
			if verified != check.want {
				t.Fatalf("%s: isVerified = %v, want %v", v.name, verified, check.want)
			}
		}
		t.Logf("%s over JSON-RPC: block %d, submit gas %d", v.name, receipt.BlockNumber, receipt.GasUsed)
	}

	// A conversation's two turns over JSON-RPC, a list each: the second is
	// refused until the first is recorded.
	v := f.commitment
	deployment, err := DeployRPC(ctx, url, loaded, devChainID, v.contracts, nil)
	if err != nil {
		t.Fatal(err)
	}
	model := v.list.ModelID
	first := List{ModelID: model, Leaves: []Leaf{statement.TurnLeaf(statement.EmptyState, big.NewInt(11), big.NewInt(12), big.NewInt(1001))}}
	second := List{ModelID: model, Leaves: []Leaf{statement.TurnLeaf(big.NewInt(1001), big.NewInt(21), big.NewInt(22), big.NewInt(1002))}}
	firstProof, secondProof := listProof(t, v, first), listProof(t, v, second)
	_, err = SubmitRPC(ctx, url, loaded, devChainID, deployment.Registry, secondProof, second)
	var revert *RevertError
	if !errors.As(err, &revert) || !strings.HasPrefix(revert.Reason, "UnknownState(") {
		t.Fatalf("the second turn first: %v, want an UnknownState revert", err)
	}
	for i, c := range []struct {
		list  List
		proof groth16.Proof
	}{{first, firstProof}, {second, secondProof}} {
		receipt, err := SubmitRPC(ctx, url, loaded, devChainID, deployment.Registry, c.proof, c.list)
		if err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		events, err := TurnEvents(receipt, deployment.Registry)
		if err != nil || len(events) != 1 || events[0].Leaf.String() != c.list.Leaves[0].String() || events[0].Submitter != address {
			t.Fatalf("turn %d: events %+v (%v)", i+1, events, err)
		}
	}
}

// writeKeystore encrypts key into a keystore file (light scrypt parameters,
// for speed) and writes the password file.
func writeKeystore(t *testing.T, key *ecdsa.PrivateKey, password string) (string, string) {
	t.Helper()
	id, err := uuid.NewRandom()
	if err != nil {
		t.Fatal(err)
	}
	encrypted, err := keystore.EncryptKey(&keystore.Key{Id: id, Address: crypto.PubkeyToAddress(key.PublicKey), PrivateKey: key},
		password, keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keystoreFile, passwordFile := filepath.Join(dir, "key.json"), filepath.Join(dir, "password")
	if err := os.WriteFile(keystoreFile, encrypted, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(passwordFile, []byte(password+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return keystoreFile, passwordFile
}
