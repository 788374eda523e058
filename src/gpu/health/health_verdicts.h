// gpu.health's verdicts: one line per GPU and item, PASS / WARN / FAIL with a hint, or n/a with why
// (a field the driver does not support is never a failure). A pure function of the facts the child
// job collected (health_facts.h plus the load window: pcie_replay_growth, pcie_*_under_load,
// xid_during_run, xid_kernel_log), so every verdict is testable with hand-written JSON.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check_result.h"

namespace labcheck::gpu::health {

struct HealthLine {
  int gpu = 0;
  std::string item;  // stable key: "ecc_uncorrected", "remapped_rows", "pcie_replay"...
  Text label;
  Outcome status = Outcome::Pass;
  bool na = false;   // not available: `value` says why; status stays Pass
  Text value;
  Text hint;
  std::string code = {};  // node-check's finding code for the same fact ("LC204"; health_line_codes.h), when not PASS
};

// `pci_bus_id`: the card's, for the nvidia-smi hints (nvidia-smi -i takes the bus id, never the
// CUDA ordinal: core/gpu_label.h).
std::vector<HealthLine> JudgeGpu(int index, const nlohmann::json& facts, const std::string& pci_bus_id = "");

// The check's result from the job's payload ({"gpus": [{index, name, facts}]}, "xid_kernel_log"
// read once for all GPUs: an array or {"na"}).
CheckResult JudgeHealth(const nlohmann::json& payload);

// XIDs that mean the card or its memory failed, not the program (NVIDIA's Xid catalog).
bool IsHardwareXid(int xid);

}  // namespace labcheck::gpu::health
