#!/usr/bin/env python3
"""The mixed dgemm-256 corpus: good kernels of several speeds, slow naive ones, compile
errors, wrong answers, format errors, one hang, and hostile ones that only the pipeline runs (the
plain loop skips lines whose kinds entry says pipeline_only). Stage `open` on every line,
batches of 8, order shuffled with a fixed seed: the same file on every run.

  /usr/bin/python3 tests/perf/corpus_mixed.py --out DIR/mixed.jsonl [--tiny]

Writes DIR/mixed.jsonl and DIR/mixed.kinds.json. --tiny: six lines (one of each kind but the
hang) for the suite's correctness check.
"""
import argparse
import random

import corpus_kernels as ck

# (kind, file, copies, pipeline_only)
PLAN = [("good", name, copies, False) for name, copies in
        [("ikj.c", 4), ("ikj_restrict.c", 4), ("blocked.c", 6), ("blocked_openmp.c", 2), ("ikj_openmp.c", 2),
         ("ikj_avx512.c", 2), ("ikj_avx512_openmp.c", 1), ("ikj_mentions_only.c", 1)]] + [
    ("slow", "naive_ijk.c", 4, False),
    ("compile_error", "syntax_error.c", 3, False),
    ("wrong_answer", "no_zeroing.c", 2, False),
    ("wrong_answer", "adversarial:half_the_work.c", 2, False),
    ("format_error", None, 2, False),
    ("hang", "adversarial:spin_loop.c", 1, False),
] + [("hostile", name, 1, True) for name in ck.HOSTILE]
TINY_PLAN = [("good", "ikj.c", 1, False), ("slow", "naive_ijk.c", 1, False),
             ("compile_error", "syntax_error.c", 1, False), ("wrong_answer", "no_zeroing.c", 1, False),
             ("format_error", None, 1, False), ("hostile", "adversarial:calls_system.c", 1, True)]
BATCH = 8


def build(plan, seed=11):
    entries = []
    for kind, name, copies, pipeline_only in plan:
        for n in range(copies):
            stem = name.split(":")[-1].removesuffix(".c") if name else "prose"
            fields = {"completion": ck.PROSE + f" (draft {n})"} if name is None else \
                {"source": ck.variant(ck.kernel(name), n)}
            entries.append((f"{kind}-{stem}-{n}", kind, pipeline_only, fields))
    random.Random(seed).shuffle(entries)
    lines, kinds = [], {}
    for index, (cid, kind, pipeline_only, fields) in enumerate(entries):
        lines.append(ck.line(cid, f"mixed-{index // BATCH}", fields))
        kinds[cid] = {"kind": kind, "pipeline_only": pipeline_only}
    return lines, kinds


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="the corpus file (.jsonl); its .kinds.json goes beside it")
    ap.add_argument("--tiny", action="store_true", help="six lines, for the suite's correctness check")
    args = ap.parse_args()
    lines, kinds = build(TINY_PLAN if args.tiny else PLAN)
    ck.write(lines, kinds, args.out)


if __name__ == "__main__":
    main()
