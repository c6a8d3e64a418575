package solidity

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

func TestLoadKey(t *testing.T) {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	want := crypto.PubkeyToAddress(key.PublicKey)
	keystoreFile, passwordFile := writeKeystore(t, key, "secret")

	t.Run("keystore", func(t *testing.T) {
		loaded, err := LoadKey(keystoreFile, passwordFile)
		if err != nil {
			t.Fatal(err)
		}
		if crypto.PubkeyToAddress(loaded.PublicKey) != want {
			t.Fatal("wrong key")
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		wrong := filepath.Join(t.TempDir(), "password")
		if err := os.WriteFile(wrong, []byte("not the secret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadKey(keystoreFile, wrong); err == nil {
			t.Fatal("wrong password accepted")
		}
	})
	t.Run("keystore without password file", func(t *testing.T) {
		if _, err := LoadKey(keystoreFile, ""); err == nil {
			t.Fatal("keystore without password accepted")
		}
	})
	t.Run("environment", func(t *testing.T) {
		t.Setenv(PrivateKeyEnv, "0x"+hex.EncodeToString(crypto.FromECDSA(key)))
		loaded, err := LoadKey("", "")
		if err != nil {
			t.Fatal(err)
		}
		if crypto.PubkeyToAddress(loaded.PublicKey) != want {
			t.Fatal("wrong key")
		}
	})
	t.Run("environment malformed", func(t *testing.T) {
		secret := "zz" + strings.Repeat("ab", 31)
		t.Setenv(PrivateKeyEnv, secret)
		_, err := LoadKey("", "")
		if err == nil {
			t.Fatal("malformed key accepted")
		}
		if strings.Contains(err.Error(), secret) {
			t.Fatal("the error repeats the key")
		}
	})
	t.Run("environment unset", func(t *testing.T) {
		t.Setenv(PrivateKeyEnv, "")
		if _, err := LoadKey("", ""); err == nil || !strings.Contains(err.Error(), PrivateKeyEnv) {
			t.Fatalf("error %v, want one naming %s", err, PrivateKeyEnv)
		}
	})
}
