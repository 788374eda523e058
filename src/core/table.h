// One table model, rendered by several writers (terminal, Markdown, JSON), after hyperfine.
#pragma once
#include <string>
#include <vector>

#include "core/text.h"

namespace labcheck {

struct Table {
  Text title;
  std::vector<Text> columns;
  std::vector<std::vector<Text>> rows;
  // Optional lines printed under the table: how the figures were counted, what N/A means.
  std::vector<Text> notes;

  void AddRow(std::vector<Text> row) { rows.push_back(std::move(row)); }
};

}  // namespace labcheck
