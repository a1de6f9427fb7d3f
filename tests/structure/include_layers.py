#!/usr/bin/env python3
"""Fails when a source file includes a header from a higher layer of the tree.

Every top-level folder holding C, C++ or CUDA sources has a layer; a file may include
headers of its own folder and of lower layers only, so every include points one way
(docs/design.md "Top-level layout"). Folders of one layer must not include each other.
A new top-level folder with sources must be given a layer here first.

usage: include_layers.py [--root DIR]   (default: the repository holding this script)
"""
import argparse
import pathlib
import re
import sys

# Lowest first.
LAYERS = {
    "common": 0,
    "c_analysis": 1,   # libclang: parse, arguments, preamble cache, cursor helpers
    "techniques": 2,   # what a technique is, its detection (C, CUDA), its text forms and niche key
    "results": 3,      # the HDF5 log
    "stages": 3,       # the ladder, the constraint decision, the archive (knows nothing of the log)
    "bench_node": 4,   # benchmark ranks
    "prompts": 4,      # prompts from the problem, the stage and the ranks' hardware
    "coordinator": 5,  # rank 0
    "train_bridge": 6,
    "tests": 7,
}
# Inside bench_node/ and coordinator/, the same rule between their folders (their READMEs).
INNER_LAYERS = {
    "bench_node": {
        "process": 0,        # limited children and how they ended
        "sandbox": 0,        # the executors' seccomp filters, capabilities, loading a candidate
        "measure": 1,        # what CPU and GPU measurement share
        "checks": 1,         # the check interface and the compiler boundary
        "source_checks": 2,
        "object_audit": 2,
        "cpu": 2,            # the CPU measurer and executor
        "rank": 3,           # the MPI rank
        "cuda": 4,           # the CUDA checks
        "benchmarks": 4,
        "gpu": 5,            # the GPU measurer, executor and the GPU rank's loop
    },
    "coordinator": {
        "input": 0,          # candidates in: a file's lines, a request's completions, extraction
        "rewards": 0,        # the reward table and modes, the ladder's state and archive
        "ranks": 1,          # the benchmark ranks: scheduling, health, quarantine, transport
        "serving": 1,        # trainers: the HTTP(S) endpoint, the batch registry, the serve loop
        "scoring": 2,        # a scoring run: batches in flight, rows, repeats, the stop's grace
        "run": 3,            # the run's life: options, start, log, serving or a file, the end
    },
}
# The rank's program starts either loop, the CPU one or the GPU one.
INNER_EXCEPTIONS = {"bench_node/rank/bench_main.cpp"}
SOURCE_SUFFIXES = {".c", ".h", ".cpp", ".hpp", ".cu", ".cuh", ".in"}
NOT_SOURCE_FOLDERS = {"cmake", "jobs", "runs"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"/]+)/')


def top_folders(root):
    for path in sorted(root.iterdir()):
        if (path.is_dir() and not path.name.startswith(".") and not path.name.startswith("build")
                and path.name not in NOT_SOURCE_FOLDERS):
            yield path


def sources(folder):
    for path in sorted(folder.rglob("*")):
        # The check's own fixtures break the rule on purpose.
        if (path.suffix in SOURCE_SUFFIXES and path.is_file()
                and "fixtures" not in path.relative_to(folder).parts):
            yield path


def inner_problems(root, top):
    layers = INNER_LAYERS[top]
    include = re.compile(r'^\s*#\s*include\s*"' + top + r'/([^"/]+)/')
    problems = []
    base = root / top
    if not base.is_dir():
        return problems
    for path in sources(base):
        parts = path.relative_to(base).parts
        if len(parts) < 2:
            problems.append(f"{path.relative_to(root)}: sources of {top}/ belong in one of its folders")
            continue
        folder = parts[0]
        if folder not in layers:
            problems.append(f"{top}/{folder}/ holds sources but has no layer: add it to INNER_LAYERS")
            continue
        if str(path.relative_to(root)) in INNER_EXCEPTIONS:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = include.match(line)
            if not match or match.group(1) == folder:
                continue
            target = match.group(1)
            if target not in layers:
                problems.append(f"{path.relative_to(root)}:{number}: includes {top}/{target}/, which has no layer")
            elif layers[target] >= layers[folder]:
                problems.append(
                    f"{path.relative_to(root)}:{number}: {top}/{folder}/ (layer {layers[folder]}) "
                    f"includes {top}/{target}/ (layer {layers[target]}): move the shared code "
                    "down, or depend through an interface")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2])
    root = parser.parse_args().root.resolve()
    problems = []
    checked = 0
    for folder in top_folders(root):
        files = list(sources(folder))
        if not files:
            continue
        if folder.name not in LAYERS:
            problems.append(f"{folder.name}/ holds sources but has no layer: add it to LAYERS in "
                            f"{pathlib.Path(__file__).name}")
            continue
        for path in files:
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match or not (root / match.group(1)).is_dir():
                    continue  # a header of the same folder, or a system one
                target = match.group(1)
                checked += 1
                if target == folder.name:
                    continue
                if target not in LAYERS:
                    problems.append(f"{path.relative_to(root)}:{number}: includes {target}/, "
                                    "which has no layer")
                elif LAYERS[target] >= LAYERS[folder.name]:
                    problems.append(
                        f"{path.relative_to(root)}:{number}: {folder.name}/ (layer "
                        f"{LAYERS[folder.name]}) includes {target}/ (layer {LAYERS[target]}): "
                        "move the shared code down, or depend through an interface")
    for top in INNER_LAYERS:
        problems += inner_problems(root, top)
    for problem in problems:
        print(problem)
    order = " < ".join(", ".join(sorted(name for name in LAYERS if LAYERS[name] == layer))
                       for layer in sorted(set(LAYERS.values())))
    print(f"{checked} includes across folders checked; layers: {order}; "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
