#include "calc/machine_report.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "core/measurement_key.h"

namespace labcheck::calc {

using nlohmann::json;

Result<MachineReport> ParseMachineReport(const std::string& text, const std::string& path) {
  const json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!root.is_object()) return Status::Error(fmt::format("{}: not a JSON report", path));
  MachineReport report;
  report.path = path;
  if (root.contains("meta") && root["meta"].is_object()) report.finished_at = root["meta"].value("finished_at", "");
  std::map<int, double> matmul, memory;
  const json checks = root.value("checks", json::array());
  for (const json& check : checks) {
    if (!check.is_object()) continue;
    for (const json& m : check.value("measurements", json::array())) {
      if (!m.is_object() || !m.contains("key") || !m["key"].is_string() || !m.contains("value") || !m["value"].is_number()) continue;
      const std::string key = m["key"];
      const double value = m["value"];
      const std::optional<measurement_key::GpuFigure> gpu = measurement_key::Parse(key);
      if (key == "smoke.llama.train_tflops") report.train_tflops = value;
      else if (key == "nccl.allreduce_busbw_gbps") report.allreduce_busbw_gbps = value;
      else if (gpu && gpu->figure == "matmul_bf16_tflops") matmul[gpu->gpu] = value;
      else if (gpu && gpu->figure == "memory_total_gib") memory[gpu->gpu] = value;
    }
    if (check.value("id", "") == "env.python" && check.contains("data") && check["data"].is_object() &&
        check["data"].contains(probes::kUnresponsiveKey))
      report.interpreter_unresponsive = probes::Unresponsive::FromJson(check["data"][probes::kUnresponsiveKey]);
    if (check.value("id", "") == "env.system" && check.contains("data") && check["data"].is_object()) {
      const json memory = check["data"].value("memory", json::object());
      if (memory.is_object() && memory.contains("total_gib") && memory["total_gib"].is_number()) report.ram_total_gib = memory["total_gib"].get<double>();
    }
    if (check.value("id", "") == "gpu.inventory" && check.contains("data") && check["data"].is_object()) {
      for (const json& gpu : check["data"].value("gpus", json::array())) {
        if (!gpu.is_object()) continue;
        report.gpus.push_back({gpu.value("name", ""), gpu.value("memory_total_gib", 0.0)});
      }
    }
  }
  for (const auto& [index, value] : matmul) report.matmul_bf16_tflops.push_back(value);
  if (report.gpus.empty()) {
    for (const auto& [index, value] : memory) report.gpus.push_back({fmt::format("GPU {}", index), value});
  }
  return report;
}

Result<MachineReport> ReadMachineReport(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error(fmt::format("no report at {}", path));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseMachineReport(text.str(), path);
}

}  // namespace labcheck::calc
