#!/usr/bin/env python3
"""One markdown row per fleet size: gpuwatch's figures from a run.sh directory beside the yardstick's own
(prom-anchor runs/resources/gpus-N/resources.json, the 5-rule runs), with the ratios."""
import argparse
import json
import os

CARD_METRICS = 28  # metric values per card per sample, as `bench fleet` counts them


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def metric(path, name):
    with open(path) as f:
        for line in f:
            if line.startswith(name + " "):
                return float(line.split()[1])
    return 0.0


def buckets(path, frame):
    """The gpuwatch_decision_seconds buckets of one frame type: [(upper bound, cumulative count)]."""
    out = []
    prefix = 'gpuwatch_decision_seconds_bucket{frame="%s",le="' % frame
    with open(path) as f:
        for line in f:
            if line.startswith(prefix):
                le = line[len(prefix):].split('"')[0]
                out.append((float("inf") if le == "+Inf" else float(le), float(line.split()[-1])))
    return out


def decision_p99(d, frame="sample"):
    """p99 of read-to-decided over the window, as the upper bound of the bucket holding it ('≤ X ms')."""
    b0 = dict(buckets(os.path.join(d, "metrics-start.txt"), frame))
    b1 = buckets(os.path.join(d, "metrics-end.txt"), frame)
    if not b1:
        return "–"
    total = b1[-1][1] - b0.get(b1[-1][0], 0)
    if total <= 0:
        return "none"
    for le, n in b1:
        if n - b0.get(le, 0) >= 0.99 * total:
            return "≤ %g ms" % (le * 1000) if le != float("inf") else "> 10 s"
    return "–"


def window_samples(d, start, end):
    m0, m1 = os.path.join(d, start), os.path.join(d, end)
    return (metric(m1, "gpuwatch_ingest_card_readings_total") - metric(m0, "gpuwatch_ingest_card_readings_total")) * CARD_METRICS


def late(d):
    """CPU-s per 1M samples in the LATE_AT window, or '–' when the run had none."""
    stat = load(os.path.join(d, "procstat-late.json"))
    if not stat:
        return "–"
    samples = window_samples(d, "metrics-late-start.txt", "metrics-late-end.txt")
    return "%.2f" % (stat["procs"]["gpuwatch"]["cpu_s"] / (samples / 1e6)) if samples else "no samples"


def row(d, anchor, command):
    gpus = int(os.path.basename(d.rstrip("/")).split("-")[1])
    stat = load(os.path.join(d, "procstat.json"))
    ps = stat["procs"]["gpuwatch"]
    samples = window_samples(d, "metrics-start.txt", "metrics-end.txt")
    m0, m1 = os.path.join(d, "metrics-start.txt"), os.path.join(d, "metrics-end.txt")
    shed = metric(m1, "gpuwatch_ingest_shed_samples_total") - metric(m0, "gpuwatch_ingest_shed_samples_total")
    disabled = metric(m1, "gpuwatch_rules_disabled")
    cpu_per_m = ps["cpu_s"] / (samples / 1e6) if samples else float("nan")
    rss_per_gpu = ps["rss_end"] / gpus
    fleet = load(os.path.join(d, "fleet.json")) or {}
    lat = load(os.path.join(d, "latency.json")) or {}
    l = next(iter(lat.values()), {}).get("latency_s", {}) if lat else {}
    behind = "no" if fleet.get("framesAcked") == fleet.get("framesCreated") and not shed else \
        "yes: %d of %d frames unacked, %d samples shed, lag max %s ms" % (
            fleet.get("framesCreated", 0) - fleet.get("framesAcked", 0), fleet.get("framesCreated", 0), shed,
            fleet.get("maxLagMs"))
    r = load(os.path.join(anchor, "runs", "resources", "gpus-%d" % gpus, "resources.json"))
    prom_cpu = r["derived"]["prom_cpu_s_per_million_samples"] if r else None
    prom_rss = r["derived"]["prom_rss_end_bytes_per_gpu"] if r else None
    f = lambda x, fmt: fmt % x if x is not None else "–"  # noqa: E731
    ratio = lambda a, b: "%.1f×" % (a / b) if a and b else "–"  # noqa: E731
    xid = "%s / %s ms (%d of %d)" % (f(l.get("median") and l["median"] * 1000, "%.0f"), f(l.get("max") and l["max"] * 1000, "%.0f"),
                                     l.get("n", 0), len(fleet.get("xids", []))) if l else "–"
    return ("| %d | %.0f | %s | %.2f | %s | %s | %s | %.1f | %s | %s | %s | %s | %s | `%s` |" % (
        gpus, samples / stat["wall_s"], f(prom_cpu, "%.2f"), cpu_per_m, late(d), ratio(prom_cpu, cpu_per_m),
        f(prom_rss and prom_rss / 1024, "%.0f"), rss_per_gpu / 1024, ratio(prom_rss, rss_per_gpu), xid,
        decision_p99(d),
        behind, "%d" % disabled, command))


HEADER = ("| GPUs | gpuwatch samples/s | Prometheus CPU-s / 1M samples | gpuwatch CPU-s / 1M samples "
          "| the same in the LATE_AT window | ratio "
          "| Prometheus RSS KiB / GPU | gpuwatch RSS KiB / GPU | ratio | gpuwatch XID → webhook median / max "
          "| sample read → decided, p99 "
          "| gpuwatch fell behind | rules disabled | command |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--anchor", required=True)
    ap.add_argument("--command", default="bench/side-by-side/run.sh")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    print(HEADER)
    for d in a.dirs:
        print(row(d, a.anchor, a.command.replace("GPUS", os.path.basename(d.rstrip("/")).split("-")[1])))
