#!/usr/bin/env bash
# A distributed proof on this machine, as it runs across machines: a
# NATS cluster of three nodes with JetStream on localhost (the server
# built from the Go module, github.com/nats-io/nats-server/v2) that lets
# in only the deployment's coordinator and workers (nkeys, per-subject
# permissions), with TLS between the nodes and to the clients; three
# workers (prove worker) and one proof whose jobs they take (prove
# --nats). Everything it starts is stopped when it ends; the
# credentials, the nodes' data and the logs are in .cache/cluster
# (removed first).
#
# Usage: scripts/cluster-local.sh [prove flags]   (default: the built-in
# micro model in the aggregated design, "Hi" and two tokens)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=.cache/cluster
rm -rf "$dir"
mkdir -p "$dir/bin"
start=$(date +%s)

echo "== building the NATS server (from the Go module) and prove"
go build -o "$dir/bin/nats-server" github.com/nats-io/nats-server/v2
go build -o "$dir/bin/prove" ./cmd/prove

echo "== credentials: a coordinator, three workers, the servers' users and TLS certificate"
"$dir/bin/prove" credentials --out "$dir/credentials" --workers 3 --tls-host 127.0.0.1,localhost
creds=$(cd "$dir/credentials" && pwd)

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
}
trap cleanup EXIT

echo "== three NATS nodes with JetStream: clients on 4222-4224, routes on 6222-6224, TLS on both"
routes="nats-route://127.0.0.1:6222, nats-route://127.0.0.1:6223, nats-route://127.0.0.1:6224"
for i in 1 2 3; do
	# users.conf: only the coordinator may publish jobs; a worker its
	# results, its pulls and acknowledgements of jobs, and the blobs.
	cat >"$dir/n$i.conf" <<CONF
server_name: n$i
host: 127.0.0.1
port: $((4221 + i))
jetstream { store_dir: "$(pwd)/$dir/n$i" }
tls {
  cert_file: "$creds/tls/server.pem"
  key_file: "$creds/tls/server-key.pem"
}
$(cat "$creds/users.conf")
cluster {
  name: veriformer
  listen: 127.0.0.1:$((6221 + i))
  routes: [$routes]
  tls {
    cert_file: "$creds/tls/server.pem"
    key_file: "$creds/tls/server-key.pem"
    ca_file: "$creds/tls/ca.pem"
    verify: true
  }
}
CONF
	"$dir/bin/nats-server" -c "$dir/n$i.conf" >"$dir/n$i.log" 2>&1 &
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
	"$dir/bin/prove" worker --nats "$urls" --credentials "$creds/worker-$i.json" >"$dir/worker-$i.log" 2>&1 &
	pids+=($!)
done

echo "== one proof on them"
args=("$@")
if [ ${#args[@]} -eq 0 ]; then
	args=(--model micro --design aggregated --prompt Hi --tokens 2 --chain=false)
fi
"$dir/bin/prove" "${args[@]}" --nats "$urls" --credentials "$creds/coordinator.json"
echo "== the workers' jobs"
grep -h "done in\|failed\|refused" "$dir"/worker-*.log || true
echo "== $(($(date +%s) - start)) s from the start of this script"
