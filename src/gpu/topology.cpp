#include "gpu/topology.h"

#include "gpu/nvidia/nvml_api.h"

namespace labcheck::gpu {

std::string PcieLevelName(int level) {
  switch (level) {
    case nvml::kTopologyInternal: return "X";  // the same board (dual-GPU cards)
    case nvml::kTopologySingle: return "PIX";
    case nvml::kTopologyMultiple: return "PXB";
    case nvml::kTopologyHostBridge: return "PHB";
    case nvml::kTopologyNode: return "NODE";
    case nvml::kTopologySystem: return "SYS";
    default: return "?";
  }
}

std::vector<std::vector<std::string>> TopologyMatrix(const TopologyInput& input) {
  std::vector<std::vector<std::string>> matrix(input.count, std::vector<std::string>(input.count));
  for (int i = 0; i < input.count; ++i) {
    for (int j = 0; j < input.count; ++j) {
      if (i == j) {
        matrix[i][j] = "X";
      } else if (i < static_cast<int>(input.nvlinks.size()) && j < static_cast<int>(input.nvlinks[i].size()) &&
                 input.nvlinks[i][j] > 0) {
        matrix[i][j] = "NV" + std::to_string(input.nvlinks[i][j]);
      } else if (i < static_cast<int>(input.pcie_levels.size()) && j < static_cast<int>(input.pcie_levels[i].size())) {
        matrix[i][j] = PcieLevelName(input.pcie_levels[i][j]);
      } else {
        matrix[i][j] = "?";
      }
    }
  }
  return matrix;
}

bool AnyNvLink(const TopologyInput& input) {
  for (const auto& row : input.nvlinks)
    for (int links : row)
      if (links > 0) return true;
  return false;
}

}  // namespace labcheck::gpu
