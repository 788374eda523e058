#include "core/gpu_rows.h"

namespace labcheck {

namespace {

bool SameCells(const GpuRow& a, const GpuRow& b) {
  if (a.cells.size() != b.cells.size()) return false;
  for (size_t i = 0; i < a.cells.size(); ++i)
    if (a.cells[i].ru != b.cells[i].ru || a.cells[i].en != b.cells[i].en) return false;
  return true;
}

}  // namespace

Text GpuListText(const std::vector<int>& gpus, int gpu_count) {
  if (gpu_count > 1 && static_cast<int>(gpus.size()) == gpu_count) return T("все", "all");
  std::string out;
  for (size_t i = 0; i < gpus.size();) {
    size_t j = i;
    while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(gpus[i]);
    if (j >= i + 2) out += "–" + std::to_string(gpus[j]);
    else if (j == i + 1) out += ", " + std::to_string(gpus[j]);
    i = j + 1;
  }
  return Text(out);
}

void AddRowsMergedByGpu(const std::vector<GpuRow>& rows, int gpu_count, size_t gpu_column, Table& table) {
  std::vector<bool> used(rows.size(), false);
  auto emit = [&](const GpuRow& row, Text gpus) {
    std::vector<Text> cells = row.cells;
    cells.insert(cells.begin() + static_cast<std::ptrdiff_t>(std::min(gpu_column, cells.size())), std::move(gpus));
    table.AddRow(std::move(cells));
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    if (used[i]) continue;
    // Every variant of this item, next to each other, in the order the GPUs first show them.
    for (size_t k = i; k < rows.size(); ++k) {
      if (used[k] || rows[k].item != rows[i].item) continue;
      used[k] = true;
      if (!rows[k].gpu) {
        emit(rows[k], Text("—"));
        continue;
      }
      std::vector<int> gpus = {*rows[k].gpu};
      for (size_t j = k + 1; j < rows.size(); ++j) {
        if (used[j] || !rows[j].gpu || rows[j].item != rows[k].item || !SameCells(rows[k], rows[j])) continue;
        used[j] = true;
        gpus.push_back(*rows[j].gpu);
      }
      emit(rows[k], GpuListText(gpus, gpu_count));
    }
  }
}

}  // namespace labcheck
