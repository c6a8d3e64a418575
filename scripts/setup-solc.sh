#!/usr/bin/env bash
# Installs the pinned Solidity compiler (npm package solc, which provides
# solcjs) into .cache/solc, for package solidity. Does nothing when that
# version is already installed.
# Usage: scripts/setup-solc.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# Keep in step with SolcVersion in solidity/compile.go.
version=0.8.37
prefix=.cache/solc
solcjs=$prefix/node_modules/.bin/solcjs

if [ -x "$solcjs" ] && "$solcjs" --version 2>/dev/null | grep -q "^$version+"; then
	echo "solcjs $version already installed in $prefix"
	exit 0
fi
if ! command -v npm >/dev/null; then
	echo "setup-solc: npm is required (install Node.js)" >&2
	exit 1
fi
mkdir -p "$prefix"
npm install --no-save --no-audit --no-fund --prefix "$prefix" "solc@$version"
"$solcjs" --version
