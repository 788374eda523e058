// Reports built by hand with plausible measured values, for the analyser's tests: no GPU needed.
#pragma once
#include <string>
#include <vector>

#include "report/report.h"

namespace labcheck::expect::testing {

// Adds (or finds) a check with this outcome.
CheckResult& AddCheck(Report& report, const std::string& id, Outcome outcome, const std::string& reason = "");
// Sets a measurement in the check (added as PASS if missing), replacing one with the same key.
void Measure(Report& report, const std::string& check_id, const std::string& key, double value,
             const std::string& unit = "");
void RemoveMeasurement(Report& report, const std::string& key);

// A machine without GPU: environment, CPU benchmarks, the Llama smoke test on the CPU, GPU SKIPs.
Report CpuOnlyReport();
// The course machine: 4× modified RTX 4080 32 GB, PCIe 4.0 x16, no P2P; every figure in band.
Report CourseMachineReport();
// 8× H100 SXM with NVLink; every figure plausible for it.
Report H100Report();
// 4× A100 80GB PCIe, NVLink bridges 0↔1 and 2↔3 (NV12), two sockets, P2P only over the bridges:
// bridged copies ~265 GB/s, the others through host memory ~20 GB/s, all-reduce 13.5 GB/s.
Report BridgedA100Report();
// gpu.inventory's topology as the inventory job stores it: `matrix[i][j]` ("NV12", "SYS", "X").
void SetTopology(Report& report, const std::vector<std::vector<std::string>>& matrix);
// gpu.inventory's data, to edit the GPUs of a fixture.
nlohmann::json& Inventory(Report& report);
// A GPU inventory entry as gpu.inventory stores it.
nlohmann::json InventoryGpu(int index, const std::string& name, double memory_gib, int cc_major, int cc_minor,
                            int sm_count, int pcie_gen, int pcie_width);

}  // namespace labcheck::expect::testing
