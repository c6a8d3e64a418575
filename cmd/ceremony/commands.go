package main

import (
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strings"
	"time"

	"github.com/consensys/gnark-crypto/ecc"

	"github.com/veriformer/veriformer/setup"
)

func newFlagSet(name string, out io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	dir := fs.String("dir", "", "ceremony directory (required)")
	return fs, dir
}

func parse(fs *flag.FlagSet, dir *string, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%s: unexpected arguments %q", fs.Name(), fs.Args())
	}
	if *dir == "" {
		return fmt.Errorf("%s: --dir is required", fs.Name())
	}
	return nil
}

func phase1New(args []string, out io.Writer) error {
	fs, dir := newFlagSet("phase1 new", out)
	cf := addCircuitFlags(fs)
	curveFlag := fs.String("curve", "", "curve, when no --circuit is given: bn254, bls12_377 or bw6_761")
	power := fs.Int("power", 0, "phase-1 domain of 2^power points (default: the circuit's size rounded up; required for --circuit srs or --curve)")
	name := fs.String("name", "", "what the ceremony is for, recorded in ceremony.json (default: the circuit's description)")
	if err := parse(fs, dir, args); err != nil {
		return err
	}
	var curve ecc.ID
	description := *name
	switch {
	case *cf.circuit != "" && *curveFlag != "":
		return errors.New("phase1 new: give --circuit or --curve, not both")
	case *cf.circuit != "":
		t, err := cf.target()
		if err != nil {
			return err
		}
		curve = t.curve
		if *power == 0 {
			if t.compile == nil {
				return errors.New("phase1 new: --circuit srs needs --power")
			}
			ccs, circuitName, err := cf.compileTarget(out)
			if err != nil {
				return err
			}
			*power = bits.Len64(setup.DomainSize(ccs)) - 1
			if description == "" {
				description = circuitName
			}
		}
		if description == "" {
			description = *cf.circuit
			if *cf.circuit == "srs" {
				description = "BLS12-377 KZG SRS"
			}
		}
	case *curveFlag != "":
		for _, id := range []ecc.ID{ecc.BN254, ecc.BLS12_377, ecc.BW6_761} {
			if id.String() == *curveFlag {
				curve = id
			}
		}
		if curve == ecc.UNKNOWN {
			return fmt.Errorf("phase1 new: --curve %q: want bn254, bls12_377 or bw6_761", *curveFlag)
		}
		if *power == 0 {
			return errors.New("phase1 new: --curve needs --power")
		}
	default:
		return errors.New("phase1 new: give --circuit or --curve")
	}
	start := time.Now()
	_, first, err := setup.NewCeremony(*dir, description, curve, *power)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "phase 1 of 2^%d points on %s for %q started in %s (%v)\n", *power, curve, description, *dir, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(out, "initial object %s\n", first.Hash)
	return nil
}

func contribute(phase int, args []string, in io.Reader, out io.Writer) error {
	fs, dir := newFlagSet(fmt.Sprintf("phase%d contribute", phase), out)
	entropyFile := fs.String("entropy-file", "", "file whose content is mixed into the operating system's randomness (\"-\": read standard input); never pass entropy itself on the command line")
	if err := parse(fs, dir, args); err != nil {
		return err
	}
	var entropy []byte
	if *entropyFile != "" {
		var err error
		if *entropyFile == "-" {
			fmt.Fprintln(out, "type your entropy, then end of input (Ctrl-D):")
			entropy, err = io.ReadAll(io.LimitReader(in, 1<<20))
		} else {
			entropy, err = os.ReadFile(*entropyFile)
		}
		if err != nil {
			return fmt.Errorf("entropy: %w", err)
		}
		if len(entropy) == 0 {
			return errors.New("entropy: empty")
		}
	}
	c, err := setup.OpenCeremony(*dir)
	if err != nil {
		return err
	}
	start := time.Now()
	contribution, err := c.Contribute(phase, entropy)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "phase %d contribution %d written in %v\n", phase, contribution.Index, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(out, "contribution hash %s\n", contribution.Hash)
	fmt.Fprintln(out, "publish this hash; nothing of your randomness was written anywhere")
	return nil
}

