"""python3 -m hpcreward dataset: prompts for training, as JSON Lines and a Hugging Face dataset.

    python3 -m hpcreward dataset --out data/dgemm dgemm-256 sgemm-512 --all-stages
    python3 -m hpcreward dataset --out data/live --rendezvous runs/serve dgemm-256
    python3 -m hpcreward dataset --out data/shots dgemm-256 --stage openmp --examples runs/a/rewards.h5

Each row holds `prompt`, `problem` and `stage` (the stage the prompt describes: the TRL and verl
adapters send it with the completion, so a candidate is judged in the stage its prompt named).
The prompts come from the run's own configuration (prompts/README.md): from a served run
(`--rendezvous` or `--url`/`--token-file`: its catalog, ladder, template, hardware and each
problem's current stage), or without one from `hpcreward-prompts` (`--problems`, `--ladder`,
`--template`, `--hosts`: a run's hosts_json for its hardware; `--bin DIR` or HPCREWARD_BIN finds
the program). `--examples LOG.h5` adds up to `--shots` verified kernels of the same problem from
an earlier run's archive: the fastest of different niches whose techniques the stage allows and
requires (read with `hpcreward-results`). `--chat` writes each prompt as a one-message
conversation ([{"role": "user", "content": ...}]), TRL's conversational format.

DIR/prompts.jsonl is the data; DIR/README.md is a dataset card whose `configs` make
`datasets.load_dataset("DIR")` load it as the `train` split
(`datasets.load_dataset("json", data_files="DIR/prompts.jsonl")` reads it too).
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys

from .client import Client
from .errors import HpcrewardError

_CARD = """---
configs:
- config_name: default
  data_files:
  - split: train
    path: prompts.jsonl
---
# hpcreward prompts

Written by `python3 -m hpcreward dataset` ({source}): {rows} rows ({prompts} prompts{repeat}), with
the columns `prompt`, `problem` and `stage`. Problems: {problems}. Stages: {stages}.
{examples}
"""


class DatasetError(HpcrewardError):
    """What was asked cannot be written; the message says what to fix."""


def find_program(name, bin_dir=None):
    """`name` in --bin DIR, $HPCREWARD_BIN, PATH, or a checkout's build/bin, in that order."""
    here = pathlib.Path(__file__).resolve().parents[3] / "build" / "bin"
    for directory in (bin_dir, os.environ.get("HPCREWARD_BIN")):
        if directory and (pathlib.Path(directory) / name).is_file():
            return str(pathlib.Path(directory) / name)
    found = shutil.which(name)
    if found:
        return found
    if (here / name).is_file():
        return str(here / name)
    raise DatasetError(f"cannot find {name}: build hpcreward (README.md) and pass --bin build/bin or set HPCREWARD_BIN")


def _run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise DatasetError(done.stderr.strip() or f"{command[0]} exited {done.returncode}")
    return done.stdout


def offline_prompts(args):
    """[{problem, stage, prompt}] from hpcreward-prompts (no pipeline)."""
    command = [find_program("hpcreward-prompts", args.bin), "--json", "--problems", args.problems]
    for flag, value in (("--ladder", args.ladder), ("--template", args.template), ("--hosts", args.hosts),
                        ("--reward-mode", args.reward_mode)):
        if value:
            command += [flag, value]
    command += ["--all-stages"] if args.all_stages else (["--stage", args.stage] if args.stage else [])
    return [json.loads(line) for line in _run(command + args.problem).splitlines() if line.strip()]


def served_prompts(client, problems, stage):
    """[{problem, stage, prompt}] of a served run: each problem's current stage, or `stage`."""
    return [entry for problem in problems for entry in client.prompts(problem, stage)]


def archive_examples(log, bin_dir=None, problems=None):
    """{problem: [(gflops, stage, niche, techniques, source)]}: the current elite of every niche of
    the log's archive (of `problems` only, when given), verified rows only, with the ladder the
    run judged them by."""
    results = find_program("hpcreward-results", bin_dir)
    provenance = json.loads(_run([results, "provenance", log]))
    ladder = {stage["name"]: stage for stage in provenance.get("config", {}).get("ladder_config", {}).get("stages", [])}
    rows = [json.loads(line) for line in _run([results, "export", log, "--table", "rewards", "--format", "jsonl"]).splitlines()
            if line.strip()]
    elites = {}
    for line in _run([results, "export", log, "--table", "archive", "--format", "jsonl"]).splitlines():
        if line.strip():
            record = json.loads(line)
            elites[(record["problem"], record["stage"], record["niche"])] = record  # the last one stands
    examples = {}
    for (problem, stage, niche), record in elites.items():
        if problems is not None and problem not in problems:
            continue
        index = record.get("row_index", -1)
        if not (0 <= index < len(rows)) or rows[index].get("status") != "ok" or \
                rows[index].get("candidate_id") != record["candidate_id"]:
            continue
        used = set(niche.split("|")[0].split("+")) - {"plain", ""}
        source = _run([results, "source", log, record["source_sha256"]])
        examples.setdefault(problem, []).append((record["gflops"], stage, niche, used, source))
    return examples, ladder


