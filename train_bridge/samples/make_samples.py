#!/usr/bin/env python3
"""Builds the shipped candidate files from the C samples in c/*.c (README.md lists them).

  dgemm-256.jsonl             the main job's candidates (jobs/local.sh's default): a ladder demo
                              in five batches, b1-o0 ... b5-blocking, each written for the stage
                              its problem should be in when the batch starts. No line names a
                              stage: the coordinator scores each batch in its problem's current
                              stage and may advance the problem after it, so every batch mixes
                              candidates its stage accepts (enough for the demo ladder's rule
                              to fire) with ones it must refuse.
  expected-dgemm-256.json     id -> {"stage": the stage its batch is written for, "status"}.
  stage-matrix.jsonl          every dgemm sample x every stage (o0, o3, openmp, avx512,
                              blocking, open), an explicit "stage" on each line, id
                              "<sample>@<stage>", batch_id "stage-matrix".
  expected-stage-matrix.json  id -> expected status.

Expected statuses are derived, not measured: each sample states what its code really does
(SAMPLES below), and `expected_status` applies a stage's flags and techniques allowed and
required (stages/demo_ladder.json for the demo, which jobs/local.sh runs it on;
stages/default_ladder.json for the matrix) the way the ranks decide them, in their order:
compile (AVX-512 intrinsics without AVX-512 flags do not compile), technique constraints,
then the run. They assume an AVX-512 host (`-march=native` in the open stage enables it).

Run it after editing a sample or the plan; `--check` (run by tests/e2e) fails when any
generated file is stale.
"""
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
LADDER = HERE.parents[1] / "stages" / "default_ladder.json"  # runs given --candidates
DEMO_LADDER = HERE.parents[1] / "stages" / "demo_ladder.json"  # the main job's

# What each sample's code really does, read from the code (not from its comments):
#   omp     an OpenMP work-sharing directive (libgomp calls once compiled with -fopenmp)
#   avx512  AVX-512 intrinsics (zmm code; needs AVX-512 compiler flags to compile at all)
#   tiled   a tiled loop nest (for ii += TILE ... for i = ii ...)
#   broken  None, "wrong_answer" or "compile_error"
#   problem the precision it is written for (sgemm samples stay out of the stage matrix)
SAMPLES = {
    "naive_ijk":             dict(omp=False, avx512=False, tiled=False, broken=None),
    "ikj":                   dict(omp=False, avx512=False, tiled=False, broken=None),
    "ikj_restrict":          dict(omp=False, avx512=False, tiled=False, broken=None),
    "ikj_mentions_only":     dict(omp=False, avx512=False, tiled=False, broken=None),
    "ikj_openmp":            dict(omp=True, avx512=False, tiled=False, broken=None),
    "ikj_avx512":            dict(omp=False, avx512=True, tiled=False, broken=None),
    "ikj_avx512_openmp":     dict(omp=True, avx512=True, tiled=False, broken=None),
    "blocked":               dict(omp=False, avx512=False, tiled=True, broken=None),
    "blocked_openmp":        dict(omp=True, avx512=False, tiled=True, broken=None),
    "blocked_avx512_openmp": dict(omp=True, avx512=True, tiled=True, broken=None),
    "no_zeroing":            dict(omp=False, avx512=False, tiled=False, broken="wrong_answer"),
    "syntax_error":          dict(omp=False, avx512=False, tiled=False, broken="compile_error"),
    "sgemm_ikj":             dict(omp=False, avx512=False, tiled=False, broken=None, problem="sgemm-256"),
    "sgemm_blocked":         dict(omp=False, avx512=False, tiled=True, broken=None, problem="sgemm-256"),
}
PROSE = "To multiply matrices fast, tile the loops and use SIMD."  # no code block: format_error

