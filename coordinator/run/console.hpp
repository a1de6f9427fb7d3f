#pragma once
// Where the coordinator's lines go: stdout in production (main.cpp gives it a 64 KiB buffer),
// a temporary file in tests. A line is flushed at once; a progress line (one per row) waits
// in the buffer, flushed by the next line, before rank 0 waits for results and before a
// served batch is answered: one write per burst of rows, not one per row.
#include <cstdio>
#include <string>

namespace hpcreward {

class Console {
 public:
  explicit Console(std::FILE *file) : file_(file) {}

  void line(const std::string &text) {
    progress(text);
    flush();
  }
  void progress(const std::string &text) { std::fprintf(file_, "%s\n", text.c_str()); }
  // Lines that end themselves (a table), flushed.
  void text(const std::string &lines) {
    std::fputs(lines.c_str(), file_);
    flush();
  }
  void flush() { std::fflush(file_); }

 private:
  std::FILE *file_;
};

}  // namespace hpcreward
