"""Building blocks of the perf corpora (corpus_mixed.py, corpus_grpo.py): the shipped kernels.

Kernels come from train_bridge/samples/c (good ones of several speeds, broken ones) and
tests/adversarial/cases (a hang, wrong answers, hostile code). `variant` makes the n-th copy of a
kernel differ in code, not only in comments (a different tile size where there is one, else a
distinct unused constant), so that no two lines of a corpus are the same candidate unless the
corpus means them to be.
"""
import json
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = REPO / "train_bridge" / "samples" / "c"
ADVERSARIAL = REPO / "tests" / "adversarial" / "cases"
PROBLEM, STAGE = "dgemm-256", "open"

# kind -> files: what each kind of candidate is made of. Statuses are what the pipeline should say.
GOOD_FAST = ["ikj.c", "ikj_restrict.c", "blocked.c", "blocked_openmp.c", "ikj_openmp.c", "ikj_avx512.c",
             "ikj_avx512_openmp.c", "ikj_mentions_only.c"]
GOOD_SLOW = ["naive_ijk.c"]
COMPILE_ERROR = ["syntax_error.c"]
WRONG_ANSWER = ["no_zeroing.c", "adversarial:half_the_work.c"]
HANG = ["adversarial:spin_loop.c"]
HOSTILE = ["adversarial:fork_bomb.c", "adversarial:calls_system.c", "adversarial:memory_bomb.c",
           "adversarial:socket.c"]
PROSE = "To multiply matrices fast, tile the loops and use SIMD; I would start with i-k-j order."
TILES = [64, 32, 128, 16, 48, 96, 24, 80]
TILE_LINE = re.compile(r"#define TILE \d+")
BODY_START = re.compile(r"(void matmul\([^)]*\)\s*\{)")


def kernel(name):
    if name.startswith("adversarial:"):
        return (ADVERSARIAL / name.split(":", 1)[1]).read_text()
    return (SAMPLES / name).read_text()


def variant(source, n):
    """The n-th distinct version of a kernel (n = 0: the kernel itself)."""
    if n == 0:
        return source
    if TILE_LINE.search(source) and n < len(TILES):
        return TILE_LINE.sub(f"#define TILE {TILES[n]}", source, count=1)
    if not BODY_START.search(source):
        raise ValueError("no matmul body to vary")
    return BODY_START.sub(lambda m: f"{m.group(1)}\n  const int variant_{n} = {n}; (void)variant_{n};",
                          source, count=1)


def as_completion(code):
    return f"Here is my kernel:\n\n```c\n{code}```\n"


def line(cid, batch, fields):
    return {"id": cid, "problem": PROBLEM, "stage": STAGE, "batch_id": batch, **fields}


def write(lines, kinds, out):
    """out.jsonl and, beside it, out.kinds.json (id -> kind, pipeline_only, repeat_of)."""
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(l) + "\n" for l in lines))
    kinds_path = out.with_suffix(".kinds.json")
    kinds_path.write_text(json.dumps(kinds, indent=1, sort_keys=True) + "\n")
    return kinds_path
