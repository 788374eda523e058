#include "calc/text_table.h"

#include <algorithm>
#include <vector>

namespace labcheck::calc {

size_t DisplayWidth(const std::string& utf8) {
  size_t width = 0;
  for (unsigned char c : utf8) {
    if ((c & 0xC0) != 0x80) ++width;  // count code points, not continuation bytes
  }
  return width;
}

std::string RenderTextTable(const Table& table, Lang lang) {
  std::vector<size_t> widths(table.columns.size(), 0);
  auto measure = [&](const std::vector<Text>& cells) {
    for (size_t i = 0; i < cells.size() && i < widths.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(cells[i].In(lang)));
  };
  measure(table.columns);
  for (const auto& row : table.rows) measure(row);
  auto line = [&](const std::vector<Text>& cells) {
    std::string out;
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string cell = i < cells.size() ? cells[i].In(lang) : "";
      out += cell;
      if (i + 1 < widths.size()) out += std::string(widths[i] - DisplayWidth(cell) + 2, ' ');
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out;
  if (!table.title.empty()) out += table.title.In(lang) + "\n";
  out += line(table.columns);
  size_t total = 0;
  for (size_t w : widths) total += w + 2;
  out += std::string(total > 2 ? total - 2 : 0, '-') + "\n";
  for (const auto& row : table.rows) out += line(row);
  for (const Text& note : table.notes) out += note.In(lang) + "\n";
  return out;
}

}  // namespace labcheck::calc
