#!/usr/bin/env bash
# The project's test command: formatting, vet, staticcheck and the test suite.
#
# Usage: scripts/test.sh [--full] [extra go test flags]
#
# The default tier (what CI runs) keeps a cheap test of every property:
# small circuits, gnark's test engine, the built-in micro model's
# end-to-end run with real Groth16 keys on the simulated chain. It is
# meant to finish within 20 minutes on a clean clone of a 2-core machine.
# --full adds the build tag full: the default model's end-to-end runs,
# the wrapper's and the aggregators' Groth16 setups and every value of
# the tamper walks (hours the first time; docs/measurements.md, "Heavier
# runs", gives the costs).
set -euo pipefail
cd "$(dirname "$0")/.."

full=
if [ "${1:-}" = "--full" ]; then
	full=1
	shift
fi

# Go modules are fetched by the first build that needs them. solcjs
# installs (npm, mostly waiting on the network) while the development node
# builds.
echo "== setup: solcjs and the development node"
solc_log=$(mktemp)
scripts/setup-solc.sh >"$solc_log" 2>&1 &
solc_pid=$!
scripts/setup-geth.sh
solc_status=0
wait "$solc_pid" || solc_status=$?
cat "$solc_log"; rm -f "$solc_log"
if [ "$solc_status" -ne 0 ]; then
	echo "setup-solc failed"; exit "$solc_status"
fi

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

# vet and staticcheck read the full tier's files too (the build tag
# full), so that they compile and stay clean in every run. With the tag,
# vet reads every file but those of the default tier alone (//go:build
# !full), whose packages the second call reads: a second pass over the
# whole module without the tag would read the same files again (about
# 80 s on a clean clone).
echo "== go vet"
go vet -tags full ./...
untagged=$(grep -rl --include='*.go' --exclude-dir=.cache '^//go:build !full' . | xargs -r -n1 dirname | sort -u)
if [ -n "$untagged" ]; then
	go vet $untagged
fi

echo "== staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags full ./...

module=$(go list -m)
if [ -n "$full" ]; then
	echo "== go test (full tier)"
	# One package at a time: the wrapper's setup alone takes 14-16 GB.
	flags=(-tags full -p 1 -timeout 300m)
else
	echo "== go test (default tier)"
	# Two test binaries at a time, the slowest packages first, so that
	# the run does not end with one of them alone. A package over the
	# timeout fails the run: the budget is part of the suite.
	flags=(-p 2 -timeout 30m)
fi
slow=(test pipeline test/lists test/batches test/workers gadgets/committed inference/committed recursion solidity circuits)
first=()
for p in "${slow[@]}"; do
	first+=("$module/$p")
done
rest=$(go list ./... | grep -vxF -f <(printf '%s\n' "${first[@]}"))
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
go test -count=1 "${flags[@]}" "$@" "${first[@]}" $rest 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e

passed=$(grep -c '^ok ' "$log" || true)
failed=$(grep -cE '^FAIL[[:space:]]+[^[:space:]]' "$log" || true)
echo
echo "== the 10 slowest packages"
awk '($1 == "ok" || $1 == "FAIL") && $3 ~ /^[0-9.]+s$/ { t = $3; sub(/s$/, "", t); printf "%9.1f s  %-4s %s\n", t, $1, $2 }' "$log" |
	sort -rn | head -10
if [ "$failed" -gt 0 ]; then
	echo
	echo "== failed tests, with the lines their packages' failures printed"
	grep -E -e '^[[:space:]]*--- FAIL' -e '^panic:' -e '^[[:space:]]+[a-z_]+_test\.go:[0-9]+: .*(want|FAIL|fail|refus|error|ended|no line)' "$log" | tail -40 || true
fi
echo "packages: $passed passed, $failed failed"
exit "$status"
