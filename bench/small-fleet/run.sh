#!/usr/bin/env bash
# A 256-card gateway as a user runs it: `./gpuwatch gateway` with the default pack (examples/rules), fed by
# `./gpuwatch bench fleet --nodes 32 --cards 8` (1 s samples) from another process. After a warm-up, the
# gateway's CPU = utime+stime from /proc/PID/stat over the window, RSS = VmRSS (window peak and end).
# Usage: bench/small-fleet/run.sh [WARM_S=60] [MEASURE_S=180] [VARIANT...]
#   a VARIANT is the gateway's extra launcher arguments, e.g. '--fleet-size small'; '' is plain `./gpuwatch gateway`.
#   Variants run one after another, each with its own gateway and fleet.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
warm="${1:-60}"; measure="${2:-180}"; shift $(( $# < 2 ? $# : 2 ))
variants=("$@"); [ ${#variants[@]} -gt 0 ] || variants=("")
nodes="${NODES:-32}"; cards=8
dir="$(mktemp -d /tmp/small-fleet.XXXXXX)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
cpu_ticks() { awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
hz=$(getconf CLK_TCK)

cd "$root"
./gpuwatch token new --node 'bench-*' --file "$dir/tokens" | head -1 > "$dir/token"
rows=()
for i in "${!variants[@]}"; do
  port=$(( 20000 + RANDOM % 20000 ))
  # shellcheck disable=SC2086 # a variant is several words
  ./gpuwatch gateway ${variants[$i]} --listen "127.0.0.1:$port" --rules examples/rules --tokens "$dir/tokens" \
      --no-console --data-dir "$dir/data-$i" > "$dir/gateway-$i.log" 2>&1 &
  gw=$!; pids+=($gw)
  for _ in $(seq 120); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 1; done
  ./gpuwatch bench fleet --nodes "$nodes" --cards "$cards" --interval 1s --duration "$(( warm + measure + 15 ))s" \
      --gateway "ws://127.0.0.1:$port/v1/probe" --token-file "$dir/token" --summary-json "$dir/fleet-$i.json" \
      > "$dir/fleet-$i.log" 2>&1 &
  fleet=$!; pids+=($fleet)
  sleep "$warm"
  t0=$(cpu_ticks "$gw"); peak=0; start=$(date +%s.%N); end=$(( $(date +%s) + measure ))
  while [ "$(date +%s)" -lt "$end" ]; do r=$(rss_kib "$gw"); [ "$r" -gt "$peak" ] && peak=$r; sleep 5; done
  wall=$(echo "$(date +%s.%N) - $start" | bc -l)
  ticks=$(( $(cpu_ticks "$gw") - t0 )); rss=$(rss_kib "$gw")
  us_per_gpu_s=$(echo "1000000 * $ticks / $hz / $wall / ($nodes * $cards)" | bc -l)
  rows+=("$(printf '%-40s %8.2f %12.0f %9.1f %9.1f %9.0f' "'${variants[$i]}'" "$(echo "100 * $ticks / $hz / $wall" | bc -l)" \
      "$us_per_gpu_s" "$(echo "$rss / 1024" | bc -l)" "$(echo "$peak / 1024" | bc -l)" "$(( peak / (nodes * cards) ))")")
  kill "$fleet" "$gw" 2>/dev/null || true; wait "$gw" 2>/dev/null || true
done
echo "$nodes nodes x $cards cards at 1 s; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); warm-up ${warm} s, window ${measure} s; logs in $dir"
printf '%-40s %8s %12s %9s %9s %9s\n' "variant (launcher args)" "CPU %" "us/GPU/s" "RSS MiB" "peak MiB" "KiB/GPU"
printf '%s\n' "${rows[@]}"
