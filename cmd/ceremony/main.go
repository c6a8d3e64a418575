// Command ceremony runs the MPC ceremony that makes production Groth16
// keys for the circuits veriformer deploys — the direct circuit of a
// model, the aggregated design's segment, aggregator and wrapper circuits —
// and the BLS12-377 KZG SRS (a sealed phase 1), with gnark's two-phase
// ceremony (backend/groth16/<curve>/mpcsetup). Everything is exchanged as
// files in a ceremony directory; nothing goes over a network.
//
//	ceremony phase1 new        --dir D (--circuit KIND [circuit flags] | --curve C --power K)
//	ceremony phase1 contribute --dir D [--entropy-file F]
//	ceremony beacon            --dir D --phase 1 --value HEX
//	ceremony phase1 verify     --dir D
//	ceremony phase2 new        --dir D --circuit KIND [circuit flags]
//	ceremony phase2 contribute --dir D [--entropy-file F]
//	ceremony beacon            --dir D --phase 2 --value HEX
//	ceremony phase2 verify     --dir D --circuit KIND [circuit flags]
//	ceremony seal              --dir D --circuit KIND [circuit flags] [--cache DIR]
//	ceremony seal              --dir D --circuit srs --out FILE
//
// See docs/ceremony.md.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/consensys/gnark/logger"
	"github.com/rs/zerolog"

	"github.com/veriformer/veriformer/internal/memlimit"
)

func main() {
	// gnark's own debug lines would interleave with the progress output.
	logger.Set(zerolog.Nop())
	// Ceremony objects of the wrapper's size are gigabytes each: the
	// collector works harder near the machine's memory rather than let
	// the kernel kill the run (unless GOMEMLIMIT says otherwise).
	memlimit.Default()
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "ceremony:", err)
		os.Exit(1)
	}
}

const usage = `Usage: ceremony <command> [flags]

Commands (each takes -h):
  phase1 new          start a phase 1 (powers of tau) in a ceremony directory
  phase1 contribute   add a contribution to phase 1; prints its hash
  phase1 verify       replay phase 1 from the files; prints every hash; with
                      the beacon set, writes the sealed SRS commons
  phase2 new          start phase 2 for a circuit from the sealed phase 1
  phase2 contribute   add a contribution to phase 2; prints its hash
  phase2 verify       replay phases 1 and 2 from the files; prints every hash
  beacon              close a phase with its public beacon
  seal                replay everything and store the keys in the key cache
                      (or, for --circuit srs, write the KZG SRS file)

Circuits (--circuit): direct, segment, aggregator, wrapper, srs.
See docs/ceremony.md.
`

// run dispatches one command; in is where "--entropy-file -" reads from.
func run(args []string, in io.Reader, out io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(out, usage)
		if len(args) == 0 {
			return fmt.Errorf("no command")
		}
		return nil
	}
	cmd, rest := args[0], args[1:]
	if cmd == "phase1" || cmd == "phase2" {
		if len(rest) == 0 {
			return fmt.Errorf("%s: want new, contribute or verify", cmd)
		}
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	switch cmd {
	case "phase1 new":
		return phase1New(rest, out)
	case "phase1 contribute":
		return contribute(1, rest, in, out)
	case "phase1 verify":
		return phase1Verify(rest, out)
	case "phase2 new":
		return phase2New(rest, out)
	case "phase2 contribute":
		return contribute(2, rest, in, out)
	case "phase2 verify":
		return phase2Verify(rest, out)
	case "beacon":
		return beacon(rest, out)
	case "seal":
		return seal(rest, out)
	default:
		return fmt.Errorf("unknown command %q\n\n%s", cmd, usage)
	}
}
