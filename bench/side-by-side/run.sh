#!/usr/bin/env bash
# gpuwatch side by side with the Prometheus + Alertmanager yardstick (../shared/bench/prom-anchor): per fleet
# size, a gateway with the yardstick's five rules in our DSL (rules/yardstick.yml), `gpuwatch bench fleet` as the
# fleet (1 s samples, XIDs on the yardstick's schedule: a trial every 37 s + U(0, 6) s), the yardstick's own
# webhook_receiver.py, procstat.py (gateway CPU and RSS from /proc over the window) and analyze_latency.py.
# Then one markdown row per size beside the yardstick's figures. A long run: never part of `mvn verify`.
#
#   bench/side-by-side/run.sh 256 2048 16384          # from the repository root; sizes in GPUs (8 per node)
#   WARMUP=90 WINDOW=300 TRIALS=8 bench/side-by-side/run.sh 2048   # the yardstick's own warm-up and window
#   WARMUP=60 WINDOW=60 LATE_AT=1740 bench/side-by-side/run.sh 16384  # minute 1-2 and again minute 30-31 (LATE_AT
#                                                                      # seconds after the warm-up), same length
#   RULES=examples/rules ALERTNAME=xid-fallen-off-bus bench/side-by-side/run.sh 2048   # the default pack
#   LAUNCH=gpuwatch bench/side-by-side/run.sh 256      # the gateway as a user starts it: ./gpuwatch gateway, no
#   LAUNCH=gpuwatch GATEWAY_ARGS='--fleet-size small' bench/side-by-side/run.sh 256   # -Xmx of ours
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
here="$root/bench/side-by-side"
anchor="${ANCHOR:-$root/../shared/bench/prom-anchor}"
bin="$anchor/bin"
jar="${JAR:-$root/cli/target/gpuwatch.jar}"
out="${OUT:-/tmp/gpuwatch-side-by-side}"
warmup="${WARMUP:-90}"
window="${WINDOW:-300}"
trials="${TRIALS:-8}"
late_at="${LATE_AT:-}"
heap="${HEAP:-2g}"
gateway_opts="${GATEWAY_OPTS:-}"   # more JVM options for the gateway, e.g. -Dio.netty.allocator.type=pooled
rules="${RULES:-$here/rules}"      # the yardstick's five rules; examples/rules is the default pack
alertname="${ALERTNAME:-gpu-xid-error}"   # the rule that pages the fleet's XID 79
launch="${LAUNCH:-java}"           # java: java -Xmx$HEAP -jar; gpuwatch: the launcher, its own JVM settings
gateway_args="${GATEWAY_ARGS:-}"   # more gateway arguments, e.g. --fleet-size small (LAUNCH=gpuwatch)
case "$rules" in /*) ;; *) rules="$root/$rules" ;; esac
gport="${GATEWAY_PORT:-19464}"
rport="${RECEIVER_PORT:-19596}"
[ $# -gt 0 ] || { echo "usage: $0 GPUS [GPUS...]   (e.g. 256 2048 16384 50000)" >&2; exit 2; }
[ -f "$jar" ] || { echo "no $jar: build with mvn -B -o -q package -DskipTests (or set JAR=)" >&2; exit 2; }
[ -d "$bin" ] || { echo "no yardstick at $anchor (set ANCHOR=)" >&2; exit 2; }

pids=()
stop() { for p in "${pids[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done; pids=(); }
trap stop EXIT INT TERM

metrics() { python3 -c "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen('http://127.0.0.1:$gport/metrics', timeout=10).read().decode())"; }

dirs=()
for gpus in "$@"; do
  nodes=$(( (gpus + 7) / 8 ))
  dir="$out/gpus-$gpus"; rm -rf "$dir"; mkdir -p "$dir"; dirs+=("$dir")
  connect=$(( nodes / 200 + 3 ))
  duration=$(( connect + warmup + window + 5 ))
  [ -z "$late_at" ] || duration=$(( connect + warmup + late_at + window + 5 ))
  maxrt=$(( duration + 120 ))
  echo "== $gpus GPUs ($nodes nodes): connect ${connect}s, warm-up ${warmup}s, window ${window}s" >&2

  python3 "$bin/webhook_receiver.py" --port "$rport" --log "$dir/webhook.jsonl" --max-runtime "$maxrt" \
      > "$dir/receiver.log" 2>&1 &
  pids+=($!)
  java -jar "$jar" token new --node 'bench-*' --file "$dir/bench.tokens" | head -1 > "$dir/bench.token"
  if [ "$launch" = gpuwatch ]; then
    gateway=("$root/gpuwatch" gateway)
  else
    gateway=(java -Xmx"$heap" $gateway_opts -Dgpuwatch.home="$root" -jar "$jar" gateway)
  fi
  # shellcheck disable=SC2086 # GATEWAY_ARGS is a list of arguments
  timeout "$maxrt" "${gateway[@]}" $gateway_args --listen "127.0.0.1:$gport" \
      --tokens "$dir/bench.tokens" --rules "$rules" --no-console \
      --webhook "http://127.0.0.1:$rport/gpuwatch" > "$dir/gateway.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 60); do metrics > /dev/null 2>&1 && break; sleep 1; done
  # the JVM under timeout is what gets measured
  gw=$(pgrep -P "${pids[-1]}" java || echo "${pids[-1]}")

  xids=$(python3 "$here/gpuwatch_flips.py" --schedule --start "$(( connect + warmup ))" --trials "$trials" --nodes "$nodes")
  timeout "$maxrt" java -Dgpuwatch.home="$root" -jar "$jar" bench fleet --nodes "$nodes" --cards 8 --interval 1s \
      --duration "${duration}s" --gateway "ws://127.0.0.1:$gport/v1/probe" --token-file "$dir/bench.token" \
      --xid-at "$xids" --summary-json "$dir/fleet.json" > "$dir/fleet.log" 2>&1 &
  fleet=$!; pids+=($fleet)

  sleep $(( connect + warmup ))
  metrics > "$dir/metrics-start.txt"
  python3 "$bin/procstat.py" --pid "gpuwatch=$gw" --window "$window" --interval 5 --out "$dir/procstat.json" > /dev/null
  metrics > "$dir/metrics-end.txt"
  if [ -n "$late_at" ]; then
    # the same window again once the windows have filled: the cost must not grow with the data held
    sleep $(( late_at - window ))
    metrics > "$dir/metrics-late-start.txt"
    python3 "$bin/procstat.py" --pid "gpuwatch=$gw" --window "$window" --interval 5 --out "$dir/procstat-late.json" > /dev/null
    metrics > "$dir/metrics-late-end.txt"
  fi
  wait "$fleet" || echo "bench fleet exited non-zero (see $dir/fleet.log)" >&2
  sleep 5
  stop

  python3 "$here/gpuwatch_flips.py" --summary "$dir/fleet.json" --webhook "$dir/webhook.jsonl" \
      --flips-out "$dir/flips.jsonl" --webhook-out "$dir/webhook-joined.jsonl"
  python3 "$bin/analyze_latency.py" --flips "$dir/flips.jsonl" --webhook "$dir/webhook-joined.jsonl" \
      --alertname "$alertname" --json-out "$dir/latency.json" > "$dir/latency.md"
done

python3 "$here/summarize.py" --anchor "$anchor" \
    --command "WARMUP=$warmup WINDOW=$window TRIALS=$trials${late_at:+ LATE_AT=$late_at}${RULES:+ RULES=$RULES ALERTNAME=$alertname}${LAUNCH:+ LAUNCH=$LAUNCH}${GATEWAY_ARGS:+ GATEWAY_ARGS='$GATEWAY_ARGS'} bench/side-by-side/run.sh GPUS" "${dirs[@]}" | tee "$out/side-by-side.md"
