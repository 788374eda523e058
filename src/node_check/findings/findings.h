// The families of findings JudgeNode collects, one file each: the inventory (count, model,
// memory, driver, NVLink), gpu.health's facts (ECC, remapping, PCIe replays and link, persistence,
// power, other processes, MIG), the XIDs by NVIDIA's catalog, and the short benchmarks (catalog
// band, spread).
#pragma once
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "node_check/verdict/node_verdict.h"
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
// When CUDA did not start: the driver's state (the envelope's "driver_state") when it is a finding
// of its own (module not loaded, library and module versions differ, no driver with GPUs on the
// bus where `whole_node`); false when it leaves cuInit's verdict (driver_state_findings.cpp).
bool AddDriverStateFindings(const nlohmann::json& driver_state, bool whole_node, std::vector<Finding>& out);
// The GPUs sysfs lists on the PCI bus (pci_bus_scan.h) that the inventory lacks (bus_findings.cpp),
// but for those `named` already (AddFellOffBusFindings).
void AddBusFindings(const nlohmann::json& bus, const nlohmann::json& inventory, std::vector<Finding>& out,
                    const std::set<std::string>& named = {});
// Cards that fell off the bus (XID 79 and the driver's other words for it) or that the driver could
// not initialise, one finding per card with the bus scan's evidence beside the kernel log's
// (fell_off_bus_findings.cpp); returns the canonical bus ids it named.
std::set<std::string> AddFellOffBusFindings(const nlohmann::json& health, const nlohmann::json& inventory,
                                            const nlohmann::json& bus, const NodeExpectations& expect, std::vector<Finding>& out);
// The driver's messages that are neither XIDs nor about one card, such as NVLink setup that failed
// (health's "driver_kernel_log"; driver_message_findings.cpp).
void AddDriverMessageFindings(const nlohmann::json& health, std::vector<Finding>& out);
// The driver's recovery action of one card's facts, when it asks for one (recovery_action_findings.cpp).
void AddRecoveryActionFindings(int gpu, const nlohmann::json& facts, std::vector<Finding>& out);
// The InfiniBand/RoCE ports (scan/network_ports.h) with their roles (scan/network_roles.h), and the
// NVIDIA network cards on the bus without an RDMA device, when --expect-ib, --expect-roce or
// --ib-devices ask for them (network_port_findings.cpp).
bool NetworkPortsJudged(const NodeExpectations& expect);
void AddNetworkPortFindings(const nlohmann::json& ports, const nlohmann::json& cards_without_rdma, const NodeExpectations& expect,
                            std::vector<Finding>& out);
// Each port against its own role: compute rails strictly, storage/in-band cards against their
// peers (network_port_judging.cpp).
void JudgeNetworkPortsByRole(const nlohmann::json& ports, std::vector<Finding>& out);
// Fatal NVSwitch SXids of the kernel log (health's "sxid_kernel_log"; nvswitch_sxid_findings.cpp).
void AddSxidFindings(const nlohmann::json& sxids, std::vector<Finding>& out);
// NVLink error counters that grew during the check, per card and link (nvlink_error_findings.cpp).
void AddNvLinkErrorFindings(const nlohmann::json& inventory, std::vector<Finding>& out);
// Cards whose correctable ECC errors are over --ecc-corrected-warn: findings of severity monitor,
// which never fail the node (correctable_error_warnings.cpp).
std::vector<Finding> CorrectableErrorWarnings(const nlohmann::json& health, const NodeExpectations& expect);
// NVLink error totals since the driver loaded over --nvlink-errors-warn: monitor findings (nvlink_error_findings.cpp).
std::vector<Finding> NvLinkErrorWarnings(const nlohmann::json& inventory, const NodeExpectations& expect);
// node-check --memtest: the memory test's log in `memtest` ({"seconds", "log", "error"?}), its
// findings, and each card's figures into `gpus` (memtest_findings.cpp). Nothing without the option.
void AddMemtestFindings(const nlohmann::json& memtest, std::vector<Finding>& out, nlohmann::json& gpus);
// Also fills each card's figures into `gpus` ({index, matmul_tflops, copy_gbps, …}).
void AddPerformanceFindings(const nlohmann::json& matmul, const nlohmann::json& copy,
                            const std::vector<const reference::GpuSpec*>& specs, const NodeExpectations& expect,
                            std::vector<Finding>& out, nlohmann::json& gpus);

}  // namespace labcheck::node_check
