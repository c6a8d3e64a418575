package solidity

import (
	"bufio"
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
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

// devnodeEnv names the environment variable that overrides the path of the
// development node binary built by scripts/setup-geth.sh.
const devnodeEnv = "VERIFORMER_DEVNODE"

// devnodePath returns the development node binary, or fails the test with
// the command that builds it.
func devnodePath(t *testing.T) string {
	t.Helper()
	if path := os.Getenv(devnodeEnv); path != "" {
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
// the test ends.
func startDevnode(t *testing.T, faucet string) string {
	t.Helper()
	cmd := exec.Command(devnodePath(t),
		"-http.addr", "127.0.0.1", "-http.port", fmt.Sprint(freePort(t)),
		"-datadir", t.TempDir(), "-dev.faucet", faucet)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
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

	url := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if endpoint, ok := strings.CutPrefix(scanner.Text(), "devnode: listening on "); ok {
				url <- endpoint
			}
		}
	}()
	select {
	case endpoint := <-url:
		return endpoint
	case err := <-exited:
		t.Fatalf("development node exited: %v\n%s", err, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("development node did not listen within 60 s\n%s", stderr.String())
	}
	return ""
}

// TestDevnodeRPC deploys and submits over JSON-RPC to a separate node
// process, with the key read from an encrypted keystore file.
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
	for _, v := range f.variants() {
		deployment, err := DeployRPC(ctx, url, loaded, v.contracts, nil)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		tampered := v.statement
		tampered.OutputDigest = new(big.Int).Add(tampered.OutputDigest, big.NewInt(1))
		_, err = SubmitRPC(ctx, url, loaded, deployment.Registry, v.proof, tampered)
		var revert *RevertError
		if !errors.As(err, &revert) || revert.Reason != "ProofInvalid()" {
			t.Fatalf("%s: wrong output digest: %v, want a ProofInvalid() revert", v.name, err)
		}

		receipt, err := SubmitRPC(ctx, url, loaded, deployment.Registry, v.proof, v.statement)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		events, err := Events(receipt, deployment.Registry)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].Submitter != address || !sameStatement(events[0].Statement, v.statement) {
			t.Fatalf("%s: events %+v", v.name, events)
		}
		for _, check := range []struct {
			statement Statement
			want      bool
		}{{v.statement, true}, {tampered, false}} {
			verified, err := IsVerifiedRPC(ctx, url, deployment.Registry, check.statement)
			if err != nil {
				t.Fatal(err)
			}
			if verified != check.want {
				t.Fatalf("%s: isVerified = %v, want %v", v.name, verified, check.want)
			}
		}
		t.Logf("%s over JSON-RPC: block %d, submit gas %d", v.name, receipt.BlockNumber, receipt.GasUsed)
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
