// The families of findings JudgeNode collects, one file each: the inventory (count, model,
// memory, driver, NVLink), gpu.health's facts (ECC, remapping, PCIe replays and link, persistence,
// power, other processes, MIG), the XIDs by NVIDIA's catalog, and the short benchmarks (catalog
// band, spread).
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
// Also lists every XID, failing or not, in `xids` ({gpu, xid, source, bucket, class, fails, ...}).
void AddHealthFindings(const nlohmann::json& health, const std::vector<const reference::GpuSpec*>& specs,
                       const NodeExpectations& expect, std::vector<Finding>& out, nlohmann::json& xids);
// The XIDs of one card's facts (xid_kernel_log, xid_during_run) by NVIDIA's catalog
// (xid_findings.cpp): one finding for those that keep the node out of service, all of them in `xids`.
void AddXidFindings(int gpu, const nlohmann::json& facts, const NodeExpectations& expect, std::vector<Finding>& out,
                    nlohmann::json& xids);
// Also fills each card's figures into `gpus` ({index, matmul_tflops, copy_gbps, …}).
void AddPerformanceFindings(const nlohmann::json& matmul, const nlohmann::json& copy,
                            const std::vector<const reference::GpuSpec*>& specs, const NodeExpectations& expect,
                            std::vector<Finding>& out, nlohmann::json& gpus);

}  // namespace labcheck::node_check
