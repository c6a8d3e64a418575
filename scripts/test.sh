#!/usr/bin/env bash
# The project's test command: formatting, vet, staticcheck and the test suite.
# Usage: scripts/test.sh [extra go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== go mod download"
go mod download

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
go test -count=1 -timeout 80m "$@" ./... 2>&1 | tee /tmp/veriformer-test.log
status=${PIPESTATUS[0]}
passed=$(grep -c '^ok ' /tmp/veriformer-test.log || true)
failed=$(grep -c '^FAIL' /tmp/veriformer-test.log || true)
echo "packages: $passed passed, $failed failed"
exit "$status"
