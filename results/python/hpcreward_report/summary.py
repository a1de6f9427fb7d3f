"""The summary of a reward log and the state of its writer, as `hpcreward-results summary --json`
computes them (results/summary.cpp, results/log_file_state.hpp; the document's shape is in
results/summary_json.hpp). They are computed there once; the report and watch only show them.

The tool is $HPCREWARD_RESULTS (hpcreward-results sets it to itself when it runs this package),
else hpcreward-results on PATH.
"""
import json
import os
import shutil
import subprocess

from .errors import LogError

SUMMARY_FORMAT = 1  # kSummaryJsonFormat in results/summary_json.hpp
NOT_READABLE_YET = 3  # the tool's exit status for a log that its live writer is still creating


class NotReadableYet(LogError):
    """A live writer holds the log but has not made it readable yet: ask again in a moment."""


def results_tool():
    """The hpcreward-results to ask; LogError saying how to get one if there is none."""
    chosen = os.environ.get("HPCREWARD_RESULTS")
    if chosen:
        if not (os.path.isfile(chosen) and os.access(chosen, os.X_OK)):
            raise LogError(f"HPCREWARD_RESULTS={chosen} is not an executable file: set it to hpcreward-results "
                           "(build/bin/hpcreward-results of a build) or unset it")
        return chosen
    found = shutil.which("hpcreward-results")
    if found:
        return found
    raise LogError("hpcreward-results not found: the report and watch take the summary and the writer's state from "
                   "it. Build it (in a clone of hpcreward: cmake -S . -B build && cmake --build build) and put "
                   "build/bin on PATH or set HPCREWARD_RESULTS=/path/to/hpcreward-results, or run "
                   "build/bin/hpcreward-results report|watch LOG.h5 instead")


def _tool_message(done):
    text = done.stderr.strip()
    prefix = "hpcreward-results: "
    return (text[len(prefix):] if text.startswith(prefix) else text) or f"exit status {done.returncode}"


def read_summary(path):
    """The document of `hpcreward-results summary --json PATH` as a dict. NotReadableYet while a
    live writer is still creating the log; LogError with the tool's message otherwise."""
    tool = results_tool()
    # Without HDF5's file lock, as log.py reads: looking at a log never stops a writer resuming it.
    env = dict(os.environ, HDF5_USE_FILE_LOCKING="FALSE")
    try:
        done = subprocess.run([tool, "summary", "--json", str(path)], capture_output=True, text=True, env=env)
    except OSError as error:
        raise LogError(f"cannot run {tool}: {error.strerror or error}") from None
    if done.returncode == NOT_READABLE_YET:
        raise NotReadableYet(_tool_message(done))
    if done.returncode != 0:
        raise LogError(_tool_message(done))
    try:
        summary = json.loads(done.stdout)
    except ValueError:
        raise LogError(f"`{tool} summary --json` printed no JSON document: is {tool} hpcreward-results?") from None
    if not isinstance(summary, dict) or summary.get("format") != SUMMARY_FORMAT:
        found = summary.get("format") if isinstance(summary, dict) else None
        raise LogError(f"{tool} gives summary format {found}, this report reads format {SUMMARY_FORMAT}: use "
                       "hpcreward-results and hpcreward_report of the same checkout")
    return summary
