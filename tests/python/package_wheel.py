#!/usr/bin/env python3
"""Builds the hpcreward wheel from train_bridge/python, installs it into a fresh venv and uses it.

The wheel holds two packages: hpcreward (train_bridge/python) and hpcreward_report, whose source
is results/python (pyproject.toml's package-dir). No network: the wheel is built with `pip wheel
--no-deps --no-build-isolation` (the build backend is this Python's setuptools: Debian's
python3-setuptools and python3-wheel), and installed with `pip install --no-index --no-deps` into
a venv made by this Python (Debian's python3-venv) that sees its system packages, where
jobs/install-deps.sh puts h5py, NumPy, Matplotlib and Pygments. Both source folders are copied to
a temporary folder first, in the same layout, so the build leaves nothing in the checkout.

    package_wheel.py [--work DIR] [--results-tool hpcreward-results --log-writer results_report_log_writer]

With the two programs of a build it also draws a report with the installed hpcreward_report.
Exit 0: built, installed, imported, its commands answer; 77 (skipped): this Python cannot build
or make a venv (the message names the Debian package, jobs/install-deps.sh installs them); 1: a
step failed (its output is printed).
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zipfile

REPO = pathlib.Path(__file__).resolve().parents[2]
# The package's folder, and the folder its pyproject.toml takes hpcreward_report from.
SOURCES = ["train_bridge/python", "results/python"]
PROJECT = "train_bridge/python"
SKIP = 77

# What a trainer imports, and the adapter files the trainers load by path.
IMPORTS = ["hpcreward", "hpcreward.client", "hpcreward.trl", "hpcreward.verl", "hpcreward.openrlhf_reward",
           "hpcreward.replay", "hpcreward.env_client", "hpcreward.__main__"]
IN_WHEEL = ["hpcreward/__init__.py", "hpcreward/__main__.py", "hpcreward/verl.py", "hpcreward/openrlhf_reward.py",
            "hpcreward/trl.py", "hpcreward/replay.py", "hpcreward_report/__init__.py", "hpcreward_report/__main__.py",
            "hpcreward_report/summary.py", "hpcreward_report/html_report.py"]


def run(command, **kwargs):
    print("+", " ".join(str(part) for part in command), flush=True)
    result = subprocess.run([str(part) for part in command], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, **kwargs)
    if result.returncode != 0:
        print(result.stdout)
        raise SystemExit(f"package_wheel: failed (exit {result.returncode}): {' '.join(map(str, command))}")
    return result.stdout


def missing_tools():
    missing = []
    for module, package in (("setuptools", "python3-setuptools"), ("wheel", "python3-wheel"),
                            ("pip", "python3-pip"), ("ensurepip", "python3-venv"), ("venv", "python3-venv")):
        probe = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True)
        if probe.returncode != 0:
            missing.append(f"{module} ({package})")
    return missing


def check(work, results_tool=None, log_writer=None):
    missing = missing_tools()
    if missing:
        print(f"package_wheel: SKIP: {sys.executable} lacks {', '.join(missing)}; jobs/install-deps.sh installs them")
        return SKIP
    for folder in SOURCES:
        shutil.copytree(REPO / folder, work / "src" / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info"))
    dist = work / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", dist,
         work / "src" / PROJECT])
    wheels = sorted(dist.glob("hpcreward-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"package_wheel: expected one hpcreward wheel in {dist}, found {[w.name for w in wheels]}")
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    absent = [name for name in IN_WHEEL if name not in names]
    if absent:
        raise SystemExit(f"package_wheel: {wheels[0].name} lacks {absent}")
    print(f"package_wheel: built {wheels[0].name} ({len(names)} files)")

    venv = work / "venv"
    run([sys.executable, "-m", "venv", "--system-site-packages", venv])
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", wheels[0]])
    # Outside the checkout, without PYTHONPATH: the installed copy is what gets imported.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    out = run([python, "-c", "import importlib, sys\n"
               f"for name in {IMPORTS!r}: importlib.import_module(name)\n"
               "import hpcreward, hpcreward.verl as v, hpcreward.openrlhf_reward as o, hpcreward_report as r\n"
               "print(hpcreward.__file__); print(v.__file__); print(o.__file__); print(r.__file__)\n"
               "import importlib.metadata as m; print(m.version('hpcreward'))"], cwd=work, env=env)
    site = str(venv)
    for line in out.splitlines()[:4]:
        if not line.startswith(site):
            raise SystemExit(f"package_wheel: imported {line}, not from the venv {site}")
    # The verl and OpenRLHF adapters are loaded by file path by their trainers: from the installed copy too.
    verl_file = out.splitlines()[1]
    run([python, "-c", "import importlib.util, inspect\n"
         f"spec = importlib.util.spec_from_file_location('custom_module_1', {verl_file!r})\n"
         "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
         "assert inspect.iscoroutinefunction(module.compute_score_async)\n"
         "assert module.compute_score.__module__ == 'hpcreward.verl'"], cwd=work, env=env)
    usage = run([python, "-m", "hpcreward", "replay", "--help"], cwd=work, env=env)
    assert "hpcreward-replay" in usage, usage
    run([venv / "bin" / "hpcreward-replay", "--help"], cwd=work, env=env)
    top = subprocess.run([str(python), "-m", "hpcreward"], capture_output=True, text=True, cwd=work, env=env)
    assert top.returncode == 2 and "replay" in top.stdout and "report" in top.stdout, top
    if results_tool and log_writer:
        check_report(work, venv, env, pathlib.Path(results_tool), pathlib.Path(log_writer))
    print(f"package_wheel: ok: {wheels[0].name} installed into a fresh venv, imported, python -m hpcreward answers")
    return 0


def check_report(work, venv, env, results_tool, log_writer):
    """The installed hpcreward_report draws a report, asking the hpcreward-results it is given
    for the summary; without one it says how to get one."""
    log = work / "rewards.h5"
    run([log_writer, log, 12, 0])
    page = work / "report.html"
    with_tool = dict(env, HPCREWARD_RESULTS=str(results_tool))
    out = run([venv / "bin" / "hpcreward-report", "report", log, "--out", page], cwd=work, env=with_tool)
    assert out.strip() == str(page) and 'id="summary"' in page.read_text(), out
    without = dict(env, PATH=str(venv / "bin") + ":/usr/bin:/bin")
    without.pop("HPCREWARD_RESULTS", None)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "hpcreward", "report", "report", str(log), "--out",
                           str(work / "none.html")], capture_output=True, text=True, cwd=work, env=without)
    assert done.returncode == 1 and "hpcreward-results not found" in done.stderr, done
    print("package_wheel: the installed hpcreward_report drew a report with the build's hpcreward-results")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=pathlib.Path, help="folder for the build and the venv (emptied first)")
    parser.add_argument("--results-tool", help="a built hpcreward-results: draw a report with the installed package")
    parser.add_argument("--log-writer", help="a built results_report_log_writer, which writes the log to report on")
    args = parser.parse_args()
    if bool(args.results_tool) != bool(args.log_writer):
        parser.error("--results-tool and --log-writer go together")
    if args.work:
        shutil.rmtree(args.work, ignore_errors=True)
        args.work.mkdir(parents=True)
        return check(args.work.resolve(), args.results_tool, args.log_writer)
    with tempfile.TemporaryDirectory(prefix="hpcreward-wheel-") as work:
        return check(pathlib.Path(work), args.results_tool, args.log_writer)


if __name__ == "__main__":
    sys.exit(main())
