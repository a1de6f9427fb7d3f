#!/usr/bin/env python3
"""The GRPO-like dgemm-256 corpus: groups of completions for one prompt, where a quarter
of the completions repeat an earlier one exactly (same text, new id), as sampled policies do.

Each group of 8 (one batch) holds 6 distinct completions, mostly good kernels of several speeds
with some compile errors and wrong answers, and 2 exact repeats of earlier completions (of the
same group or an earlier one). Fenced completions, stage `open`, a fixed seed: the same file on
every run. No hang and no hostile code: the plain loop runs every line.

  /usr/bin/python3 tests/perf/corpus_grpo.py --out DIR/grpo.jsonl [--groups 6] [--tiny]

Writes DIR/grpo.jsonl and DIR/grpo.kinds.json (repeats name the id they repeat in repeat_of).
--tiny: one group of 4 with one repeat, for the suite's correctness check.
"""
import argparse
import random

import corpus_kernels as ck

# The distinct completions are drawn from this pool in turn (a quarter fail).
POOL = [("good", "ikj.c"), ("good", "blocked.c"), ("good", "ikj_restrict.c"), ("compile_error", "syntax_error.c"),
        ("good", "ikj_openmp.c"), ("slow", "naive_ijk.c"), ("good", "blocked_openmp.c"),
        ("wrong_answer", "no_zeroing.c")]


def build(groups, group_size, repeats, seed=7):
    rng = random.Random(seed)
    lines, kinds, earlier, used = [], {}, [], {}
    for g in range(groups):
        batch = f"grpo-{g}"
        slots = ["new"] * (group_size - repeats) + ["repeat"] * repeats
        # A repeat never opens a group: it needs something earlier to repeat.
        head, tail = slots[:1], slots[1:]
        rng.shuffle(tail)
        for i, slot in enumerate(head + tail):
            cid = f"g{g}-c{i}"
            if slot == "repeat":
                original = rng.choice(earlier)
                lines.append(ck.line(cid, batch, {"completion": original["completion"]}))
                kinds[cid] = {"kind": kinds[original["id"]]["kind"], "pipeline_only": False,
                              "repeat_of": original["id"]}
                continue
            kind, name = POOL[len(earlier) % len(POOL)]
            n = used.get(name, 0)
            used[name] = n + 1
            completion = ck.as_completion(ck.variant(ck.kernel(name), n))
            lines.append(ck.line(cid, batch, {"completion": completion}))
            kinds[cid] = {"kind": kind, "pipeline_only": False}
            earlier.append({"id": cid, "completion": completion})
    return lines, kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="the corpus file (.jsonl); its .kinds.json goes beside it")
    ap.add_argument("--groups", type=int, default=6, help="groups (batches) of 8 completions")
    ap.add_argument("--tiny", action="store_true", help="one group of 4 with one repeat")
    args = ap.parse_args()
    if args.groups < 1:
        ap.error("--groups must be at least 1")
    lines, kinds = build(1, 4, 1) if args.tiny else build(args.groups, 8, 2)
    ck.write(lines, kinds, args.out)


if __name__ == "__main__":
    main()
