"""What a prompt says is what the pipeline enforces. The built-in generator's C kernels of every
technique mix are scored in every stage of the ladder: a kernel gets `ok` exactly where the
stage's prompt (hpcreward-prompts, the built-in template) says it may, by the techniques the
prompt requires and refuses; every header a kernel includes is one the prompt offers. A prompt
that promised what the harness refuses, or refused what it accepts, fails here."""
import json
import os
import pathlib
import re
import subprocess

from hpcreward_generator import kernels
from hpcreward_generator.file_scorer import read_log
from hpcreward_generator.kernels import Genome

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin")))
BENCH_OPTIONS = ["--", "--warmup-s", "0.02", "--time-cap-s", "0.1"]
# How the built-in template names each technique (prompts/prompt_fields.cpp, technique_words).
NAMED_AS = {"openmp": "OpenMP (", "avx512": "AVX-512 (", "blocking": "cache blocking (",
            "simd": "SIMD intrinsics below AVX-512 ("}
GENOMES = [Genome("ikj", unroll=4, restrict=True),
           Genome("kij", unroll=2, openmp=True),
           Genome("ikj", unroll=2, jam=2, avx512=True, restrict=True),
           Genome("ikj", unroll=2, avx512=True, openmp=True),
           Genome("ikj", tk=64, unroll=4),
           Genome("jki", ti=64, tj=16, tk=32, openmp=True),
           Genome("ikj", ti=32, tj=128, tk=64, avx512=True, unroll=2),
           Genome("ikj", ti=32, tk=128, unroll=2, jam=2, avx512=True, openmp=True)]


def host_has_avx512():
    with open("/proc/cpuinfo") as info:
        return "avx512f" in info.read()


def techniques_said(line):
    """The technique names a prompt line lists ("- Required: your code must use OpenMP (...)")."""
    items = re.split(r"; (?:and )?", line.split(": ", 1)[1])
    return {name for name, words in NAMED_AS.items()
            for item in items if item.removeprefix("your code must use ").startswith(words)}


def stage_prompts():
    listing = subprocess.run([str(BIN / "hpcreward-prompts"), "--json", "--all-stages", "dgemm-256"],
                             capture_output=True, text=True, check=True)
    prompts = {}
    for line in listing.stdout.splitlines():
        entry = json.loads(line)
        text = entry["prompt"]
        required = techniques_said(next(l for l in text.splitlines() if l.startswith("- Required: ")))
        refused = techniques_said(next(l for l in text.splitlines() if l.startswith("- Refused here")))
        headers = re.findall(r"[a-z0-9_]+\.h", next(l for l in text.splitlines() if l.startswith("- Headers: ")))
        prompts[entry["stage"]] = (required, refused, set(headers))
    return prompts


def test_the_pipeline_accepts_exactly_what_each_stages_prompt_allows(tmp_path):
    prompts = stage_prompts()
    # o0 compiles without -fopenmp: OpenMP directives there are inert, not refused (and said so).
    assert prompts["o0"][1] == {"avx512", "blocking"} and prompts["blocking"][0] == {"blocking"}
    avx512 = host_has_avx512()
    cases, lines = [], []
    for stage, (required, refused, headers) in prompts.items():
        if not avx512 and stage in ("avx512", "blocking"):
            continue  # a host without AVX-512 skips these stages (unsupported_stage)
        for genome in GENOMES:
            if genome.avx512 and not avx512:
                continue
            source = kernels.render(genome)
            for header in re.findall(r"#include <([^>]+)>", source):
                assert header in headers, f"{genome.label()} includes {header}, which the {stage} prompt does not offer"
            used = set(kernels.techniques(genome))
            cases.append((stage, genome, required <= used and not (used & refused)))
            lines.append({"id": f"c{len(lines)}", "stage": stage, "problem": "dgemm-256", "source": source})
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = subprocess.run([str(REPO / "jobs" / "local.sh"), "--candidates", str(candidates), "--np", "2",
                           "--out", str(tmp_path / "run"), *BENCH_OPTIONS], capture_output=True, text=True,
                          env=dict(os.environ, HPCREWARD_BIN=str(BIN)), timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = {row["candidate_id"]: row for row in read_log(tmp_path / "run" / "rewards.h5")[0]}
    wrong = []
    for index, (stage, genome, allowed) in enumerate(cases):
        row = rows[f"c{index}"]
        # Refused: by the stage's rule, or (AVX-512 intrinsics without the stage's -mavx512f) by the compiler.
        if (row["status"] == "ok") != allowed or (not allowed and row["status"] not in (
                "constraint_violation", "compile_error")):
            wrong.append(f"{genome.label()} in {stage}: {row['status']} ({row['reason'][:160]}); the prompt "
                         f"{'allows' if allowed else 'refuses'} it")
    assert not wrong, "\n".join(wrong)
    # Without AVX-512 the avx512 and blocking stages and the AVX-512 kernels are left out.
    least = 8 if avx512 else 6
    assert sum(allowed for _, _, allowed in cases) >= least and sum(not a for _, _, a in cases) >= least
