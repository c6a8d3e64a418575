package pipeline

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/consensys/gnark-crypto/ecc"
	"github.com/consensys/gnark/frontend"
	"github.com/consensys/gnark/frontend/cs/r1cs"

	"github.com/veriformer/veriformer/distributed"
	"github.com/veriformer/veriformer/setup"
)

// squareCircuit is a small circuit whose keys the tests move around.
type squareCircuit struct {
	X frontend.Variable
	Y frontend.Variable `gnark:",public"`
}

func (c *squareCircuit) Define(api frontend.API) error {
	api.AssertIsEqual(api.Mul(c.X, c.X), c.Y)
	return nil
}

// files lists a directory's files (recursively), by their paths under
// it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out = append(out, rel)
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestWorkerKeys: a worker uses a circuit's keys only at the digests its
// job pins. Without a trusted cache it fetches them into its own
// directory of fetched keys, which every loader of trusted keys refuses;
// with one it reads them there and writes nothing anywhere; keys of
// another setup planted among its fetched keys are replaced by the
// pinned ones; a job whose key files are not its manifest's fails. The
// trusted cache is never written to.
func TestWorkerKeys(t *testing.T) {
	ccs, err := frontend.Compile(ecc.BN254.ScalarField(), r1cs.NewBuilder, &squareCircuit{})
	if err != nil {
		t.Fatal(err)
	}
	trusted := t.TempDir()
	honest, err := setup.LoadOrSetup(ccs, trusted)
	if err != nil {
		t.Fatal(err)
	}
	before := files(t, trusted)
	// Keys of another setup of the same circuit: what an attacker
	// would plant.
	other := t.TempDir()
	if _, err := setup.LoadOrSetup(ccs, other); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, wq := localQueues(t, ctx)
	inputs := func(dir string) map[string]string {
		mf, err := setup.Cached(ccs, dir)
		if err != nil {
			t.Fatal(err)
		}
		in := map[string]string{}
		for _, f := range []struct{ role, ext, digest string }{{"manifest", ".json", ""}, {"vk", ".vk", mf.VerifyingKey}, {"pk", ".pk", mf.ProvingKey}} {
			if in[f.role], err = q.PutFile(ctx, filepath.Join(dir, mf.Circuit+f.ext), f.digest); err != nil {
				t.Fatal(err)
			}
		}
		return in
	}
	pinned := inputs(trusted)
	var dirs workerDirs
	var got struct {
		keys *setup.Keys
		dir  string
	}
	w := &distributed.Worker{Queue: wq, Poll: 20 * time.Millisecond, Handlers: map[string]distributed.Handler{
		"keys": func(_ context.Context, job *distributed.Job, in *distributed.Inputs) ([]byte, error) {
			keys, dir, err := workerKeys(dirs, ccs, job, in)
			if err != nil {
				return nil, err
			}
			if _, err := setup.LoadProvingKey(keys, dir); err != nil {
				return nil, err
			}
			got.keys, got.dir = keys, dir
			return []byte(keys.Manifest.VerifyingKey), nil
		},
	}}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	runs := 0
	prove := func(in map[string]string) error {
		runs++
		_, err := q.Run(ctx, q.RunID([]byte{byte(runs)}), []*distributed.Task{{ID: "k", Kind: "keys", Inputs: in, Verify: func(out []byte) error {
			if string(out) != honest.Manifest.VerifyingKey {
				return errors.New("another verifying key")
			}
			return nil
		}}}, nil)
		return err
	}

	// No trusted cache: fetched into own/fetched, marked.
	dirs = workerDirs{own: t.TempDir()}
	if err := prove(pinned); err != nil {
		t.Fatal(err)
	}
	fetched := filepath.Join(dirs.own, "fetched")
	if got.dir != fetched {
		t.Fatalf("keys read from %s, want %s", got.dir, fetched)
	}
	if _, err := os.Stat(filepath.Join(fetched, setup.FetchedMarker)); err != nil {
		t.Fatal(err)
	}
	for name, load := range map[string]func() error{
		"LoadOrSetupVK": func() error { _, err := setup.LoadOrSetupVK(ccs, fetched); return err },
		"LoadOrSetup":   func() error { _, err := setup.LoadOrSetup(ccs, fetched); return err },
		"Load":          func() error { _, err := setup.Load(ccs, fetched); return err },
		"Cached":        func() error { _, err := setup.Cached(ccs, fetched); return err },
	} {
		if err := load(); err == nil || !strings.Contains(err.Error(), "fetched") {
			t.Errorf("%s of the fetched keys: %v", name, err)
		}
	}

	// Keys of another setup planted among the fetched keys: replaced by
	// the pinned ones.
	hash := honest.Manifest.Circuit
	for _, ext := range []string{".json", ".vk", ".pk"} {
		data, err := os.ReadFile(filepath.Join(other, hash+ext))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(fetched, hash+ext), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := prove(pinned); err != nil {
		t.Fatalf("after keys were planted: %v", err)
	}
	if got.keys.Manifest.VerifyingKey != honest.Manifest.VerifyingKey {
		t.Fatal("the planted keys were used")
	}

	// A trusted cache with the pinned keys: read there, nothing fetched.
	dirs = workerDirs{own: t.TempDir(), trusted: trusted}
	if err := prove(pinned); err != nil {
		t.Fatal(err)
	}
	if got.dir != trusted || len(files(t, dirs.own)) != 0 {
		t.Fatalf("keys read from %s, the worker's own cache holds %v", got.dir, files(t, dirs.own))
	}
	// A job pinning the other setup's keys: not those of the trusted
	// cache, so fetched (and refused by the run's check).
	if err := prove(inputs(other)); err == nil {
		t.Fatal("the other setup's keys accepted")
	}
	if got.dir == trusted && got.keys.Manifest.VerifyingKey != honest.Manifest.VerifyingKey {
		t.Fatal("keys at other digests read from the trusted cache")
	}

	// Key files that are not the manifest's.
	mixed := map[string]string{"manifest": pinned["manifest"], "vk": pinned["vk"], "pk": inputs(other)["pk"]}
	if err := prove(mixed); err == nil || !strings.Contains(err.Error(), "not those its manifest records") {
		t.Fatalf("key files that are not the manifest's: %v", err)
	}
	if after := files(t, trusted); !slices.Equal(before, after) {
		t.Fatalf("the trusted cache changed: %v, then %v", before, after)
	}
}
