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
# The end-to-end package (test) takes the longest by far. It starts at once,
# beside the other packages, which run one at a time: two test binaries at a
# time as with go test's default on two cores, but the run no longer ends
# with the end-to-end tests alone. Its output follows the others'. Sharing
# the cores, it took 74 minutes of a 75-minute clean-clone run on a slow
# 2-core machine, so its timeout is 85 minutes.
module=$(go list -m)
others=$(go list ./... | grep -vx "$module/test")
log=$(mktemp)
e2e=$(mktemp)
e2e_pid=
# The end-to-end run is a process group of its own (setsid), stopped with
# the script: an interrupt (which a background job does not receive) or
# any other exit.
trap '[ -n "$e2e_pid" ] && kill -- -"$e2e_pid" 2>/dev/null; rm -f "$log" "$e2e"' EXIT
trap 'exit 130' INT TERM
set +e
echo "(the end-to-end package $module/test runs meanwhile; its result is printed last)"
setsid --wait go test -count=1 -timeout 85m "$@" ./test >"$e2e" 2>&1 &
e2e_pid=$!
go test -count=1 -timeout 80m -p 1 "$@" $others 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
wait "$e2e_pid"
e2e_status=$?
e2e_pid=
tee -a "$log" <"$e2e"
set -e
if [ "$status" -eq 0 ]; then
	status=$e2e_status
fi
passed=$(grep -c '^ok ' "$log" || true)
failed=$(grep -c '^FAIL' "$log" || true)
echo "packages: $passed passed, $failed failed"
exit "$status"
