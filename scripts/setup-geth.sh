#!/usr/bin/env bash
# Builds the development node (test/devnode: go-ethereum's
# developer mode, as `geth --dev` runs it, from the go-ethereum version that
# go.mod pins) into .cache/bin/devnode, for the JSON-RPC tests of package
# solidity. The go build cache makes a repeated run quick.
#
# Why not cmd/geth itself: its command-line front end imports a beacon-chain
# client library that the Go module proxy does not serve, so it cannot be
# built here; the node, the eth service and the developer-mode block producer
# it would run are the same packages.
# Usage: scripts/setup-geth.sh
set -euo pipefail
cd "$(dirname "$0")/.."

mkdir -p .cache/bin
go build -o .cache/bin/devnode ./test/devnode
echo "built .cache/bin/devnode"