func phase1Verify(args []string, out io.Writer) error {
	fs, dir := newFlagSet("phase1 verify", out)
	if err := parse(fs, dir, args); err != nil {
		return err
	}
	c, err := setup.OpenCeremony(*dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "ceremony %q: phase 1 of 2^%d points on %s\n", c.Info.Name, c.Info.Power, c.Info.Curve)
	start := time.Now()
	if _, _, _, err := c.VerifyPhase1(out); err != nil {
		return err
	}
	fmt.Fprintf(out, "verified in %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func beacon(args []string, out io.Writer) error {
	fs, dir := newFlagSet("beacon", out)
	phase := fs.Int("phase", 0, "phase to close: 1 or 2")
	value := fs.String("value", "", "the public beacon, hex: randomness fixed after the last contribution (a future block hash, a beacon round announced in advance)")
	if err := parse(fs, dir, args); err != nil {
		return err
	}
	b, err := hex.DecodeString(strings.TrimPrefix(*value, "0x"))
	if err != nil || len(b) == 0 {
		return fmt.Errorf("beacon: --value %q is not hex", *value)
	}
	c, err := setup.OpenCeremony(*dir)
	if err != nil {
		return err
	}
	if err := c.SetBeacon(*phase, b); err != nil {
		return err
	}
	fmt.Fprintf(out, "phase %d closed with beacon %x\n", *phase, b)
	return nil
}

func phase2New(args []string, out io.Writer) error {
	fs, dir := newFlagSet("phase2 new", out)
	cf := addCircuitFlags(fs)
	if err := parse(fs, dir, args); err != nil {
		return err
	}
	c, err := setup.OpenCeremony(*dir)
	if err != nil {
		return err
	}
	ccs, name, err := cf.compileTarget(out)
	if err != nil {
		return err
	}
	start := time.Now()
	first, err := c.NewPhase2(ccs)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "phase 2 for %s started in %v\n", name, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(out, "initial object %s\n", first.Hash)
	return nil
}

func phase2Verify(args []string, out io.Writer) error {
	fs, dir := newFlagSet("phase2 verify", out)
	cf := addCircuitFlags(fs)
	if err := parse(fs, dir, args); err != nil {
		return err
	}
	c, err := setup.OpenCeremony(*dir)
	if err != nil {
		return err
	}
	ccs, _, err := cf.compileTarget(out)
	if err != nil {
		return err
	}
	start := time.Now()
	if _, _, _, err := c.VerifyPhase2(ccs, out); err != nil {
		return err
	}
	fmt.Fprintf(out, "verified in %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

func seal(args []string, out io.Writer) error {
	fs, dir := newFlagSet("seal", out)
	cf := addCircuitFlags(fs)
	cache := fs.String("cache", "", "key cache directory (default $VERIFORMER_CACHE or .cache/keys in the module)")
	srsOut := fs.String("out", "", "file to write the SRS to (--circuit srs)")
	if err := parse(fs, dir, args); err != nil {
		return err
	}
	c, err := setup.OpenCeremony(*dir)
	if err != nil {
		return err
	}
	if *cf.circuit == "srs" {
		if *srsOut == "" {
			return errors.New("seal: --circuit srs needs --out")
		}
		if c.Info.Curve != ecc.BLS12_377.String() {
			return fmt.Errorf("seal: the KZG SRS is on BLS12-377, this ceremony on %s", c.Info.Curve)
		}
		if _, _, _, err := c.VerifyPhase1(out); err != nil {
			return err
		}
		digest, err := c.WriteSRS(*srsOut)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "KZG SRS of 2^%d points written to %s (%s)\n", c.Info.Power, *srsOut, digest)
		return nil
	}
	if *cache == "" {
		if *cache, err = setup.DefaultCacheDir(); err != nil {
			return err
		}
	}
	ccs, name, err := cf.compileTarget(out)
	if err != nil {
		return err
	}
	start := time.Now()
	m, err := c.Seal(ccs, *cache, out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "ceremony keys of %s sealed in %v into %s\n", name, time.Since(start).Round(time.Millisecond), *cache)
	fmt.Fprintf(out, "circuit %s\nproving key %s\nverifying key %s\n", m.Circuit, m.ProvingKey, m.VerifyingKey)
	return nil
}
