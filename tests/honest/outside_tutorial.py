#!/usr/bin/env python3
"""An outside C tutorial through every C stage: flame/how-to-optimize-gemm's MMult steps as a
model that learnt from it would submit them, each scored by jobs/local.sh in each C stage of the
default ladder, to see that every step is `ok` in a stage that allows what it uses and that each
refusal is one its stage's prompt states, with a reason that says so.

    python3 tests/honest/outside_tutorial.py --tutorial GITDIR_OR_CHECKOUT --out report.json

The tutorial is read, never copied into this repository: pass a bare git directory (e.g. the
one `fetch github:flame/how-to-optimize-gemm` leaves) or a checkout. Each step (src/MMult*.c,
and MMult0.c from src/HowToOptimizeGemm/) becomes a candidate: the step's file as published
(its #defines, helpers and #includes; CRLF line ends made LF, as a chat completion carries
them) followed by a `matmul` entry point. The tutorial is column-major and adds into C
(`MY_MMult(m, n, k, a, lda, b, ldb, c, ldc)`: C += A B); the contract is row-major C = A B,
overwritten, which is column-major C^T = B^T A^T, so the entry point calls
MY_MMult(n, m, k, B, n, A, k, C, n), the order the tutorial's test_MMult.c uses for
(m, n, k, a, lda, b, ldb, c, ldc). Four variants:

- `padded` (every stage): the tutorial's kernels step by 4 in m and n (some in k) with no
  remainder loop, and _mm_load_pd needs 16-byte aligned columns (its driver sizes are multiples
  of 40 with LDA = 1000); the prompt's check shapes (257x255x263, 31x17x23) are neither, so the
  entry point copies the operands into zero-padded buffers (dimensions and leading dimensions
  rounded up to 4) and copies C out. This is the adaptation the contract needs; the published
  code is untouched.
- `direct` (stage open only): zero C and call MY_MMult on the operands themselves, the naive
  adaptation; where the kernel assumes multiples of 4 the checks at odd shapes must refuse it.
- `verbatim` (stage open only): the steps that needed a change to build, exactly as published
  (a prototype without its ';'; a helper called before its declaration, which gcc 12 accepts
  with a warning and the checks' clang parser refuses): the refusal must be readable.
- `probe` (stage blocking only, steps that block): diagnosis, not the tutorial: the block
  bounds declared where they are computed, and then also mc = 128, to show what the blocking
  detector needs to see the tutorial's blocking where it misses it.

The padded, direct and probe variants carry those changes (fix_source, each noted in the report).

What a step needs of a stage is read from its code and the ladder: `_mm_loaddup_pd` and other
SSE3 intrinsics build only where the flags enable SSE3 (the o0, o3 and openmp prompts say
"SSE3 to AVX2 intrinsics ... do not build here and are refused"); a loop stepping by a block
size (`kc`, `mc`) is cache blocking, refused in o0 to avx512 and required in blocking; openmp
and avx512 require OpenMP and AVX-512, which no step uses. A refusal is expected where one of
these applies and its reason should name it; anything else is listed as a possible
misjudgement, for a person to judge.
"""
import argparse
import json
import os
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
# As tests/answers/test_answers.py: generous limits and no peak guard, so that load on the
# machine decides no status.
BENCH_OPTIONS = ["--warmup-s", "0.02", "--time-cap-s", "0.1",
                 "--time-limit-factor", "20000", "--time-limit-floor-s", "30", "--run-timeout", "60",
                 "--peak-margin", "0"]
PROBLEM = "dgemm-256"
ABBREV = {"ok": "ok", "compile_error": "CE", "constraint_violation": "CV", "forbidden": "FB",
          "wrong_answer": "WA", "runtime_error": "RE", "timeout": "TO", "format_error": "FE"}

