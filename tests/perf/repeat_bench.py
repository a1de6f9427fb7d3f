#!/usr/bin/env python3
"""Throughput of a GRPO-like corpus where a quarter of the candidates repeat an earlier one,
with and without the coordinator's repeat cache (coordinator/README.md, "Identical candidates").

Builds the corpus from train_bridge/samples/stage-matrix.jsonl (12 sources x 6 stages, each line
a distinct measurement key): `--distinct` (default 30) distinct candidates, then `--repeats`
(default 10) copies under new ids of earlier ones, chosen at random (seeded), spread over batches
of `--batch` (default 8) like GRPO groups: a copy lands in the batch of its original (a group
holding the same completion twice) or a later one. Then runs jobs/local.sh --candidates FILE
--np 1 alternately with the cache on (default) and off (`repeat-cache-entries = 0`), `--rounds`
times each, and prints wall seconds and candidates per second per run and the ratio of medians.

usage: repeat_bench.py [--rounds N] [--distinct N] [--repeats N] [--batch N] [--seed N] [--keep DIR]
"""
import argparse
import json
import os
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = REPO / "train_bridge" / "samples" / "stage-matrix.jsonl"


def build_corpus(distinct, repeats, batch, seed):
    rng = random.Random(seed)
    lines = [json.loads(line) for line in SAMPLES.read_text().splitlines() if line.strip()]
    if distinct > len(lines):
        sys.exit(f"--distinct {distinct}: {SAMPLES.name} has {len(lines)} lines")
    chosen = rng.sample(lines, distinct)
    # Positions of the copies among all candidates, never before their original.
    total = distinct + repeats
    order = [dict(c, id=f"c{i}") for i, c in enumerate(chosen)]
    for r in range(repeats):
        original = rng.randrange(len(order))
        copy = dict(order[original], id=f"repeat{r}-of-{order[original]['id']}")
        order.insert(rng.randrange(original + 1, len(order) + 1), copy)
    for position, candidate in enumerate(order):
        candidate["batch_id"] = f"step{position // batch}"
    assert len(order) == total
    return order


def run(corpus, out, config):
    """Runs one job; returns (whole job s, scoring s, rows reused). Scoring runs from the
    coordinator's "hpcreward: scoring" line to its last progress line: the job's start (MPI,
    the ranks' BLAS baselines) is the same with or without the cache."""
    env = dict(os.environ, HPCREWARD_BIN=os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin")))
    command = [str(REPO / "jobs" / "local.sh"), "--candidates", str(corpus), "--np", "1", "--out", str(out),
               "--seed", "11", "--config", str(config)]
    start = time.monotonic()
    scoring_start = last_row = None
    reused = 0
    output = []
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env) as job:
        for line in job.stdout:
            output.append(line)
            if line.startswith("hpcreward: scoring"):
                scoring_start = time.monotonic()
            elif line.startswith("["):
                last_row = time.monotonic()
                reused += "(measured as " in line
    seconds = time.monotonic() - start
    if job.returncode != 0 or scoring_start is None or last_row is None:
        sys.exit("local.sh failed:\n" + "".join(output))
    return seconds, last_row - scoring_start, reused


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--distinct", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", type=pathlib.Path, help="keep the corpus and run directories here")
    args = parser.parse_args()
    work = args.keep or pathlib.Path(tempfile.mkdtemp(prefix="repeat-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / "grpo-repeat.jsonl"
    candidates = build_corpus(args.distinct, args.repeats, args.batch, args.seed)
    corpus.write_text("".join(json.dumps(c) + "\n" for c in candidates))
    configs = {"cache": work / "cache.ini", "plain": work / "plain.ini"}
    configs["cache"].write_text("# the default repeat cache\n")
    configs["plain"].write_text("repeat-cache-entries = 0\n")
    jobs = {"cache": [], "plain": []}
    scoring = {"cache": [], "plain": []}
    for round_ in range(args.rounds):
        for name in ("cache", "plain"):  # interleaved: A, B, A, B ...
            seconds, scored, reused = run(corpus, work / f"{name}-{round_}", configs[name])
            jobs[name].append(seconds)
            scoring[name].append(scored)
            print(f"round {round_} {name:5s}: job {seconds:7.2f} s, scoring {scored:7.2f} s "
                  f"({len(candidates) / scored:6.3f} candidates/s), {reused} rows reused", flush=True)
    median = {name: (statistics.median(jobs[name]), statistics.median(scoring[name])) for name in jobs}
    print(f"{len(candidates)} candidates, {args.repeats} of them repeats, medians of {args.rounds} rounds:")
    print(f"  scoring: plain {median['plain'][1]:.2f} s, cache {median['cache'][1]:.2f} s: "
          f"throughput {median['plain'][1] / median['cache'][1]:.2f}x")
    print(f"  whole job: plain {median['plain'][0]:.2f} s, cache {median['cache'][0]:.2f} s: "
          f"{median['plain'][0] / median['cache'][0]:.2f}x")
    print(f"  bound from the skipped measurements alone (equal costs): {len(candidates) / args.distinct:.2f}x")


if __name__ == "__main__":
    main()
