#!/usr/bin/env bash
# A distributed proof on this machine, as it runs across machines: a
# NATS cluster of three nodes with JetStream on localhost (the server
# built from the Go module, github.com/nats-io/nats-server/v2), three
# workers (prove worker) and one proof whose segment jobs they take
# (prove --nats). Everything it starts is stopped when it ends; the
# nodes' data and the logs are in .cache/cluster (removed first).
#
# Usage: scripts/cluster-local.sh [prove flags]   (default: the built-in
# micro model in the aggregated design, "Hi" and two tokens)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.cache/cluster
rm -rf "$dir"
mkdir -p "$dir/bin"

echo "== building the NATS server (from the Go module) and prove"
go build -o "$dir/bin/nats-server" github.com/nats-io/nats-server/v2
go build -o "$dir/bin/prove" ./cmd/prove

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup EXIT

echo "== three NATS nodes with JetStream: clients on 4222-4224, routes on 6222-6224"
routes=nats://127.0.0.1:6222,nats://127.0.0.1:6223,nats://127.0.0.1:6224
for i in 1 2 3; do
	"$dir/bin/nats-server" --name "n$i" --addr 127.0.0.1 --port $((4221 + i)) \
		--jetstream --store_dir "$dir/n$i" \
		--cluster_name veriformer --cluster nats://127.0.0.1:$((6221 + i)) --routes "$routes" \
		>"$dir/n$i.log" 2>&1 &
	pids+=($!)
done
for port in 4222 4223 4224; do
	for _ in $(seq 100); do
		(exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
		sleep 0.1
	done
done
urls=nats://127.0.0.1:4222,nats://127.0.0.1:4223,nats://127.0.0.1:4224
# The cluster elects its JetStream leader after the routes connect.
sleep 3

echo "== three workers (logs in $dir/worker-*.log)"
for i in 1 2 3; do
	"$dir/bin/prove" worker --nats "$urls" --name "w$i" >"$dir/worker-$i.log" 2>&1 &
	pids+=($!)
done

echo "== one proof on them"
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
	args=(--model micro --design aggregated --prompt Hi --tokens 2 --chain=false)
fi
"$dir/bin/prove" "${args[@]}" --nats "$urls"
echo "== the workers' jobs"
grep -h "done in\|failed" "$dir"/worker-*.log || true
