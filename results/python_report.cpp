#include "results/python_report.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

// Set by results/CMakeLists.txt: the interpreter cmake found and the folder holding the
// package in this source tree (the build runs from its source tree, as jobs/ does).
#ifndef HPCREWARD_REPORT_PYTHON
#error "HPCREWARD_REPORT_PYTHON must name the python3 interpreter"
#endif
#ifndef HPCREWARD_REPORT_PACKAGE_DIR
#error "HPCREWARD_REPORT_PACKAGE_DIR must name results/python"
#endif

namespace hpcreward {

std::string exec_python_report(const std::vector<std::string> &args) {
  const char *chosen = std::getenv("HPCREWARD_PYTHON");
  const std::string python = chosen && *chosen ? chosen : HPCREWARD_REPORT_PYTHON;
  const char *inherited = std::getenv("PYTHONPATH");
  std::string path = HPCREWARD_REPORT_PACKAGE_DIR;
  if (inherited && *inherited) path += std::string(":") + inherited;
  ::setenv("PYTHONPATH", path.c_str(), 1);
  // This very tool answers the package's `summary --json`, so report and tool always match.
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error)
    return "cannot find this program's own path (/proc/self/exe: " + error.message() +
           "), which the report needs to ask it for the summary";
  ::setenv("HPCREWARD_RESULTS", self.c_str(), 1);

  std::vector<std::string> words = {python, "-m", "hpcreward_report"};
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