ENTRY_PADDED = r"""

/* Entry point for the harness (row-major, C = A B, C overwritten).  Row-major C = A B is
   column-major C^T = B^T A^T, so the tutorial's MY_MMult( m, n, k, a, lda, b, ldb, c, ldc )
   computes it as MY_MMult( n, m, k, B, n, A, k, C, n ).  Its kernels step by 4 with no
   remainder loop and load columns with _mm_load_pd (16-byte aligned), so the operands go
   through zero-padded copies whose sizes are multiples of 4. */
#include <stdlib.h>
#include <string.h>

static int round_up_4( int x ) { return ( x + 3 ) & ~3; }

void matmul( int m, int n, int k, const double *A, const double *B, double *C )
{
  int m4 = round_up_4( m ), n4 = round_up_4( n ), k4 = round_up_4( k ), r;
  double *bt = malloc( sizeof( double ) * n4 * k4 );   /* B^T: n4 x k4, column-major */
  double *at = malloc( sizeof( double ) * k4 * m4 );   /* A^T: k4 x m4, column-major */
  double *ct = malloc( sizeof( double ) * n4 * m4 );   /* C^T: n4 x m4, column-major */

  memset( bt, 0, sizeof( double ) * n4 * k4 );
  memset( at, 0, sizeof( double ) * k4 * m4 );
  memset( ct, 0, sizeof( double ) * n4 * m4 );
  for ( r = 0; r < k; r++ ) memcpy( bt + ( size_t ) r * n4, B + ( size_t ) r * n, sizeof( double ) * n );
  for ( r = 0; r < m; r++ ) memcpy( at + ( size_t ) r * k4, A + ( size_t ) r * k, sizeof( double ) * k );

  MY_MMult( n4, m4, k4, bt, n4, at, k4, ct, n4 );

  for ( r = 0; r < m; r++ ) memcpy( C + ( size_t ) r * n, ct + ( size_t ) r * n4, sizeof( double ) * n );
  free( bt );
  free( at );
  free( ct );
}
"""

ENTRY_DIRECT = r"""

/* Entry point for the harness (row-major, C = A B, C overwritten).  Row-major C = A B is
   column-major C^T = B^T A^T: MY_MMult( m, n, k, a, lda, b, ldb, c, ldc ) adds A B into C,
   so zero C and call it as MY_MMult( n, m, k, B, n, A, k, C, n ). */
#include <string.h>

void matmul( int m, int n, int k, const double *A, const double *B, double *C )
{
  memset( C, 0, sizeof( double ) * m * n );
  MY_MMult( n, m, k, ( double * ) B, n, ( double * ) A, k, C, n );
}
"""

PREAMBLE = ("Here is step {step} of the how-to-optimize-gemm tutorial (column-major, "
            "MY_MMult adds A*B into C), with a `matmul` entry point for your row-major contract:\n\n")


# ---- the tutorial -------------------------------------------------------------------------

class Tutorial:
    """Reads a bare git directory (at HEAD) or a checkout."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.checkout = (self.path / "src").is_dir()
        if self.checkout:
            self.commit = self._git(["-C", str(self.path), "rev-parse", "HEAD"], check=False).strip() or "unknown"
        else:
            self.commit = self._git(["--git-dir", str(self.path), "rev-parse", "HEAD"]).strip()

    @staticmethod
    def _git(args, check=True):
        result = subprocess.run(["git", *args], capture_output=True, text=True)
        if check and result.returncode != 0:
            raise SystemExit(f"git {' '.join(args)}: {result.stderr.strip()}")
        return result.stdout if result.returncode == 0 else ""

    def files(self):
        if self.checkout:
            return sorted(str(p.relative_to(self.path)) for p in (self.path / "src").rglob("*.c"))
        listing = self._git(["--git-dir", str(self.path), "ls-tree", "-r", "--name-only", "HEAD", "src/"])
        return sorted(line for line in listing.splitlines() if line.endswith(".c"))

    def read(self, relative):
        if self.checkout:
            return (self.path / relative).read_text()
        return self._git(["--git-dir", str(self.path), "show", f"HEAD:{relative}"])

    def steps(self):
        """(step name, path) for each MMult step, in the tutorial's order: MMult0 (only in
        src/HowToOptimizeGemm/, the driver's folder), MMult1, MMult2, MMult_1x4_*, MMult_4x4_*."""
        found = {}
        for relative in self.files():
            name = pathlib.PurePosixPath(relative).stem
            if re.fullmatch(r"MMult(\d+|_1x4_\d+|_4x4_\d+)", name):
                # Prefer src/NAME.c, where the steps live; the driver's folder holds copies of two.
                if name not in found or relative.count("/") < found[name].count("/"):
                    found[name] = relative

        def order(name):
            kind = 0 if re.fullmatch(r"MMult\d+", name) else 1 if "_1x4_" in name else 2
            return kind, int(re.findall(r"\d+", name)[-1])

        return [(name, found[name]) for name in sorted(found, key=order)]


