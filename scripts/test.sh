#!/usr/bin/env bash
# The project's test command: formatting, vet, staticcheck and the test suite.
# Usage: scripts/test.sh [extra go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== go mod download"
go mod download

echo "== setup: solcjs and the development node"
scripts/setup-solc.sh
scripts/setup-geth.sh

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== go vet"
go vet ./...

echo "== staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

echo "== go test"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
go test -count=1 -timeout 80m "$@" ./... 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
passed=$(grep -c '^ok ' "$log" || true)
failed=$(grep -c '^FAIL' "$log" || true)
echo "packages: $passed passed, $failed failed"
exit "$status"
