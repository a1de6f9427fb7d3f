"""GPU benchmark ranks from the launcher's and the coordinator's side, on a machine without GPUs.

jobs/local.sh --gpus G starts G `hpcreward-bench --gpu` ranks beside the CPU ranks (checked with
stand-in executables that record how mpirun started them); a run without GPU ranks refuses a
CUDA problem at start, before it creates a log.
"""
import json
import os
import pathlib
import stat
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
LOCAL_SH = REPO / "jobs" / "local.sh"
BIN = pathlib.Path(os.environ.get("HPCREWARD_BIN", str(REPO / "build" / "bin")))


def fake_bin(tmp_path):
    """Stand-ins for the three executables: each appends its name and arguments to calls.txt."""
    folder = tmp_path / "bin"
    folder.mkdir()
    calls = tmp_path / "calls.txt"
    for name in ("hpcreward-coordinator", "hpcreward-bench", "hpcreward-runner"):
        script = folder / name
        script.write_text(f'#!/bin/sh\nprintf "%s\\n" "{name} $*" >> "{calls}"\n')
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return folder, calls


def launch(tmp_path, *args, bin_dir=None):
    env = dict(os.environ, HPCREWARD_BIN=str(bin_dir or BIN))
    return subprocess.run([str(LOCAL_SH), *args], capture_output=True, text=True, env=env, timeout=600)


def candidates(tmp_path, *lines):
    path = tmp_path / "candidates.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_gpus_start_gpu_ranks_beside_the_cpu_ranks(tmp_path):
    folder, calls = fake_bin(tmp_path)
    file = candidates(tmp_path, {"id": "a", "source": "void matmul(){}"})
    result = launch(tmp_path, "--candidates", str(file), "--np", "1", "--gpus", "2",
                    "--gpu-arg", "--nvcc", "--gpu-arg", "/opt/cuda/bin/nvcc", "--out", str(tmp_path / "run"),
                    "--", "--warmup-s", "0.1", bin_dir=folder)
    assert result.returncode == 0, result.stderr
    lines = sorted(calls.read_text().splitlines())
    assert len(lines) == 4, lines
    assert lines[0].startswith("hpcreward-bench --gpu --warmup-s 0.1 --nvcc /opt/cuda/bin/nvcc")
    assert lines[1] == lines[0]
    assert lines[2] == "hpcreward-bench --warmup-s 0.1", "CPU ranks get the common options only"
    assert lines[3].startswith("hpcreward-coordinator --out ")


def test_gpu_ranks_alone(tmp_path):
    folder, calls = fake_bin(tmp_path)
    file = candidates(tmp_path, {"id": "a", "source": "void matmul(){}"})
    result = launch(tmp_path, "--candidates", str(file), "--np", "0", "--gpus", "1", "--out", str(tmp_path / "run"),
                    bin_dir=folder)
    assert result.returncode == 0, result.stderr
    lines = sorted(calls.read_text().splitlines())
    assert [line.split()[:2] for line in lines] == [["hpcreward-bench", "--gpu"], ["hpcreward-coordinator", "--out"]]


def test_no_gpus_by_default(tmp_path):
    folder, calls = fake_bin(tmp_path)
    file = candidates(tmp_path, {"id": "a", "source": "void matmul(){}"})
    result = launch(tmp_path, "--candidates", str(file), "--np", "2", "--out", str(tmp_path / "run"), bin_dir=folder)
    assert result.returncode == 0, result.stderr
    assert "--gpu" not in calls.read_text()
    assert calls.read_text().count("hpcreward-bench") == 2


def test_launcher_flags_say_what_to_fix(tmp_path):
    out = str(tmp_path / "run")
    for args, message in [(["--gpus", "two"], "--gpus must be a number of GPU ranks"),
                          (["--np", "0"], "no benchmark ranks: give --np N"),
                          (["--np", "1", "--gpu-arg", "--nvcc"], "--gpu-arg needs GPU ranks: add --gpus G")]:
        result = launch(tmp_path, *args, "--out", out)
        assert result.returncode == 2, (args, result.stderr)
        assert message in result.stderr, (args, result.stderr)


def test_a_cuda_problem_without_gpu_ranks_is_refused_at_start(tmp_path):
    file = candidates(tmp_path, {"id": "c", "problem": "dgemm-256", "source": "void matmul(){}"},
                      {"id": "g", "problem": "cuda-sgemm-4096", "source": "void matmul(){}"})
    result = launch(tmp_path, "--candidates", str(file), "--np", "1", "--out", str(tmp_path / "run"))
    assert result.returncode != 0
    assert "cuda-sgemm-4096 needs a GPU rank: start with jobs/local.sh --gpus N" in result.stderr, result.stderr
    assert "the first g" in result.stderr
    assert not (tmp_path / "run" / "rewards.h5").exists(), "refused before the log exists"