# The ladder demo. Batch -> the stage each problem is in when it starts (dgemm-256 climbs one
# stage per batch under the demo rules; sgemm-256 gets too few lines to leave o0) and its lines:
# (id, sample or None for prose, problem, as_completion). Refused lines come first in each batch
# and fail fast, so the ok ones are also the last ones scored (windowed ok-fraction rules);
# b1 and b4 end with three ok lines, so one ok line lost to noise (a peak-guard false alarm on
# a busy host) still leaves the window at 0.5.
# The rules the batches are sized for (stages/demo_ladder.json; check_plan reads them): o0 ok
# fraction >= 0.5 over the last 4; o3 best >= 1 GFLOPS; openmp best >= 5% of OpenBLAS; avx512
# ok fraction >= 0.5 over the last 3.
D, S = "dgemm-256", "sgemm-256"
DEMO = [
    ("b1-o0", {D: "o0", S: "o0"}, [
        ("b1-prose-only", None, D, True),
        ("b1-syntax-error", "syntax_error", D, False),
        ("b1-no-zeroing", "no_zeroing", D, False),
        ("b1-blocked", "blocked", D, False),
        ("b1-naive-ijk", "naive_ijk", D, False),
        ("b1-ikj", "ikj", D, False),
        ("b1-ikj-restrict", "ikj_restrict", D, True),
    ]),
    ("b2-o3", {D: "o3", S: "o0"}, [
        ("b2-blocked", "blocked", D, False),
        ("b2-ikj-avx512", "ikj_avx512", D, False),
        ("b2-sgemm-ikj", "sgemm_ikj", S, False),
        ("b2-naive-ijk", "naive_ijk", D, False),
        ("b2-ikj", "ikj", D, False),
        ("b2-ikj-restrict", "ikj_restrict", D, False),
    ]),
    ("b3-openmp", {D: "openmp", S: "o0"}, [
        ("b3-ikj", "ikj", D, False),
        ("b3-ikj-mentions-only", "ikj_mentions_only", D, False),
        ("b3-blocked-openmp", "blocked_openmp", D, False),
        ("b3-ikj-avx512-openmp", "ikj_avx512_openmp", D, False),
        ("b3-ikj-openmp", "ikj_openmp", D, False),
        ("b3-ikj-openmp-reply", "ikj_openmp", D, True),
    ]),
    ("b4-avx512", {D: "avx512", S: "o0"}, [
        ("b4-ikj-openmp", "ikj_openmp", D, False),
        ("b4-ikj-mentions-only", "ikj_mentions_only", D, False),
        ("b4-blocked-avx512-openmp", "blocked_avx512_openmp", D, False),
        ("b4-ikj-avx512", "ikj_avx512", D, False),
        ("b4-ikj-avx512-openmp", "ikj_avx512_openmp", D, False),
        ("b4-ikj-avx512-reply", "ikj_avx512", D, True),
    ]),
    ("b5-blocking", {D: "blocking", S: "o0"}, [
        ("b5-ikj-avx512-openmp", "ikj_avx512_openmp", D, False),
        ("b5-ikj-mentions-only", "ikj_mentions_only", D, False),
        ("b5-sgemm-blocked", "sgemm_blocked", S, False),
        ("b5-blocked", "blocked", D, False),
        ("b5-blocked-openmp", "blocked_openmp", D, True),
        ("b5-blocked-avx512-openmp", "blocked_avx512_openmp", D, False),
    ]),
]
MATRIX_STAGES = ["o0", "o3", "openmp", "avx512", "blocking", "open"]


def ladder_stages(path: pathlib.Path) -> dict:
    return {stage["name"]: stage for stage in json.loads(path.read_text())["stages"]}


def expected_status(sample, stage: dict) -> str:
    """The status a rank gives `sample` (a SAMPLES key, None for prose) in `stage`."""
    if sample is None:
        return "format_error"
    facts = SAMPLES[sample]
    flags = stage["flags"]
    if facts["broken"] == "compile_error":
        return "compile_error"
    avx512_flags = any(f.startswith("-mavx512f") or f == "-march=native" for f in flags)
    if facts["avx512"] and not avx512_flags:
        # The intrinsics do not compile without AVX-512 flags; the rank then reads the source:
        # a technique the stage does not allow decides (constraint_violation).
        return "constraint_violation" if "avx512" not in stage["allows"] else "compile_error"
    used = set()
    if facts["omp"] and "-fopenmp" in flags:  # without -fopenmp the pragma compiles away
        used.add("openmp")
    if facts["avx512"]:
        used.add("avx512")
    if facts["tiled"]:
        used.add("blocking")
    if not used <= set(stage["allows"]) or not set(stage["requires"]) <= used:
        return "constraint_violation"
    return facts["broken"] or "ok"


