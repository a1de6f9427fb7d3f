#!/usr/bin/env python3
"""Builds the hpcreward wheel from train_bridge/python, installs it into a fresh venv and uses it.

No network: the wheel is built with `pip wheel --no-deps --no-build-isolation` (the build
backend is this Python's setuptools: Debian's python3-setuptools and python3-wheel), and installed
with `pip install --no-index --no-deps` into a venv made by this Python (Debian's python3-venv).
The sources are copied to a temporary folder first, so the build leaves nothing in the checkout.

    package_wheel.py [--work DIR]      (ctest -R python_package_wheel)

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
SOURCE = REPO / "train_bridge" / "python"
SKIP = 77

# What a trainer imports, and the adapter files the trainers load by path.
IMPORTS = ["hpcreward", "hpcreward.client", "hpcreward.trl", "hpcreward.verl", "hpcreward.openrlhf_reward",
           "hpcreward.replay", "hpcreward.env_client", "hpcreward.__main__"]
IN_WHEEL = ["hpcreward/__init__.py", "hpcreward/__main__.py", "hpcreward/verl.py", "hpcreward/openrlhf_reward.py",
            "hpcreward/trl.py", "hpcreward/replay.py", "hpcreward/report/__init__.py", "hpcreward/report/__main__.py"]


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


def check(work):
    missing = missing_tools()
    if missing:
        print(f"package_wheel: SKIP: {sys.executable} lacks {', '.join(missing)}; jobs/install-deps.sh installs them")
        return SKIP
    source = work / "src"
    shutil.copytree(SOURCE, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "build", "*.egg-info"))
    dist = work / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", dist, source])
    wheels = sorted(dist.glob("hpcreward-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"package_wheel: expected one hpcreward wheel in {dist}, found {[w.name for w in wheels]}")
    names = set(zipfile.ZipFile(wheels[0]).namelist())
    absent = [name for name in IN_WHEEL if name not in names]
    if absent:
        raise SystemExit(f"package_wheel: {wheels[0].name} lacks {absent}")
    print(f"package_wheel: built {wheels[0].name} ({len(names)} files)")

    venv = work / "venv"
    run([sys.executable, "-m", "venv", venv])
    python = venv / "bin" / "python"
    run([python, "-m", "pip", "install", "-q", "--no-index", "--no-deps", wheels[0]])
    # Outside the checkout, without PYTHONPATH: the installed copy is what gets imported.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    out = run([python, "-c", "import importlib, sys\n"
               f"for name in {IMPORTS!r}: importlib.import_module(name)\n"
               "import hpcreward, hpcreward.verl as v, hpcreward.openrlhf_reward as o\n"
               "print(hpcreward.__file__); print(v.__file__); print(o.__file__)\n"
               "import importlib.metadata as m; print(m.version('hpcreward'))"], cwd=work, env=env)
    site = str(venv)
    for line in out.splitlines()[:3]:
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
    print(f"package_wheel: ok: {wheels[0].name} installed into a fresh venv, imported, python -m hpcreward answers")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=pathlib.Path, help="folder for the build and the venv (emptied first)")
    args = parser.parse_args()
    if args.work:
        shutil.rmtree(args.work, ignore_errors=True)
        args.work.mkdir(parents=True)
        return check(args.work.resolve())
    with tempfile.TemporaryDirectory(prefix="hpcreward-wheel-") as work:
        return check(pathlib.Path(work))


if __name__ == "__main__":
    sys.exit(main())
