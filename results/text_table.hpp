#pragma once
// A plain-text table with aligned columns, for terminal output.
#include <cstddef>
#include <string>
#include <vector>

namespace hpcreward {

class TextTable {
 public:
  enum class Align { left, right };
  struct Column {
    std::string header;
    Align align = Align::left;
  };

  explicit TextTable(std::vector<Column> columns);

  // `cells` has one entry per column.
  void add_row(std::vector<std::string> cells);

  // Header and rows, columns two spaces apart, each line ending in '\n'; the last column is
  // not padded, so lines carry no trailing blanks.
  std::string render() const;

  // What it holds, for other renderings of the same table (HTML, JSON).
  const std::vector<Column> &columns() const { return columns_; }
  const std::vector<std::vector<std::string>> &rows() const { return rows_; }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace hpcreward