def code(sample: str) -> str:
    return (HERE / "c" / f"{sample}.c").read_text()


def hyphenated(sample: str) -> str:
    return sample.replace("_", "-")


def line(entry: dict) -> str:
    return json.dumps(entry)


def build_demo(stages: dict):
    lines, expected = [], {}
    for batch_id, stage_of, candidates in DEMO:
        for identifier, sample, problem, as_completion in candidates:
            entry = {"id": identifier, "problem": problem, "batch_id": batch_id}
            if sample is None:
                entry["completion"] = PROSE
            elif as_completion:
                entry["completion"] = f"Here is a faster kernel:\n\n```c\n{code(sample)}```\n"
            else:
                entry["source"] = code(sample)
            lines.append(line(entry))
            stage = stage_of[problem]
            expected[identifier] = {"stage": stage, "status": expected_status(sample, stages[stage])}
    return "\n".join(lines) + "\n", expected


def build_matrix(stages: dict):
    lines, expected = [], {}
    for sample, facts in SAMPLES.items():
        if facts.get("problem", D) != D:
            continue
        for stage in MATRIX_STAGES:
            identifier = f"{hyphenated(sample)}@{stage}"
            lines.append(line({"id": identifier, "problem": D, "stage": stage,
                               "batch_id": "stage-matrix", "source": code(sample)}))
            expected[identifier] = expected_status(sample, stages[stage])
    return "\n".join(lines) + "\n", expected


def check_plan(expected: dict, stages: dict) -> list:
    """What would keep the demo from climbing: ids, size, and each batch's lines against its
    stage's rules: a success_rate rule needs its rate among the batch's last `window` dgemm
    lines, a best_* rule one ok line."""
    problems = []
    ids = [identifier for _, _, candidates in DEMO for identifier, *_ in candidates]
    if len(ids) != len(set(ids)):
        problems.append("duplicate ids in the demo")
    if len(ids) > 35:
        problems.append(f"{len(ids)} demo candidates: keep the main job under 35")
    for batch_id, stage_of, candidates in DEMO:
        dgemm = [expected[c[0]]["status"] for c in candidates if c[2] == D]
        ok = dgemm.count("ok")
        for rule in stages[stage_of[D]]["advance"]:
            if rule["type"] == "success_rate":
                window = dgemm[-rule["window"]:]
                fires = len(window) == rule["window"] and \
                    window.count("ok") / rule["window"] >= rule["threshold"]
            elif rule["type"].startswith("best_"):
                fires = ok > 0
            else:
                continue
            if not fires:
                problems.append(f"{batch_id}: its dgemm lines cannot fire the {rule['type']} rule")
        if ok == len(dgemm):
            problems.append(f"{batch_id}: nothing its stage must refuse")
    return problems


def outputs() -> dict:
    demo_stages = ladder_stages(DEMO_LADDER)
    demo, demo_expected = build_demo(demo_stages)
    matrix, matrix_expected = build_matrix(ladder_stages(LADDER))
    problems = check_plan(demo_expected, demo_stages)
    if problems:
        raise SystemExit("make_samples.py: " + "; ".join(problems))
    as_json = lambda value: json.dumps(value, indent=2) + "\n"
    return {
        "dgemm-256.jsonl": demo,
        "expected-dgemm-256.json": as_json(demo_expected),
        "stage-matrix.jsonl": matrix,
        "expected-stage-matrix.json": as_json(matrix_expected),
    }


def main() -> int:
    files = outputs()
    if sys.argv[1:] == ["--check"]:
        stale = [name for name, text in files.items()
                 if not (HERE / name).exists() or (HERE / name).read_text() != text]
        for name in stale:
            print(f"{HERE / name} is stale: run {__file__}", file=sys.stderr)
        return 1 if stale else 0
    if sys.argv[1:]:
        print(f"usage: {sys.argv[0]} [--check]", file=sys.stderr)
        return 2
    for name, text in files.items():
        (HERE / name).write_text(text)
        print(f"wrote {HERE / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