def fitting(examples, stage, ladder, shots):
    """The fastest `shots` examples whose techniques `stage` allows and requires."""
    rule = ladder.get(stage)
    if rule is None:
        return []
    allows, requires = set(rule.get("allows", [])), set(rule.get("requires", []))
    fit = [e for e in examples if e[3] <= allows and requires <= e[3]]
    return sorted(fit, key=lambda e: -e[0])[:shots]


def with_examples(prompt, problem, chosen, language):
    if not chosen:
        return prompt
    fence = "cuda" if language == "cuda" else "c"
    parts = [prompt.rstrip("\n"), "", f"Verified kernels for `{problem}` from an earlier run (their GFLOPS were "
             "measured there; yours is judged on its own):"]
    for number, (gflops, stage, niche, used, source) in enumerate(chosen, 1):
        parts += ["", f"Example {number}: {gflops:.1f} GFLOPS in stage {stage}, "
                      f"techniques {'+'.join(sorted(used)) or 'none'}.", f"```{fence}", source.rstrip("\n"), "```"]
    return "\n".join(parts) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m hpcreward dataset", description=__doc__.split("\n\n")[0])
    parser.add_argument("problem", nargs="+", help="problem ids of the catalog")
    parser.add_argument("--out", required=True, help="directory for prompts.jsonl and the dataset card README.md")
    parser.add_argument("--rendezvous", help="a served run's directory or coordinator.json")
    parser.add_argument("--url")
    parser.add_argument("--token-file")
    parser.add_argument("--problems", default="default", help="without a run: catalog name or file")
    parser.add_argument("--ladder", help="without a run: ladder file (default: the built-in one)")
    parser.add_argument("--template", help="without a run: prompt template file")
    parser.add_argument("--hosts", help="without a run: a run's hosts_json (its hardware)")
    parser.add_argument("--reward-mode", help="without a run: gflops, fraction or speedup:NAME")
    parser.add_argument("--bin", help="where hpcreward-prompts and hpcreward-results are")
    stages = parser.add_mutually_exclusive_group()
    stages.add_argument("--stage", help="the stage of every prompt (default: each problem's current one)")
    stages.add_argument("--all-stages", action="store_true", help="without a run: every stage of each problem")
    parser.add_argument("--examples", help="an earlier run's rewards.h5: few-shot kernels from its archive")
    parser.add_argument("--shots", type=int, default=2, help="examples per prompt (default 2)")
    parser.add_argument("--repeat", type=int, default=1, help="rows per prompt (default 1)")
    parser.add_argument("--chat", action="store_true", help="prompts as [{role: user, content}]")
    args = parser.parse_args(argv)
    try:
        served = bool(args.rendezvous or args.url)
        if served and args.all_stages:
            raise DatasetError("--all-stages needs the ladder: without --rendezvous/--url (the built-in ladder or "
                               "--ladder), or name one --stage per call")
        if args.repeat < 1 or args.shots < 0:
            raise DatasetError("--repeat must be at least 1 and --shots at least 0")
        if served:
            client = Client.from_rendezvous(args.rendezvous) if args.rendezvous else \
                Client.from_token_file(args.url, args.token_file)
            prompts = served_prompts(client, args.problem, args.stage)
            languages = {p["id"]: p["language"] for p in client.problems()["problems"]}
            source = f"served run {client.url}"
        else:
            prompts = offline_prompts(args)
            listing = json.loads(_run([find_program("hpcreward-problems", args.bin), "--problems", args.problems, "--json"]))
            languages = {p["id"]: p["language"] for p in listing["problems"]}
            source = f"hpcreward-prompts, catalog {args.problems}"
        examples, ladder = archive_examples(args.examples, args.bin, set(args.problem)) if args.examples else ({}, {})
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        rows, shown = [], 0
        for entry in prompts:
            chosen = fitting(examples.get(entry["problem"], []), entry["stage"], ladder, args.shots)
            shown += bool(chosen)
            text = with_examples(entry["prompt"], entry["problem"], chosen, languages.get(entry["problem"]))
            prompt = [{"role": "user", "content": text}] if args.chat else text
            rows += [{"prompt": prompt, "problem": entry["problem"], "stage": entry["stage"]}] * args.repeat
        partial = out / "prompts.jsonl.partial"
        partial.write_text("".join(json.dumps(row) + "\n" for row in rows))
        partial.replace(out / "prompts.jsonl")
        (out / "README.md").write_text(_CARD.format(
            source=source, rows=len(rows), prompts=len(prompts), repeat=f", each {args.repeat} times" if args.repeat > 1 else "",
            problems=", ".join(sorted({e["problem"] for e in prompts})),
            stages=", ".join(sorted({e["stage"] for e in prompts})),
            examples=(f"Few-shot examples from {args.examples}: in {shown} of {len(prompts)} prompts.\n"
                      if args.examples else "")))
        print(f"wrote {len(rows)} rows ({len(prompts)} prompts) to {out / 'prompts.jsonl'}"
              + (f"; {shown} with examples from {args.examples}" if args.examples else "")
              + f"; load with datasets.load_dataset({str(out)!r})")
        return 0
    except (HpcrewardError, OSError) as error:
        print(f"python3 -m hpcreward dataset: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
