// Table rows that differ only by GPU, merged: on a box of eight identical cards a per-GPU table
// says each thing once ("all"), and a card that differs stands out on a row of its own, right
// below the others' row for the same item. The JSON of a check keeps every GPU's line; this is
// only how the table reads.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/table.h"

namespace labcheck {

struct GpuRow {
  std::string item;          // rows of one item stay together (a rule, a health field)
  std::optional<int> gpu;    // nullopt: not about one GPU (printed "—", never merged)
  std::vector<Text> cells;   // every column but the GPU's
};

// "все"/"all" when the list is every one of `gpu_count` GPUs (more than one), else "0, 2", "1–3".
Text GpuListText(const std::vector<int>& gpus, int gpu_count);

// Adds the merged rows to `table`, the GPU list in column `gpu_column`.
void AddRowsMergedByGpu(const std::vector<GpuRow>& rows, int gpu_count, size_t gpu_column, Table& table);

}  // namespace labcheck
