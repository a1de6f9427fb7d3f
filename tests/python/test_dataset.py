"""python3 -m hpcreward dataset without a pipeline: prompts from hpcreward-prompts as JSON Lines and
a dataset card that Hugging Face `datasets` loads; few-shot kernels from a real run's archive.
(The served path is in test_served_pipeline.py.)"""
import json
import os
import pathlib
import re
import subprocess

import pytest

from conftest import REPO
from hpcreward import dataset

BIN = pathlib.Path(os.environ.get("HPCREWARD_BIN", REPO / "build" / "bin"))
needs_build = pytest.mark.skipif(not (BIN / "hpcreward-prompts").is_file(), reason="hpcreward is not built")


def rows_of(directory):
    return [json.loads(line) for line in (directory / "prompts.jsonl").read_text().splitlines()]


@needs_build
def test_every_stage_of_two_problems_in_the_datasets_format(tmp_path):
    assert dataset.main(["--out", str(tmp_path), "--bin", str(BIN), "dgemm-256", "cuda-hgemm-4096", "--all-stages"]) == 0
    rows = rows_of(tmp_path)
    assert [set(row) for row in rows] == [{"prompt", "problem", "stage"}] * 14
    stages = {(row["problem"], row["stage"]) for row in rows}
    assert ("dgemm-256", "blocking") in stages and ("cuda-hgemm-4096", "cuda-hopper") in stages and len(stages) == 14
    for row in rows:
        assert f"This is stage `{row['stage']}`" in row["prompt"] and f"`{row['problem']}`" in row["prompt"]
    card = (tmp_path / "README.md").read_text()
    # The card's YAML header is what datasets.load_dataset(DIR) reads.
    assert re.match(r"---\nconfigs:\n- config_name: default\n  data_files:\n  - split: train\n    path: prompts.jsonl\n---\n",
                    card), card
    try:
        import datasets
    except ImportError:
        return  # not installed here (CI); the card's form is checked above
    loaded = datasets.load_dataset(str(tmp_path))["train"]
    assert loaded.column_names == ["prompt", "problem", "stage"] and len(loaded) == 14


@needs_build
def test_conversations_repeats_and_a_catalogs_problems(tmp_path):
    assert dataset.main(["--out", str(tmp_path), "--bin", str(BIN), "--problems", "gemm-kinds", "--stage", "o3",
                         "--chat", "--repeat", "3", "dgemm-tn-256", "sgemm-batched-8x128"]) == 0
    rows = rows_of(tmp_path)
    assert len(rows) == 6 and {row["stage"] for row in rows} == {"o3"}
    assert all(row["prompt"][0]["role"] == "user" and len(row["prompt"]) == 1 for row in rows)
    assert "int batch, int m, int n, int k" in rows[3]["prompt"][0]["content"]


@needs_build
def test_a_bad_request_says_what_to_fix(tmp_path, capsys):
    assert dataset.main(["--out", str(tmp_path), "--bin", str(BIN), "--stage", "cuda-smem", "dgemm-256"]) == 2
    assert "stage cuda-smem is for cuda problems" in capsys.readouterr().err
    assert dataset.main(["--out", str(tmp_path), "--bin", str(BIN), "zgemm-1"]) == 2
    assert "no problem zgemm-1" in capsys.readouterr().err
    assert dataset.main(["--out", str(tmp_path), "--rendezvous", str(tmp_path), "--all-stages", "dgemm-256"]) == 2
    assert "--all-stages needs the ladder" in capsys.readouterr().err
    assert not (tmp_path / "prompts.jsonl").exists()


@needs_build
def test_few_shot_examples_are_verified_kernels_the_stage_allows(tmp_path):
    run = tmp_path / "run"
    done = subprocess.run([str(REPO / "jobs" / "local.sh"), "--evaluations", "24", "--np", "2", "--out", str(run),
                           "--", "--warmup-s", "0.02", "--time-cap-s", "0.1"],
                          capture_output=True, text=True, env=dict(os.environ, HPCREWARD_BIN=str(BIN)), timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    log = str(run / "rewards.h5")
    examples, ladder = dataset.archive_examples(log, str(BIN))
    assert examples["dgemm-256"], "the run's archive has elites"
    out = tmp_path / "data"
    assert dataset.main(["--out", str(out), "--bin", str(BIN), "--examples", log, "--shots", "2",
                         "dgemm-256", "--all-stages"]) == 0
    by_stage = {row["stage"]: row["prompt"] for row in rows_of(out)}
    # Every elite of this short run is an o0 kernel without OpenMP: it fits o0, and never a
    # stage that requires a technique it lacks.
    assert "Example 1:" in by_stage["o0"] and "```c\n" in by_stage["o0"].split("Verified kernels")[1]
    assert "Verified kernels" not in by_stage["openmp"] and "Verified kernels" not in by_stage["blocking"]
    shown = [float(x) for x in re.findall(r"Example \d: ([\d.]+) GFLOPS", by_stage["o0"])]
    assert 1 <= len(shown) <= 2 and shown == sorted(shown, reverse=True)
    best = max(e[0] for e in examples["dgemm-256"] if not e[3] - set(ladder["o0"]["allows"]))
    assert shown[0] == pytest.approx(best, abs=0.05)
    rows = [json.loads(line) for line in subprocess.run(
        [str(BIN / "hpcreward-results"), "export", log, "--table", "rewards", "--format", "jsonl"],
        capture_output=True, text=True, check=True).stdout.splitlines()]
    ok_sources = {subprocess.run([str(BIN / "hpcreward-results"), "source", log, row["source_sha256"]],
                                 capture_output=True, text=True, check=True).stdout.strip()
                  for row in rows if row["status"] == "ok"}
    for block in re.findall(r"```c\n(.*?)```", by_stage["o0"], re.S):
        assert block.strip() in ok_sources, "an example is the source of a verified row"
