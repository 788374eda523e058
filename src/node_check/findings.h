// The three families of findings JudgeNode collects, one file each: the inventory (count, model,
// memory, driver, NVLink), gpu.health's facts (ECC, remapping, XID, PCIe replays and link,
// persistence, power, other processes, MIG), and the short benchmarks (catalog band, spread).
#pragma once
#include <vector>

#include <nlohmann/json.hpp>

#include "node_check/node_verdict.h"
#include "reference/gpu_catalog.h"

namespace labcheck::node_check {

// The catalog's entry for each card of the inventory (nullptr when the catalog lacks it).
std::vector<const reference::GpuSpec*> CatalogSpecs(const nlohmann::json& inventory);

void AddInventoryFindings(const nlohmann::json& inventory, const std::vector<const reference::GpuSpec*>& specs,
                          const NodeExpectations& expect, std::vector<Finding>& out);
void AddHealthFindings(const nlohmann::json& health, const std::vector<const reference::GpuSpec*>& specs,
                       const NodeExpectations& expect, std::vector<Finding>& out);
// Also fills each card's figures into `gpus` ({index, matmul_tflops, copy_gbps, …}).
void AddPerformanceFindings(const nlohmann::json& matmul, const nlohmann::json& copy,
                            const std::vector<const reference::GpuSpec*>& specs, const NodeExpectations& expect,
                            std::vector<Finding>& out, nlohmann::json& gpus);

}  // namespace labcheck::node_check
