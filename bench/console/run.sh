#!/usr/bin/env bash
# The console's fleet page against a gateway fed NODES x 8 simulated cards at 1 Hz by `gpuwatch bench fleet`:
# prints fleet-page.cjs's JSON (docs/performance.md, Web console). Needs chromium, node and npm.
#   bench/console/run.sh [NODES]      # default 1250 nodes = 10,000 cards
set -euo pipefail
cd "$(dirname "$0")/../.."
NODES=${1:-1250}
PORT=${PORT:-19464}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
jar=cli/target/gpuwatch.jar
[ -f "$jar" ] || ./gpuwatch --help >/dev/null
java -jar "$jar" token new --node 'bench-*' --file "$work/probe.tokens" > "$work/probe.token"
java -jar "$jar" token new --role viewer --name bench --file "$work/api.tokens" > "$work/api.token"
java -Xmx2g -jar "$jar" gateway --tokens "$work/probe.tokens" --api-tokens "$work/api.tokens" \
    --listen "127.0.0.1:$PORT" > "$work/gateway.log" 2>&1 &
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$PORT/-/ready" >/dev/null && break; sleep 1; done
java -jar "$jar" bench fleet --nodes "$NODES" --cards 8 --interval 1s --duration 10m \
    --gateway "ws://127.0.0.1:$PORT/v1/probe" --token-file "$work/probe.token" > "$work/fleet.log" 2>&1 &
# the connect ramp (200 nodes a second) and a minute of readings
sleep 60
cp cli/src/test/browser/package.json cli/src/test/browser/package-lock.json bench/console/fleet-page.cjs "$work/"
(cd "$work" && npm ci --no-audit --no-fund >/dev/null)
(cd "$work" && BASE_URL="http://127.0.0.1:$PORT" TOKEN="$(tr -d '[:space:]' < api.token)" node fleet-page.cjs)
