#!/usr/bin/env bash
# Probe footprint: one gateway (default pack) and one `./gpuwatch probe --nvml` per variant on the fake
# libnvidia-ml.so.1 with 8 fully featured cards (18 NVLink links, GPM, two processes, events) stepping every 1 s,
# each started the way a user starts it (the launcher). After a warm-up, CPU = utime+stime from /proc/PID/stat
# over the window, RSS = VmRSS at its end (and the window's peak of VmRSS samples).
# Usage: bench/probe-footprint/run.sh [WARM_S=60] [MEASURE_S=120] [VARIANT...]
#   a VARIANT is extra JVM options for that probe (GPUWATCH_JAVA_OPTS); '' (the default) is the launcher's own.
#   BASELINE=DIR adds, first, a probe started by DIR/gpuwatch (another checkout, e.g. a `git worktree` of an
#   older commit, built), so old and new run side by side under the same load.
#   As examples/deploy/ starts it: TLS=1 serves the gateway with a self-signed certificate (--tls-cert/--tls-key)
#   and has every probe connect over wss:// (--trust); SCRAPE=1 adds --scrape-config with one TGI target every
#   2 s, a python3 http.server (metrics-server.py: kept alive, as TGI's server does) answering the recorded tgi-1.txt.
# Needs the fake library: mvn -o -B -q -pl node-probe -am test-compile (or the gcc line below).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
warm="${1:-60}"; measure="${2:-120}"; shift $(( $# < 2 ? $# : 2 ))
variants=("$@"); [ ${#variants[@]} -gt 0 ] || variants=("")
fake="$root/node-probe/target/fake-nvml/libnvidia-ml.so.1"
[ -f "$fake" ] || { mkdir -p "$(dirname "$fake")"; gcc -shared -fPIC -O2 -pthread -o "$fake" "$root/node-probe/src/test/c/fake_nvml.c"; }
dir="$(mktemp -d /tmp/probe-footprint.XXXXXX)"
port="${PORT:-$(( 20000 + RANDOM % 20000 ))}"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# the 8-card script ProbeOverhead.script(8, 18) writes (node-probe/src/test/.../ProbeOverhead.java)
buses=(27 67 82 97 157 195 209 223)
{
  printf 'driver 580.95.05\nnvml 13.580.95.05\ncards 8\n'
  for i in 0 1 2 3 4 5 6 7; do
    c="card $i"
    printf '%s uuid GPU-fake-%04d-4e2a-9c1d-7b3f05a1c%03d\n%s name NVIDIA H100 80GB HBM3\n' "$c" $((i+1)) $((i+1)) "$c"
    printf '%s pci 00000000:%02X:00.0\n' "$c" "${buses[$i]}"
    printf '%s mem.total 85520809984\n%s mem.reserved 560988160\n%s mem.used %d\n' "$c" "$c" "$c" $((61203283968 + i*4096))
    printf '%s power.limit 700000\n%s clock.sm.max 1980\n%s mig 0\n%s util.gpu %d\n' "$c" "$c" "$c" "$c" $((90 + i))
    printf '%s util.mem 41\n%s temp %d\n%s temp.mem 80\n%s power %d\n' "$c" "$c" $((60 + i)) "$c" "$c" $((612400 + i*117))
    for kv in "energy 123456789012" "clock.sm 1755" "clock.mem 2619" "pstate 0" "reasons 0x4" "ecc.corrected 7" \
        "ecc.uncorrected 0" "retired.pending 0" "remap.corr 3" "remap.unc 0" "remap.pending 0" "remap.failed 0" \
        "pcie.tx 120034" "pcie.rx 98122" "pcie.replays 0" "pcie.gen 5" "pcie.width 16" "nvlinks 18" \
        "nvlink.replay 0" "nvlink.recovery 0" "nvlink.crc.flit 0" "nvlink.crc.data 0" "gpm 1" "gpm.sm 62.5" \
        "gpm.occupancy 31.25" "gpm.tensor 44" "gpm.dram 58" "events 0x1B"; do
      printf '%s %s\n' "$c" "$kv"
    done
    printf '%s proc %d 60129542144\n%s proc %d 536870912\n' "$c" $((4242 + i)) "$c" $((9000 + i))
  done
} > "$dir/eight-cards.nvml"

cd "$root"
./gpuwatch token new --node 'fp-*' --file "$dir/tokens" | head -1 > "$dir/token"
tls_gateway=(); scheme=ws; probe_opts=()
if [ "${TLS:-0}" = 1 ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
      -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
  tls_gateway=(--tls-cert "$dir/cert.pem" --tls-key "$dir/key.pem"); scheme=wss; probe_opts+=(--trust "$dir/cert.pem")
fi
if [ "${SCRAPE:-0}" = 1 ]; then
  mkdir -p "$dir/www"; cp node-probe/src/test/resources/scrape/tgi-1.txt "$dir/www/metrics"
  scrape_port=$(( port + 1 ))
  (cd "$dir/www" && exec python3 "$here/metrics-server.py" "$scrape_port" keep) &
  pids+=($!)
  printf 'interval: 2s\ntargets:\n  - task: svc-tgi\n    server: tgi\n    url: http://127.0.0.1:%d/metrics\n' \
      "$scrape_port" > "$dir/scrape.yaml"
  probe_opts+=(--scrape-config "$dir/scrape.yaml")
fi
./gpuwatch gateway --listen "127.0.0.1:$port" --rules examples/rules --tokens "$dir/tokens" --no-console \
    --data-dir "$dir/data" "${tls_gateway[@]}" > "$dir/gateway.log" 2>&1 &
pids+=($!)
for _ in $(seq 120); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 1; done

launchers=()
for _ in "${variants[@]}"; do launchers+=("./gpuwatch"); done
labels=("${variants[@]/#/\'}"); labels=("${labels[@]/%/\'}")
if [ -n "${BASELINE:-}" ]; then
  variants=("" "${variants[@]}"); launchers=("$BASELINE/gpuwatch" "${launchers[@]}"); labels=("baseline $BASELINE" "${labels[@]}")
fi
probes=()
for i in "${!variants[@]}"; do
  FAKE_NVML_SCRIPT="$dir/eight-cards.nvml" FAKE_NVML_STEP_MS=1000 GPUWATCH_JAVA_OPTS="${variants[$i]}" \
    "${launchers[$i]}" probe --gateway "$scheme://127.0.0.1:$port" --token-file "$dir/token" --nvml \
    --nvml-library "$fake" --node "fp-$i" "${probe_opts[@]}" > "$dir/probe-$i.log" 2>&1 &
  probes+=($!); pids+=($!)
done

cpu_ticks() { awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

sleep "$warm"
declare -A t0 peak
for p in "${probes[@]}"; do t0[$p]=$(cpu_ticks "$p"); peak[$p]=0; done
start=$(date +%s.%N)
end=$(( $(date +%s) + measure ))
while [ "$(date +%s)" -lt "$end" ]; do
  for p in "${probes[@]}"; do r=$(rss_kib "$p"); [ "$r" -gt "${peak[$p]}" ] && peak[$p]=$r; done
  sleep 5
done
wall=$(echo "$(date +%s.%N) - $start" | bc -l)
hz=$(getconf CLK_TCK)
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); warm-up ${warm} s, window ${wall%.*} s; logs in $dir"
echo "gateway $scheme://, probe options: ${probe_opts[*]:-none}"
printf '%-70s %10s %10s %10s\n' "variant (GPUWATCH_JAVA_OPTS)" "CPU %core" "RSS MiB" "peak MiB"
for i in "${!variants[@]}"; do
  p=${probes[$i]}
  [ -d "/proc/$p" ] || { echo "probe $i (${labels[$i]}) died: $(tail -3 "$dir/probe-$i.log")"; continue; }
  ticks=$(( $(cpu_ticks "$p") - ${t0[$p]} ))
  printf '%-70s %10.2f %10.1f %10.1f\n' "${labels[$i]}" "$(echo "100 * $ticks / $hz / $wall" | bc -l)" \
      "$(echo "$(rss_kib "$p") / 1024" | bc -l)" "$(echo "${peak[$p]} / 1024" | bc -l)"
done
