// Reports built by hand with plausible measured values, for the analyser's tests: no GPU needed.
#pragma once
#include <string>

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
// gpu.inventory's data, to edit the GPUs of a fixture.
nlohmann::json& Inventory(Report& report);
// A GPU inventory entry as gpu.inventory stores it.
nlohmann::json InventoryGpu(int index, const std::string& name, double memory_gib, int cc_major, int cc_minor,
                            int sm_count, int pcie_gen, int pcie_width);

}  // namespace labcheck::expect::testing
