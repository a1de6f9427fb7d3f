#include "results/text_table.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace hpcreward {

namespace {

// Display width, counting UTF-8 code points rather than bytes so that a non-ASCII
// problem or candidate name does not push its row out of line.
std::size_t display_width(const std::string &text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

void append_line(std::string &out, const std::vector<std::string> &cells,
                 const std::vector<TextTable::Column> &columns,
                 const std::vector<std::size_t> &widths) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) line += "  ";
    const std::string padding(widths[i] - display_width(cells[i]), ' ');
    const bool last = i + 1 == cells.size();
    if (columns[i].align == TextTable::Align::right)
      line += padding + cells[i];
    else
      line += last ? cells[i] : cells[i] + padding;
  }
  out += line + '\n';
}

}  // namespace

TextTable::TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns_.size())
    throw std::logic_error("TextTable: a row must have one cell per column");
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  std::vector<std::string> headers;
  std::vector<std::size_t> widths;
  for (const Column &column : columns_) {
    headers.push_back(column.header);
    widths.push_back(display_width(column.header));
  }
  for (const auto &row : rows_)
    for (std::size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], display_width(row[i]));

  std::string out;
  append_line(out, headers, columns_, widths);
  for (const auto &row : rows_) append_line(out, row, columns_, widths);
  return out;
}

}  // namespace hpcreward
