#!/usr/bin/env python3
"""Puts a gpuwatch run in the yardstick's shapes, so prom-anchor's analyze_latency.py reads it unchanged.

- `bench fleet --summary-json` lists every XID it sent (node, card uuid, sentAtMs): each becomes a `flip`
  record as scenario_xid.py writes them (host = node, gpu = card uuid, t_applied = sent time).
- webhook_receiver.py logged gpuwatch's Alertmanager-format posts: each alert gains the labels the yardstick
  joins on, Hostname (= node) and gpu (= uuid); nothing else changes. A node alert (the default pack pages an
  XID once per node, naming its cards in the text) has no uuid: it is joined to the card the fleet sent the XID
  to on that node, which the schedule makes one card per node.
Also prints the XID offsets for --xid-at with the yardstick's timing (scenario_xid.py: a trial every
--spacing s plus U(0, --jitter) s, seeded) when called with --schedule.
"""
import argparse
import json
import random


def schedule(start, trials, spacing, jitter, seed, fleet_nodes):
    rng = random.Random(seed)
    # scenario_xid.py draws the hosts first (one randrange each), then a jitter and a gpu per trial
    stride = max(1, fleet_nodes // trials)
    for _ in range(trials):
        rng.randrange(stride)
    out = []
    for i in range(trials):
        out.append(start + 1.0 + i * spacing + rng.uniform(0, jitter))
        rng.randrange(8)
    return ",".join("%dms" % round(t * 1000) for t in out)


def convert(summary, webhook_in, flips_out, webhook_out):
    with open(summary) as f:
        s = json.load(f)
    flipped = {}
    with open(flips_out, "w") as f:
        for i, x in enumerate(s.get("xids", [])):
            flipped.setdefault(x["node"], x["uuid"])
            f.write(json.dumps({"event": "flip", "trial": i, "tag": "gpuwatch-%d" % i, "host": x["node"],
                                "gpu": x["uuid"], "metric": "xid", "value": 79,
                                "t_applied": x["sentAtMs"] / 1000.0}, sort_keys=True) + "\n")
    with open(webhook_in) as fin, open(webhook_out, "w") as fout:
        for line in fin:
            rec = json.loads(line)
            for a in rec.get("payload", {}).get("alerts", []) if isinstance(rec.get("payload"), dict) else []:
                lab = a.setdefault("labels", {})
                if "node" in lab:
                    lab.setdefault("Hostname", lab["node"])
                if "uuid" in lab:
                    lab.setdefault("gpu", lab["uuid"])
                elif lab.get("node") in flipped:
                    lab.setdefault("gpu", flipped[lab["node"]])
            fout.write(json.dumps(rec) + "\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--schedule", action="store_true", help="print --xid-at offsets and exit")
    ap.add_argument("--start", type=float, default=0, help="seconds into the run of the first trial (less 1 s)")
    ap.add_argument("--trials", type=int, default=8)
    ap.add_argument("--spacing", type=float, default=37.0)
    ap.add_argument("--jitter", type=float, default=6.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nodes", type=int, default=32)
    ap.add_argument("--summary")
    ap.add_argument("--webhook")
    ap.add_argument("--flips-out")
    ap.add_argument("--webhook-out")
    a = ap.parse_args()
    if a.schedule:
        print(schedule(a.start, a.trials, a.spacing, a.jitter, a.seed, a.nodes))
    else:
        convert(a.summary, a.webhook, a.flips_out, a.webhook_out)
