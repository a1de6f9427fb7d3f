#pragma once
// `hpcreward-results plot|report|watch` are drawn by the Python package hpcreward.report
// (train_bridge/python/hpcreward/report): Matplotlib and Pygments do the drawing and the
// highlighting, h5py reads the log. This runs it in place of the tool.
#include <string>
#include <vector>

namespace hpcreward {

// Replaces this process with `PYTHON -m hpcreward.report ARGS...`, the package found first on
// PYTHONPATH. PYTHON is $HPCREWARD_PYTHON if set, else the python3 this build found. Returns
// only if it could not start it, with a message saying why and what to do.
std::string exec_python_report(const std::vector<std::string> &args);

}  // namespace hpcreward
