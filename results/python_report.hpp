#pragma once
// `hpcreward-results plot|report|watch` are drawn by the Python package hpcreward_report
// (results/python/hpcreward_report): Matplotlib and Pygments do the drawing and the
// highlighting, h5py reads the log's records. What this tool computes, the summary and the
// writer's state, the package takes from `summary --json` rather than computing it again.
// This runs it in place of the tool.
#include <string>
#include <vector>

namespace hpcreward {

// Replaces this process with `PYTHON -m hpcreward_report ARGS...`, the package taken from this
// source tree's results/python (put first on PYTHONPATH), and HPCREWARD_RESULTS set to this
// tool, so the package asks the same build for the summary. PYTHON is $HPCREWARD_PYTHON if
// set, else the python3 this build found. Returns only if it could not start it, with a
// message saying why and what to do.
std::string exec_python_report(const std::vector<std::string> &args);

}  // namespace hpcreward
