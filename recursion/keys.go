package recursion

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/consensys/gnark/backend/groth16"
	"github.com/consensys/gnark/constraint"
)

// CacheDirEnv names the environment variable that overrides the key cache
// directory.
const CacheDirEnv = "VERIFORMER_CACHE"

// cacheFormat versions the cache layout and the circuit hash.
const cacheFormat = "veriformer/recursion/keys/v1"

// DefaultCacheDir returns $VERIFORMER_CACHE if set, else .cache/keys under the
// module root (the nearest directory above the working directory holding a
// go.mod file), else .cache/keys under the working directory.
func DefaultCacheDir() (string, error) {
	if dir := os.Getenv(CacheDirEnv); dir != "" {
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("recursion: cache dir: %w", err)
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".cache", "keys"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join(wd, ".cache", "keys"), nil
		}
		dir = parent
	}
}

// gnarkVersion is the version of the gnark module this binary was built
// with, part of the circuit hash: another gnark may compile the same circuit
// differently or serialize keys differently.
func gnarkVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "github.com/consensys/gnark" {
			return dep.Version
		}
	}
	return "unknown"
}

// CircuitHash identifies a compiled constraint system: the hex SHA-256 of the
// cache format, the gnark version, the scalar field and the constraint
// system's serialization. Keys are cached under this name.
func CircuitHash(ccs constraint.ConstraintSystem) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\ngnark %s\nfield %s\n", cacheFormat, gnarkVersion(), ccs.Field().String())
	if _, err := ccs.WriteTo(h); err != nil {
		return "", fmt.Errorf("recursion: circuit hash: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// keyPaths returns the cache paths of a circuit's proving and verifying keys.
func keyPaths(ccs constraint.ConstraintSystem, dir string) (pkPath, vkPath string, err error) {
	name, err := CircuitHash(ccs)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(dir, name+".pk"), filepath.Join(dir, name+".vk"), nil
}

// LoadOrSetup returns the Groth16 keys of ccs from the cache directory dir,
// or, when they are not there, runs groth16.Setup and stores them. Keys made
// by groth16.Setup are for development only: whoever runs it knows the
// toxic waste and can forge proofs. Production keys come from the MPC
// ceremony ([Phase2Seal]) and are put in the cache with [StoreKeys].
//
// The cache directory is trusted: keys are read without the subgroup checks
// of gnark's safe decoder. Each file is written atomically, but two
// processes setting up the same circuit at once can leave the proving key
// of one setup beside the verifying key of the other; [Aggregate] and [Wrap]
// verify every fresh proof, so this shows as an error — delete both files.
func LoadOrSetup(ccs constraint.ConstraintSystem, dir string) (groth16.ProvingKey, groth16.VerifyingKey, error) {
	pkPath, vkPath, err := keyPaths(ccs, dir)
	if err != nil {
		return nil, nil, err
	}
	pk, vk, err := loadKeys(ccs, pkPath, vkPath)
	if err == nil {
		return pk, vk, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("recursion: load cached keys %s: %w", pkPath, err)
	}
	log.Printf("recursion: WARNING: DEVELOPMENT ONLY: running groth16.Setup for a circuit of %d constraints; "+
		"the toxic waste is known to this process, so anyone holding it can forge proofs. "+
		"Use the MPC ceremony (Phase1*/Phase2*) for production keys.", ccs.GetNbConstraints())
	pk, vk, err = groth16.Setup(ccs)
	if err != nil {
		return nil, nil, fmt.Errorf("recursion: setup: %w", err)
	}
	if err := storeKeys(dir, pkPath, vkPath, pk, vk); err != nil {
		return nil, nil, err
	}
	return pk, vk, nil
}

// LoadOrSetupVK returns the verifying key of ccs: read alone from the cache
// directory dir when both keys are there (a proving key can be gigabytes),
// otherwise made and stored with both keys by [LoadOrSetup].
func LoadOrSetupVK(ccs constraint.ConstraintSystem, dir string) (groth16.VerifyingKey, error) {
	pkPath, vkPath, err := keyPaths(ccs, dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(pkPath); err == nil {
		vk := groth16.NewVerifyingKey(curveOf(ccs))
		err := readFile(vkPath, vk.UnsafeReadFrom)
		if err == nil {
			return vk, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("recursion: load cached verifying key %s: %w", vkPath, err)
		}
	}
	_, vk, err := LoadOrSetup(ccs, dir)
	return vk, err
}

func loadKeys(ccs constraint.ConstraintSystem, pkPath, vkPath string) (groth16.ProvingKey, groth16.VerifyingKey, error) {
	curve := curveOf(ccs)
	pk := groth16.NewProvingKey(curve)
	vk := groth16.NewVerifyingKey(curve)
	if err := readFile(vkPath, vk.UnsafeReadFrom); err != nil {
		return nil, nil, err
	}
	if err := readFile(pkPath, pk.UnsafeReadFrom); err != nil {
		return nil, nil, err
	}
	return pk, vk, nil
}

func readFile(path string, read func(io.Reader) (int64, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := read(f); err != nil {
		return fmt.Errorf("decode %s: %w", path, err)
	}
	return nil
}

// StoreKeys writes the keys of ccs into the cache directory dir (created if
// needed) under the circuit's hash, atomically: a reader sees either no
// keys or complete ones.
func StoreKeys(ccs constraint.ConstraintSystem, dir string, pk groth16.ProvingKey, vk groth16.VerifyingKey) error {
	pkPath, vkPath, err := keyPaths(ccs, dir)
	if err != nil {
		return err
	}
	return storeKeys(dir, pkPath, vkPath, pk, vk)
}

func storeKeys(dir, pkPath, vkPath string, pk groth16.ProvingKey, vk groth16.VerifyingKey) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("recursion: key cache: %w", err)
	}
	if err := writeFileAtomic(pkPath, pk.WriteRawTo); err != nil {
		return fmt.Errorf("recursion: store proving key: %w", err)
	}
	if err := writeFileAtomic(vkPath, vk.WriteRawTo); err != nil {
		return fmt.Errorf("recursion: store verifying key: %w", err)
	}
	return nil
}

func writeFileAtomic(path string, write func(io.Writer) (int64, error)) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := write(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
