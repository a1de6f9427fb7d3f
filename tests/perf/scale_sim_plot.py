#!/usr/bin/python3
"""Draws docs/reports/scale.md's figure from `scale_sim.py --study --json FILE` (matplotlib).

usage: scale_sim_plot.py STUDY.json OUT.png [--seconds 60]

Left: rank utilisation against trainers at the study's figure rank count, one batch at a time
and batches in flight, for both service-time pools. Right: utilisation over time with the
figure's trainers (realistic pool), both policies.
"""
import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {("one-at-a-time", "realistic"): dict(color="tab:red", ls="-", marker="o"),
         ("one-at-a-time", "old"): dict(color="tab:red", ls="--", marker="x", alpha=0.6),
         ("in-flight", "realistic"): dict(color="tab:blue", ls="-", marker="o"),
         ("in-flight", "old"): dict(color="tab:blue", ls="--", marker="x", alpha=0.6)}
NAME = {"one-at-a-time": "one batch at a time", "in-flight": "batches in flight"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("study")
    ap.add_argument("out")
    ap.add_argument("--seconds", type=float, default=60.0, help="time shown on the right")
    args = ap.parse_args()
    d = json.load(open(args.study))
    n = d["args"]["figure_ranks"]
    batch = d["args"]["batch"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.8), gridspec_kw={"width_ratios": [1, 1.35]})

    for (mode, service), style in STYLE.items():
        rows = sorted((r for r in d["rows"] if r["ranks"] == n and r["mode"] == mode and r["service"] == service),
                      key=lambda r: r["trainers"])
        if rows:
            left.plot([r["trainers"] for r in rows], [r["steady_rank_utilisation"] for r in rows],
                      label="%s, %s pool" % (NAME[mode], service), **style)
    left.set_xscale("log", base=2)
    # Powers of two labelled; the count that fills the ranks (--study-load) is plotted unlabelled.
    ticks = sorted({r["trainers"] for r in d["rows"] if r["ranks"] == n and r["trainers"] & (r["trainers"] - 1) == 0})
    left.set_xticks(ticks)
    left.set_xticklabels([str(t) for t in ticks])
    left.minorticks_off()
    left.set_xlabel("trainers (each one batch of %d out, then waits for its answer)" % batch)
    left.set_ylabel("rank utilisation (steady state)")
    left.set_ylim(0, 1.05)
    left.grid(True, alpha=0.3)
    left.set_title("%s CPU ranks: utilisation against trainers" % format(n, ","))
    left.legend(fontsize=8, loc="center left")

    for f in d["figure"]:
        if f["service"] != "realistic":
            continue
        tl = f["timeline"]
        xs = [(i + 0.5) * tl["bin_s"] for i in range(len(tl["cpu"]))]
        keep = [i for i, x in enumerate(xs) if x <= args.seconds]
        right.plot([xs[i] for i in keep], [tl["cpu"][i] for i in keep], lw=1.1,
                   color=STYLE[(f["mode"], "realistic")]["color"],
                   label="%s: mean %.2f, batch p50 %.1f s / p99 %.1f s" % (
                       NAME[f["mode"]], f["steady_rank_utilisation"], f["batch_s_p50"], f["batch_s_p99"]))
        if f["steady_s"] < args.seconds:  # the trainers' last batches: the load falls after
            right.axvline(f["steady_s"], color=STYLE[(f["mode"], "realistic")]["color"], ls=":", lw=1)
    trainers = d["figure"][0]["trainers"]
    right.set_xlim(0, args.seconds)
    right.set_ylim(0, 1.05)
    right.set_xlabel("simulated seconds (bins of %g s)" % d["figure"][0]["timeline"]["bin_s"])
    right.set_ylabel("share of ranks computing")
    right.grid(True, alpha=0.3)
    right.set_title("%s CPU ranks, %d trainers, realistic pool: over time" % (format(n, ","), trainers))
    right.legend(fontsize=8, loc="center right")
    fig.suptitle("One coordinator, %s ranks: one batch at a time vs batches in flight (scale_sim.py --study, seed %d)"
                 % (format(n, ","), d["args"]["seed"]), fontsize=11)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
