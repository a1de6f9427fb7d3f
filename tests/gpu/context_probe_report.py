#!/usr/bin/env python3
"""Tables from context_probe.cu's lines (context_probe.sh writes them into one folder).

  python3 tests/gpu/context_probe_report.py DIR

DIR holds, as context_probe.sh names them:
  steps-qN.txt                      `context_probe steps` with N work queues: one `child` line each
  steps-q4-beside-X.txt             the same beside `context_probe X` on the other GPU (starts, churn)
  timed-KIND-quiet.txt              `context_probe timed` alone on its GPU: one `call` line each
  timed-KIND-WHERE-qN.txt           the same beside `context_probe churn` (WHERE: same or other GPU)
  churn-KIND-WHERE-qN.txt           that churn's `child` lines

For each set of steps: the medians of a context's creation and of its teardown (kill to reaped).
For each timed kernel: the events' and the window's median, p90 and p99 alone, then beside the
churn split by what each call overlapped: a process's and its driver's start (fork to the driver
started: host work, as a spare executor's), a context's creation (driver started to context made),
a teardown (kill to reaped), or neither.
"""
import pathlib
import re
import statistics
import sys


def quantile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


def calls(path):
    """(start ns, window us, events us) per `call` line."""
    out = []
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] == "call":
            out.append((int(fields[1]), float(fields[2]), float(fields[3])))
    return out


def children(path):
    """(fork, main, driver, context, allocation, kill, reaped) ns per `child` line."""
    out = []
    for line in path.read_text().splitlines():
        fields = line.split()
        if fields and fields[0] == "child":
            out.append(tuple(int(x) for x in fields[1:8]))
    return out


def overlap_class(call, kids):
    start, window_us = call[0], call[1]
    end = start + window_us * 1e3
    for fork, _main, driver, context, _allocation, kill, reaped in kids:
        if start < driver and end > fork:
            return "start"
        if start < context and end > driver:
            return "context"
        if start < reaped and end > kill:
            return "teardown"
    return "neither"


def describe(cs):
    if not cs:
        return "n=0"
    w = [c[1] for c in cs]
    e = [c[2] for c in cs]
    return (f"n={len(cs)}  events {quantile(e, .5):.1f} / {quantile(e, .9):.1f} / {quantile(e, .99):.1f}  "
            f"window {quantile(w, .5):.1f} / {quantile(w, .9):.1f} / {quantile(w, .99):.1f}")


def report(folder):
    lines = []
    for path in sorted(folder.glob("steps-q*.txt"), key=lambda p: (-int(re.search(r"q(\d+)", p.name).group(1)), p.name)):
        kids = children(path)
        if not kids:
            continue
        creation = statistics.median((k[3] - k[2]) / 1e6 for k in kids)
        teardown = statistics.median((k[6] - k[5]) / 1e6 for k in kids)
        lines.append(f"{path.stem}: {len(kids)} contexts, creation {creation:.1f} ms, kill to reaped {teardown:.1f} ms")
    for quiet in sorted(folder.glob("timed-*-quiet.txt")):
        kind = quiet.name[len("timed-"):-len("-quiet.txt")]
        lines.append(f"{kind} (us, median / p90 / p99)")
        lines.append(f"  alone                     {describe(calls(quiet))}")
        for churned in sorted(folder.glob(f"timed-{kind}-*-q*.txt")):
            beside = churned.name[len(f"timed-{kind}-"):-len(".txt")]
            kids = children(folder / f"churn-{kind}-{beside}.txt")
            split = {"start": [], "context": [], "teardown": [], "neither": []}
            for call in calls(churned):
                split[overlap_class(call, kids)].append(call)
            for name, cs in split.items():
                lines.append(f"  {beside:8s} {name:16s} {describe(cs)}")
    return "\n".join(lines)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(report(pathlib.Path(sys.argv[1])))


if __name__ == "__main__":
    main()
