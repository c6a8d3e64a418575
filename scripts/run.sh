#!/usr/bin/env bash
# The project's main job: prove a greedy generation of the built-in default
# model, verify the proof natively, as a Groth16 proof and on go-ethereum's
# simulated chain through the exported Solidity verifier. Installs what it
# needs first (Go modules, the pinned solcjs). Extra arguments go to
# cmd/prove (see `scripts/run.sh -h`).
# Usage: scripts/run.sh [prove flags]
set -euo pipefail
cd "$(dirname "$0")/.."
go mod download
scripts/setup-solc.sh >/dev/null
exec go run ./cmd/prove "$@"
