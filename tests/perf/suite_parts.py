"""The measurements of tests/perf/run.sh, one function each (suite.py runs them).

Each part runs one benchmark program as a subprocess, with a time limit, and returns the
bench.json fields it is responsible for plus a `details` dict for report.md. A part that fails
or is missing raises PartError; suite.py then records its fields as null and the message as an
error in report.md.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
PYTHON = sys.executable


class PartError(Exception):
    pass


def run(command, log, limit_s, env=None):
    """Runs command with its output in log; PartError on a non-zero exit or past limit_s."""
    try:
        with open(log, "w") as out:
            code = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, cwd=REPO, timeout=limit_s,
                                  env=env).returncode
    except subprocess.TimeoutExpired:
        raise PartError(f"ran past its limit of {limit_s} s (log: {log})")
    except OSError as error:
        raise PartError(f"cannot run {command[0]}: {error}")
    if code != 0:
        raise PartError(f"exited {code}: {' '.join(map(str, command[:3]))} ... (log: {log})")


def read_json(path):
    try:
        return json.loads(pathlib.Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise PartError(f"cannot read {path}: {error}")


def bin_env(cfg):
    return dict(os.environ, HPCREWARD_BIN=str(cfg.bin), OMPI_ALLOW_RUN_AS_ROOT="1",
                OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def make_corpus(cfg, name):
    corpus = cfg.out / "corpora" / f"{name}.jsonl"
    command = [PYTHON, str(HERE / f"corpus_{name}.py"), "--out", str(corpus)]
    if cfg.tiny_corpora:
        command.append("--tiny")
    elif name == "grpo":
        command += ["--groups", str(cfg.grpo_groups)]
    run(command, cfg.out / "logs" / f"corpus_{name}.log", 60)
    return corpus


def throughput(cfg, name, pairs):
    """One corpus through throughput.py: hpcreward and the plain loop, interleaved pairs."""
    corpus = make_corpus(cfg, name)
    out = cfg.out / f"throughput-{name}"
    run([PYTHON, str(HERE / "throughput.py"), "--bin", str(cfg.bin), "--corpus", str(corpus),
         "--pairs", str(pairs), "--out", str(out)], cfg.out / "logs" / f"throughput-{name}.log", cfg.limit_s,
        bin_env(cfg))
    return read_json(out / "throughput.json")


def throughput_mixed(cfg):
    t = throughput(cfg, "mixed", cfg.mixed_pairs)
    fields = {"candidates_per_s_per_core": t["hpcreward_per_s_steady"],
              "baseline_candidates_per_s_per_core": t["plain_loop_per_s_steady"],
              "candidates_per_s_per_core_with_startup": t["hpcreward_per_s_with_startup"],
              "baseline_candidates_per_s_per_core_with_startup": t["plain_loop_per_s_with_startup"],
              "mixed_throughput_ratio": t["ratio_per_s_steady"]}
    return fields, t


def throughput_grpo(cfg):
    t = throughput(cfg, "grpo", cfg.grpo_pairs)
    fields = {"repeat_corpus_speedup": t["ratio_per_s_steady"],
              "repeat_corpus_speedup_with_startup": t["ratio_per_s_with_startup"]}
    return fields, t


def dispatch(cfg):
    script = HERE / "dispatch_bench.py"
    if not script.exists():
        raise PartError(f"{script.relative_to(REPO)} does not exist in this tree")
    command = [PYTHON, str(script), "--bin", str(cfg.bin), "--out", str(cfg.out / "dispatch")]
    if cfg.mode != "full":
        command.append("--quick")
    run(command, cfg.out / "logs" / "dispatch.log", cfg.limit_s, bin_env(cfg))
    d = read_json(cfg.out / "dispatch" / "dispatch.json")
    keys = ["dispatch_us_per_candidate", "rss_ratio_100k_10k", "rss_kb_after_10k", "rss_kb_after_100k",
            "idle_cpu_percent"]
    missing = [key for key in keys if key not in d]
    if missing:
        raise PartError(f"dispatch.json lacks {', '.join(missing)}")
    return {key: d[key] for key in keys}, d


def endpoint(cfg):
    report = cfg.out / "endpoint" / "endpoint_load.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    clients, idle, ranks = cfg.endpoint
    command = [PYTHON, str(HERE / "endpoint_load.py"), "--clients", str(clients), "--idle", str(idle),
               "--np", str(ranks), "--out", str(cfg.out / "endpoint" / "run"), "--report", str(report)]
    try:
        run(command, cfg.out / "logs" / "endpoint.log", cfg.limit_s, bin_env(cfg))
    except PartError:
        if not report.exists():  # exit 1 only says a target was missed; the report still holds the figure
            raise
    e = read_json(report)
    p99 = e.get("stages_while_scoring", {}).get("p99_ms")
    if p99 is None:
        raise PartError("no GET /v1/stages sample while batches scored")
    return {"stages_p99_ms": p99}, e


FIDELITY_ROW = re.compile(r"^\|\s*(\S+\.c)\s*\|\s*([^|]+?)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|$")
FIDELITY_CV = re.compile(r"CV ([\d.]+)%")


def fidelity(cfg):
    report = cfg.out / "fidelity" / "fidelity.md"
    report.parent.mkdir(parents=True, exist_ok=True)
    rounds, repeats = cfg.fidelity
    run([str(cfg.bin / "hpcreward-fidelity"), "--rounds", str(rounds), "--repeats", str(repeats),
         "--report", str(report)], cfg.out / "logs" / "fidelity.log", cfg.limit_s)
    text = report.read_text()
    rows = [m.groups() for m in map(FIDELITY_ROW.match, text.splitlines()) if m]
    cv = FIDELITY_CV.search(text)
    if not rows or not cv:
        raise PartError(f"cannot read the table or the CV in {report}")
    ratios = {f"{name} {flags}": float(r) for name, flags, _, _, r in rows}
    return {"fidelity_max_error": max(abs(r - 1) for r in ratios.values()), "timing_cv": float(cv.group(1)) / 100}, \
        {"ratios": ratios, "rounds": rounds, "repeats": repeats, "report": str(report)}


def scale(cfg):
    out = cfg.out / "scale" / "scale_sim.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    sweep, candidates = cfg.scale
    run([PYTHON, str(HERE / "scale_sim.py"), "--ranks", "100", "--batches", "2", "--sweep", sweep,
         "--sweep-candidates", str(candidates), "--json", str(out)], cfg.out / "logs" / "scale.log", cfg.limit_s)
    s = read_json(out)
    largest = max(row["ranks"] for row in s["sweep"])
    return {"saturation_ranks": s["saturated_at"], "saturation_sweep_max_ranks": largest}, \
        {"sweep": sweep, "peak_per_s": max(row["steady_throughput_per_s"] for row in s["sweep"])}


# name -> (function, the bench.json fields it owns)
PARTS = {
    "throughput_mixed": (throughput_mixed, ["candidates_per_s_per_core", "baseline_candidates_per_s_per_core",
                                            "candidates_per_s_per_core_with_startup",
                                            "baseline_candidates_per_s_per_core_with_startup",
                                            "mixed_throughput_ratio"]),
    "throughput_grpo": (throughput_grpo, ["repeat_corpus_speedup", "repeat_corpus_speedup_with_startup"]),
    "dispatch": (dispatch, ["dispatch_us_per_candidate", "rss_ratio_100k_10k", "rss_kb_after_10k",
                            "rss_kb_after_100k", "idle_cpu_percent"]),
    "endpoint": (endpoint, ["stages_p99_ms"]),
    "fidelity": (fidelity, ["fidelity_max_error", "timing_cv"]),
    "scale": (scale, ["saturation_ranks", "saturation_sweep_max_ranks"]),
}