# ---- one step as a candidate --------------------------------------------------------------

MISSING_SEMICOLON = re.compile(r"^(void\s+\w+\s*\([^;{}]*\))[ \t]*$", re.M)


def fix_source(source):
    """The changes a step needs to build in the pipeline, each noted: a prototype line without
    its ';' (gcc refuses the file), and a helper called before any declaration of it (an
    implicit declaration: C99 removed them, gcc 12 accepts one with a warning, gcc 14 and the
    checks' clang parser refuse the conflicting types) gets the prototype of its definition,
    placed before MY_MMult as the tutorial places its own."""
    notes, fixed, lines = [], [], source.split("\n")
    for index, line in enumerate(lines):
        match = MISSING_SEMICOLON.match(line)
        if match:
            following = next((l.strip() for l in lines[index + 1:] if l.strip()), "")
            if not following.startswith("{") and not line.rstrip().endswith(","):
                name = re.match(r"void\s+(\w+)", line).group(1)
                notes.append(f"line {index + 1}: added the ';' missing after the prototype of {name} "
                             "(gcc: expected '=', ',', ';', 'asm' or '__attribute__' before '{' token)")
                line = line.rstrip() + ";"
        fixed.append(line)
    text = "\n".join(fixed)
    for name in implicit_declarations(text):
        header = re.search(r"^void\s+" + re.escape(name) + r"\s*\([^)]*\)", text, re.M)
        entry = re.search(r"^void\s+MY_MMult\s*\(", text, re.M)
        if not header or not entry:
            continue
        prototype = re.sub(r"\s+", " ", header.group(0)) + ";"
        line_number = text[:entry.start()].count("\n") + 1
        notes.append(f"line {line_number}: added the prototype `{prototype}` ({name} is called before any "
                     "declaration: gcc 12 warns 'implicit declaration', the checks' clang parser refuses "
                     "'conflicting types')")
        text = text[:entry.start()] + prototype + "\n\n" + text[entry.start():]
    return text, notes


def implicit_declarations(source):
    """The functions gcc says are called without a declaration."""
    names = []
    for note in gcc_notes(source, ["-msse3"]):
        match = re.search(r"implicit declaration of function '(\w+)'", note)
        if match and match.group(1) not in names:
            names.append(match.group(1))
    return names


def uses(source):
    """What the step uses, in words, and the stage techniques it needs beyond plain C."""
    words, needs = [], set()
    if "AddDot(" in source.replace(" ", "") and "AddDot1x4" not in source and "AddDot4x4" not in source:
        words.append("inner-product helper")
    if "AddDot1x4" in source:
        words.append("1x4 block of C")
    if "AddDot4x4" in source:
        words.append("4x4 block of C")
    if re.search(r"\bregister\b", source):
        words.append("register accumulators")
    if "_pntr" in source:
        words.append("pointer walks")
    if re.search(r"p\s*\+=\s*4", source):
        words.append("k unrolled by 4")
    intrinsics = sorted(set(re.findall(r"\b_mm_\w+", source)))
    if "_mm_loaddup_pd" in intrinsics:
        words.append("SSE3 intrinsics (" + ", ".join(intrinsics) + ")")
        needs.add("sse3")
    elif intrinsics:
        words.append("SSE2 intrinsics (" + ", ".join(intrinsics) + ")")
    if re.search(r"\.v\s*\+=.*\*", source):
        words.append("GCC vector arithmetic on __m128d")
    sizes = dict(re.findall(r"#define\s+(mc|kc|nb)\s+(\d+)", source))
    if "kc" in sizes or "mc" in sizes:
        words.append("blocking " + " x ".join(f"{key}={sizes[key]}" for key in ("mc", "kc") if key in sizes))
        needs.add("blocking")
    if "PackMatrixA" in source:
        words.append("packs A")
    if "PackMatrixB" in source:
        words.append("packs B")
    if re.search(r"\bstatic\s+double\b", source):
        words.append("static buffer")
    if re.search(r"\[\s*[mnk]\s*\*\s*[mnk]\s*\]", source):
        words.append("VLA on the stack")
    return (", ".join(words) or "plain C"), needs


