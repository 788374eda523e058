// The GPU-to-GPU link matrix as `nvidia-smi topo -m` prints it: "X" on the diagonal, "NV#" for #
// NVLinks between two GPUs, else the PCIe level of their closest common ancestor (PIX, PXB, PHB,
// NODE, SYS). Pure: the NVML queries that feed it live in the inventory job.
#pragma once
#include <string>
#include <vector>

namespace labcheck::gpu {

// NVML_TOPOLOGY_* value to nvidia-smi's abbreviation; "?" when unknown.
std::string PcieLevelName(int nvml_topology_level);

struct TopologyInput {
  int count = 0;
  std::vector<std::vector<int>> nvlinks;       // [i][j]: active NVLinks from i to j
  std::vector<std::vector<int>> pcie_levels;   // [i][j]: NVML_TOPOLOGY_* or -1 when unknown
};

std::vector<std::vector<std::string>> TopologyMatrix(const TopologyInput& input);

// Whether any pair is linked by NVLink (the interconnect section reads it).
bool AnyNvLink(const TopologyInput& input);

}  // namespace labcheck::gpu
