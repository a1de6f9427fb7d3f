#!/usr/bin/env python3
"""Builds samples/dgemm-256.jsonl, the main job's built-in candidates, from samples/c/*.c.

Run it after editing a sample; tests/e2e checks the JSONL is up to date.
Each entry: (id, C file, problem, stage, as_completion). A completion wraps the code
the way a model answers, to exercise code extraction.
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
SAMPLES = [
    ("naive-ijk-o0", "naive_ijk.c", "dgemm-256", "o0", False),
    ("ikj-o0", "ikj.c", "dgemm-256", "o0", False),
    ("naive-ijk-o3", "naive_ijk.c", "dgemm-256", "o3", False),
    ("ikj-o3", "ikj.c", "dgemm-256", "o3", False),
    ("ikj-restrict-o3", "ikj_restrict.c", "dgemm-256", "o3", True),
    ("blocked-o3", "blocked.c", "dgemm-256", "o3", False),
    ("ikj-restrict-open", "ikj_restrict.c", "dgemm-256", "open", False),
    ("ikj-openmp-open", "ikj_openmp.c", "dgemm-256", "open", False),
    ("blocked-openmp-open", "blocked_openmp.c", "dgemm-256", "open", True),
    ("sgemm-ikj-o3", "sgemm_ikj.c", "sgemm-256", "o3", False),
    ("no-zeroing-o3", "no_zeroing.c", "dgemm-256", "o3", False),
    ("syntax-error-o3", "syntax_error.c", "dgemm-256", "o3", False),
]
NO_CODE = {"id": "prose-only", "problem": "dgemm-256", "stage": "o3",
           "completion": "To multiply matrices fast, tile the loops and use SIMD."}


def build() -> str:
    lines = []
    for identifier, filename, problem, stage, as_completion in SAMPLES:
        code = (HERE / "c" / filename).read_text()
        entry = {"id": identifier, "problem": problem, "stage": stage}
        if as_completion:
            entry["completion"] = f"Here is a faster kernel:\n\n```c\n{code}```\n"
        else:
            entry["source"] = code
        lines.append(json.dumps(entry))
    lines.append(json.dumps(NO_CODE))
    return "\n".join(lines) + "\n"


def main() -> int:
    target = HERE / "dgemm-256.jsonl"
    if sys.argv[1:] == ["--check"]:
        if target.read_text() != build():
            print(f"{target} is stale: run {__file__}", file=sys.stderr)
            return 1
        return 0
    target.write_text(build())
    print(f"wrote {target} ({len(SAMPLES) + 1} candidates)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