def steps_by_four(source):
    """True when the step's loops over C step by 4 with no remainder: it assumes m and n multiples of 4."""
    return bool(re.search(r"[ij]\s*\+=\s*4", source))


def gcc_notes(source, flags):
    """What gcc 12 says of the candidate in words a reader can check: errors, and the implicit
    declarations it accepts (C99 removed them; gcc 14 refuses them)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "candidate.c"
        path.write_text(source)
        result = subprocess.run(["gcc", "-std=gnu11", "-fsyntax-only", *flags, str(path)],
                                capture_output=True, text=True, env=dict(os.environ, LC_ALL="C"))
    notes = []
    for line in result.stderr.splitlines():
        if ("error:" in line or "implicit declaration" in line) and line.startswith(str(path)):
            text = line[len(str(path)) + 1:]
            if text not in notes:
                notes.append(text)
    return notes


def candidate(step, source, entry):
    code = source.rstrip("\n") + "\n" + entry
    return PREAMBLE.format(step=step) + "```c\n" + code + "```\n", code


# ---- the stages ---------------------------------------------------------------------------

def c_stages(ladder):
    stages = {stage["name"]: stage for stage in ladder["stages"]}
    names = list(ladder["ladder"]) + [name for name in stages if name == "open" and name not in ladder["ladder"]]
    return [stages[name] for name in names]


def sse3_builds(flags):
    """SSE3 intrinsics build where a flag enables SSE3: -msse3 or above, -mavx*, -march=native here."""
    return any(re.match(r"-m(sse3|ssse3|sse4|avx|fma)", f) or f.startswith("-march=") for f in flags)


def expected(stage, needs):
    """The refusals the stage's prompt states for a step that needs `needs` (none: `ok`), each
    as (rule, words the reason should contain, any of)."""
    rules = []
    allows, requires, flags = set(stage.get("allows", [])), set(stage.get("requires", [])), stage["flags"]
    if "sse3" in needs and not sse3_builds(flags):
        rules.append(("SSE3 does not build (no -msse3 in " + " ".join(flags) + ")",
                      ["sse3", "_mm_loaddup_pd", "pmmintrin", "target specific option"]))
    if "blocking" in needs and "blocking" not in allows:
        rules.append(("cache blocking refused", ["blocking", "tiled", "tile"]))
    for technique in sorted(requires):
        if technique not in needs:
            words = {"openmp": ["openmp"], "avx512": ["avx-512", "avx512"], "blocking": ["blocking", "tiled", "tile"]}
            rules.append((f"requires {technique}", words.get(technique, [technique])))
    return rules


def judge(row, rules, fair_failures=()):
    """'fair', 'misjudgement' or 'lenient', and why, for one row against the stated rules."""
    status, reason = row["status"], row["reason"]
    if not rules and not fair_failures:
        return ("fair", "") if status == "ok" else ("misjudgement", "refused though its stage's prompt allows what it uses")
    if status == "ok":
        return "lenient", "ok though the prompt says: " + "; ".join(rule for rule, _ in rules)
    if not reason:
        return "misjudgement", "refused without a reason"
    lowered = reason.lower()
    for failure, words in fair_failures:
        if status in failure and any(word in lowered for word in words):
            return "fair", ""
    named = [rule for rule, words in rules if any(word in lowered for word in words)]
    if named:
        return "fair", "names: " + "; ".join(named)
    return "misjudgement", "the reason names none of the stated rules: " + "; ".join(rule for rule, _ in rules + list(fair_failures))


# ---- the run ------------------------------------------------------------------------------

def read_rows(path):
    import h5py  # the system Python's (tests/answers/test_answers.py)

    def decode(value):
        return value.decode() if isinstance(value, bytes) else value

    with h5py.File(path, "r", swmr=True) as log:
        rows = [{name: decode(row[name]) for name in log["rewards"].dtype.names} for row in log["rewards"][()]]
        git_revision = decode(log.attrs.get("git_revision", ""))
    return rows, git_revision


def limit_processes():
    # The candidates run beside other tests on a small machine: bound what a runaway can fork.
    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    cap = 4000 if hard == resource.RLIM_INFINITY else min(4000, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (cap, hard))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tutorial", required=True, help="flame/how-to-optimize-gemm: a bare git directory or a checkout")
    parser.add_argument("--out", required=True, help="the JSON report")
    parser.add_argument("--run-dir", help="jobs/local.sh's --out (default: a temporary directory, removed)")
    parser.add_argument("--ladder", default=str(REPO / "stages" / "default_ladder.json"))
    parser.add_argument("--stages", help="comma-separated subset of the C stages")
    parser.add_argument("--steps", help="comma-separated subset of the steps (MMult0,MMult_4x4_15)")
    parser.add_argument("--seed", default="13")
    parser.add_argument("--write-candidates", help="also write the candidate lines (JSONL) here")
    parser.add_argument("--dry-run", action="store_true", help="write the candidates (--write-candidates) and stop")
    args = parser.parse_args()

    tutorial = Tutorial(args.tutorial)
    ladder = json.loads(pathlib.Path(args.ladder).read_text())
    stages = c_stages(ladder)
    if args.stages:
        wanted = args.stages.split(",")
        stages = [stage for stage in stages if stage["name"] in wanted]
    stage_names = [stage["name"] for stage in stages]
    steps = tutorial.steps()
    if args.steps:
        steps = [step for step in steps if step[0] in args.steps.split(",")]

    lines, plan = [], []
    for step, relative in steps:
        published = tutorial.read(relative).replace("\r\n", "\n")
        fixed, fixes = fix_source(published)
        words, needs = uses(fixed)
        entry = {"step": step, "path": relative, "uses": words, "needs": sorted(needs), "fixes": fixes,
                 "steps_by_four": steps_by_four(fixed)}
        completion, code = candidate(step, fixed, ENTRY_PADDED)
        entry["gcc_notes_published"] = gcc_notes(published, ["-msse3"])
        entry["gcc_notes"] = gcc_notes(code, ["-msse3"])
        for stage in stages:
            lines.append({"id": f"padded/{step}/{stage['name']}", "problem": PROBLEM, "stage": stage["name"],
                          "completion": completion, "batch_id": "tutorial"})
        if "open" in stage_names:
            completion, _ = candidate(step, fixed, ENTRY_DIRECT)
            lines.append({"id": f"direct/{step}/open", "problem": PROBLEM, "stage": "open",
                          "completion": completion, "batch_id": "tutorial"})
        if fixes and "open" in stage_names:
            completion, _ = candidate(step, published, ENTRY_PADDED)
            lines.append({"id": f"verbatim/{step}/open", "problem": PROBLEM, "stage": "open",
                          "completion": completion, "batch_id": "tutorial"})
        if "blocking" in needs and "blocking" in stage_names:
            # Where the blocking stage misses the tutorial's blocking, these say why: the block
            # bounds declared where they are computed (`int pb = min(...)`, as the detector's
            # "integer local computed from the tile variable" is read), then also the m block
            # made smaller than the timed 256 (mc = 256 splits nothing, which the prompt states).
            declared = re.sub(r"^(\s*)(pb|ib) = min\(", r"\1int \2 = min(", fixed, flags=re.M)
            probes = {"declared": declared, "declared_mc128": re.sub(r"#define mc 256", "#define mc 128", declared)}
            for tag, code in probes.items():
                if code != fixed:
                    completion, _ = candidate(step, code, ENTRY_PADDED)
                    lines.append({"id": f"probe/{step}/blocking/{tag}", "problem": PROBLEM, "stage": "blocking",
                                  "completion": completion, "batch_id": "tutorial"})
        plan.append(entry)

    run_dir = pathlib.Path(args.run_dir) if args.run_dir else pathlib.Path(tempfile.mkdtemp(prefix="tutorial-"))
    run_dir.mkdir(parents=True, exist_ok=True)
    candidates_path = run_dir / "tutorial.jsonl"
    candidates_path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    if args.write_candidates:
        shutil.copy(candidates_path, args.write_candidates)
    if args.dry_run:
        print(f"{len(lines)} candidates written to {args.write_candidates or candidates_path}")
        return
    bin_dir = os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin"))
    command = [str(REPO / "jobs" / "local.sh"), "--candidates", str(candidates_path), "--np", "2",
               "--seed", args.seed, "--ladder", args.ladder, "--out", str(run_dir / "run"), "--",
               "--workdir", str(run_dir / "work"), *BENCH_OPTIONS]
    print(f"{len(lines)} candidates ({len(steps)} steps x {len(stages)} stages, + direct, verbatim and probe rows)", flush=True)
    print("$ " + " ".join(command), flush=True)
    result = subprocess.run(command, capture_output=True, text=True, timeout=3600, preexec_fn=limit_processes,
                            env=dict(os.environ, HPCREWARD_BIN=bin_dir))
    if result.returncode != 0:
        sys.exit(f"jobs/local.sh failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    rows, git_revision = read_rows(run_dir / "run" / "rewards.h5")
    rows = {row["candidate_id"]: row for row in rows}
    missing = [line["id"] for line in lines if line["id"] not in rows]
    if missing:
        sys.exit(f"no row for {len(missing)} candidates: {missing[:5]}")

    report = {"tutorial": "flame/how-to-optimize-gemm", "commit": tutorial.commit, "problem": PROBLEM,
              "pipeline_revision": git_revision, "command": " ".join(command), "stages": stage_names,
              "steps": [], "findings": []}
    for entry in plan:
        step, needs = entry["step"], set(entry["needs"])
        entry["stages"], home = {}, []
        for stage in stages:
            rules = expected(stage, needs)
            if not rules:
                home.append(stage["name"])
            row = rows[f"padded/{step}/{stage['name']}"]
            verdict, why = judge(row, rules)
            if verdict != "fair" and "blocking" in needs and "requires blocking" in row["reason"]:
                why = ("it blocks for the cache (" + entry["uses"].split("blocking ")[1].split(",")[0] +
                       f", against the timed {PROBLEM.split('-')[1]}) yet the reason says it does not use blocking: "
                       "the detector found no tile loop (see the probe rows)")
            entry["stages"][stage["name"]] = {"status": row["status"], "reason": row["reason"], "gflops": row["gflops"],
                                              "stated": [rule for rule, _ in rules], "verdict": verdict, "why": why}
            if verdict != "fair":
                report["findings"].append({"candidate": f"padded/{step}/{stage['name']}", "verdict": verdict,
                                           "why": why, "status": row["status"], "reason": row["reason"]})
        entry["home_stages"] = home
        entry["ok_in_home"] = [name for name in home if entry["stages"][name]["status"] == "ok"]
        if not entry["ok_in_home"]:
            report["findings"].append({"candidate": f"padded/{step}", "verdict": "misjudgement",
                                       "why": f"ok in none of the stages that allow what it uses ({', '.join(home) or 'none'})"})
        if f"direct/{step}/open" in rows:
            row = rows[f"direct/{step}/open"]
            # The prompt names the check shapes and says to read the sizes from the arguments:
            # a kernel that assumes multiples of 4 fairly fails there (wrong values, or writes
            # past C, or a misaligned _mm_load_pd's crash).
            fair = [(("wrong_answer", "runtime_error"), ["257x255x263", "31x17x23", "outside", "signal", "crash",
                                                          "segmentation", "bounds"])] if entry["steps_by_four"] else []
            verdict, why = judge(row, [], fair)
            entry["direct_open"] = {"status": row["status"], "reason": row["reason"], "verdict": verdict, "why": why}
            if verdict != "fair":
                report["findings"].append({"candidate": f"direct/{step}/open", "verdict": verdict, "why": why,
                                           "status": row["status"], "reason": row["reason"]})
        if f"verbatim/{step}/open" in rows:
            row = rows[f"verbatim/{step}/open"]
            # Unbuildable as published: a compile_error naming gcc's complaint is fair. One that
            # gcc -std=gnu11 (the prompt's compiler) builds, refused by the checks' clang parser,
            # is a rule the prompt does not state.
            verdict, why = judge(row, [], [(("compile_error",), ["expected", "conflicting types"])])
            gcc_builds = not any("error:" in note for note in entry["gcc_notes_published"])
            if row["status"] != "ok" and gcc_builds and "clang" in row["reason"]:
                verdict, why = "misjudgement", ("gcc 12 -std=gnu11, the prompt's compiler, builds it (warning: " +
                                                "; ".join(entry["gcc_notes_published"][:1]) + "); the refusal "
                                                "comes from the checks' clang parser, which the prompt does not name")
            entry["verbatim_open"] = {"status": row["status"], "reason": row["reason"], "verdict": verdict, "why": why}
            if verdict != "fair":
                report["findings"].append({"candidate": f"verbatim/{step}/open", "verdict": verdict, "why": why,
                                           "status": row["status"], "reason": row["reason"]})
        probes = {key.split("/")[-1]: {"status": row["status"], "reason": row["reason"], "techniques": row["techniques"],
                                       "tile_sizes": row["tile_sizes"]}
                  for key, row in rows.items() if key.startswith(f"probe/{step}/")}
        if probes:
            entry["blocking_probes"] = probes
        report["steps"].append(entry)

    pathlib.Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print_table(report)
    if not args.run_dir:
        shutil.rmtree(run_dir, ignore_errors=True)


def print_table(report):
    stages = report["stages"]
    print(f"\nflame/how-to-optimize-gemm {report['commit'][:12]}, {report['problem']}, padded entry point")
    print("(* the step needed a change to build, see fixes; ! not the refusal its prompt states)")
    print(f"{'step':14s} " + " ".join(f"{name:8s}" for name in stages) + " direct@open  allowed in       uses")
    for entry in report["steps"]:
        cells = []
        for name in stages:
            cell = entry["stages"][name]
            mark = "" if cell["verdict"] == "fair" else "!"
            cells.append(f"{ABBREV.get(cell['status'], cell['status']) + mark:8s}")
        direct = entry.get("direct_open", {}).get("status", "-")
        step = entry["step"] + ("*" if entry["fixes"] else "")
        print(f"{step:14s} " + " ".join(cells) + f" {ABBREV.get(direct, direct):11s}  "
              f"{','.join(entry['home_stages']):14s} {entry['uses']}")
    print("\nreasons (padded):")
    seen = {}
    for entry in report["steps"]:
        for name in stages:
            cell = entry["stages"][name]
            if cell["status"] != "ok":
                seen.setdefault((name, cell["status"], cell["reason"]), []).append(entry["step"])
    for (name, status, reason), which in seen.items():
        print(f"  {name} {status}: {reason}\n      <- {', '.join(which)}")
    print("\ndirect@open and verbatim@open:")
    for entry in report["steps"]:
        for key in ("direct_open", "verbatim_open"):
            if key in entry and entry[key]["status"] != "ok":
                print(f"  {entry['step']} {key}: {entry[key]['status']}: {entry[key]['reason']}")
    print("\nblocking probes (the blocked steps in stage blocking, changed only to find why):")
    for entry in report["steps"]:
        for tag, probe in entry.get("blocking_probes", {}).items():
            print(f"  {entry['step']} {tag}: {probe['status']} techniques={probe['techniques']} "
                  f"tiles={probe['tile_sizes'] or '-'} {probe['reason']}")
    print(f"\nfindings: {len(report['findings'])}")
    for finding in report["findings"]:
        print(f"  {finding['candidate']}: {finding['verdict']}: {finding['why']}"
              + (f"\n      {finding.get('status')}: {finding.get('reason')}" if finding.get("reason") is not None else ""))


if __name__ == "__main__":
    main()
