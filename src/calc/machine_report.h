// The figures the calculators take from the last lab_check report (journal/lab-report.json,
// docs/report-schema.md), read tolerantly: whatever is missing stays unset.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "probes/unresponsive.h"

namespace labcheck::calc {

struct ReportGpu {
  std::string name;
  double memory_total_gib = 0;
};

struct MachineReport {
  std::string path;
  std::string finished_at;
  std::optional<double> train_tflops;            // smoke.llama.train_tflops
  std::vector<double> matmul_bf16_tflops;        // gpu{i}.matmul_bf16_tflops, by index
  std::optional<double> allreduce_busbw_gbps;    // nccl.allreduce_busbw_gbps
  std::vector<ReportGpu> gpus;                   // gpu.inventory data, else gpu{i}.memory_total_gib
  std::optional<double> ram_total_gib;           // env.system data memory.total_gib (/proc/meminfo MemTotal)
  // That run's interpreter did not answer (env.python's data): why no smoke figure was measured.
  std::optional<probes::Unresponsive> interpreter_unresponsive;
};

// NotFound and unreadable files are errors; a readable report with none of the figures is not.
Result<MachineReport> ReadMachineReport(const std::string& path);
Result<MachineReport> ParseMachineReport(const std::string& json_text, const std::string& path);

}  // namespace labcheck::calc
