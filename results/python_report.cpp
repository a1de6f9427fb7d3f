#include "results/python_report.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

// Set by results/CMakeLists.txt: the interpreter cmake found and the package's folder in
// this source tree (the build runs from its source tree, as train_bridge/bin's tools do).
#ifndef HPCREWARD_REPORT_PYTHON
#error "HPCREWARD_REPORT_PYTHON must name the python3 interpreter"
#endif
#ifndef HPCREWARD_PYTHON_PACKAGES
#error "HPCREWARD_PYTHON_PACKAGES must name train_bridge/python"
#endif

namespace hpcreward {

std::string exec_python_report(const std::vector<std::string> &args) {
  const char *chosen = std::getenv("HPCREWARD_PYTHON");
  const std::string python = chosen && *chosen ? chosen : HPCREWARD_REPORT_PYTHON;
  const char *inherited = std::getenv("PYTHONPATH");
  std::string path = HPCREWARD_PYTHON_PACKAGES;
  if (inherited && *inherited) path += std::string(":") + inherited;
  ::setenv("PYTHONPATH", path.c_str(), 1);

  std::vector<std::string> words = {python, "-m", "hpcreward.report"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  return "cannot run " + python + " (" + std::strerror(errno) +
         "): plot, report and watch need python3 with h5py, numpy, matplotlib and pygments "
         "(jobs/install-deps.sh); set HPCREWARD_PYTHON to choose another interpreter";
}

}  // namespace hpcreward
