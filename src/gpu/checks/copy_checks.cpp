// gpu.memory_bandwidth and gpu.host_device_copy: copy figures per GPU, the spread between cards
// when all copy at once, and the seed's PCIe rule (≈ half the link: PCIe 3.0 or x8).
#include <fmt/format.h>

#include "gpu/bench/stats.h"
#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "gpu/pcie.h"
#include "reference/pcie_link.h"

namespace labcheck::gpu {

namespace {

constexpr double kSpreadWarn = 0.10;

std::vector<double> ConcurrentFigures(const nlohmann::json& list) {
  std::vector<double> values;
  if (!list.is_array()) return values;
  for (const nlohmann::json& g : list)
    if (g.contains("gbps")) values.push_back(g["gbps"].get<double>());
  return values;
}

std::optional<int> OptionalInt(const nlohmann::json& value) {
  return value.is_number() ? std::optional<int>(value.get<int>()) : std::nullopt;
}

// The PCIe generation and width the GPU and its slot can do, from gpu.inventory; {0, 0} unknown.
std::pair<int, int> MaxLink(const CheckContext& context, int index) {
  const nlohmann::json* gpu = InventoryGpu(context, index);
  if (gpu == nullptr) return {0, 0};
  return {OptionalInt(gpu->value("pcie_gen_max", nlohmann::json())).value_or(0),
          OptionalInt(gpu->value("pcie_width_max", nlohmann::json())).value_or(0)};
}

}  // namespace

CheckResult RunMemoryBandwidthCheck(CheckContext& context) {
  constexpr const char* kId = "gpu.memory_bandwidth";
  GpuJobReply reply = RunGpuJobFor(context, kId, kMemoryJob, "cuMemcpyDtoD");
  if (reply.ending) return *reply.ending;
  const nlohmann::json& j = reply.payload;
  CheckResult result;
  result.outcome = Outcome::Pass;
  Table table{T("Память GPU: копирование внутри карты, ГБ/с", "GPU memory: copy within the card, GB/s"),
              {"GPU", T("Отдельно", "Alone"), T("Все сразу", "All at once"), T("Буфер, МиБ", "Buffer, MiB")},
              {},
              {Text(j.value("method", std::string()))}};
  std::vector<double> alone;
  std::vector<double> together = ConcurrentFigures(j.value("concurrent", nlohmann::json()));
  for (const nlohmann::json& g : j["gpus"]) {
    const int i = g.value("index", 0);
    if (g.contains("error")) {
      table.AddRow({Text(std::to_string(i)), T("ошибка", "error"), Text("—"), Text("—")});
      result.outcome = Outcome::Warn;
      result.reason = T("замер не удался на GPU" + std::to_string(i), "the measurement failed on GPU" + std::to_string(i));
      result.error = g["error"].get<std::string>();
      continue;
    }
    const double gbps = g.value("gbps", 0.0);
    alone.push_back(gbps);
    result.Add({fmt::format("gpu{}.memory_copy_gbps", i), T(fmt::format("GPU{}: память", i), fmt::format("GPU{}: memory", i)),
                gbps, "GB/s",
                Text(fmt::format("device-to-device copy of {} MiB, bytes read + bytes written, median of {}",
                                 g.value("bytes", 0ull) >> 20, g.value("repeats", 0)))});
    result.measurements.back().spread = TimingSpread(gbps, g);
    const std::string concurrent = static_cast<size_t>(i) < together.size() ? Figure(together[i]) : "—";
    table.AddRow({Text(std::to_string(i)), Text(Figure(gbps)), Text(concurrent), Text(std::to_string(g.value("bytes", 0ull) >> 20))});
  }
  result.tables.push_back(table);
  result.data["gpus"] = j["gpus"];
  result.data["spread"] = {{"alone", SpreadFraction(alone)}, {"together", SpreadFraction(together)}};
  if (!alone.empty())
    result.summary = Text(fmt::format("{} GB/s", Figure(*std::max_element(alone.begin(), alone.end()))));
  if (result.outcome == Outcome::Pass && std::max(SpreadFraction(alone), SpreadFraction(together)) > kSpreadWarn) {
    result.outcome = Outcome::Warn;
    result.reason = T("память карт различается больше чем на 10%", "the cards' memory bandwidth differs by more than 10%");
  }
  return result;
}

CheckResult RunHostDeviceCopyCheck(CheckContext& context) {
  constexpr const char* kId = "gpu.host_device_copy";
  GpuJobReply reply = RunGpuJobFor(context, kId, kHostCopyJob, "CPU↔GPU");
  if (reply.ending) return *reply.ending;
  const nlohmann::json& j = reply.payload;
  CheckResult result;
  result.outcome = Outcome::Pass;
  struct Variant {
    const char* key;
    Text label;
  };
  const std::vector<Variant> variants = {{"h2d_pinned", T("CPU→GPU, pinned", "CPU→GPU, pinned")},
                                         {"d2h_pinned", T("GPU→CPU, pinned", "GPU→CPU, pinned")},
                                         {"h2d_pageable", T("CPU→GPU, обычная", "CPU→GPU, pageable")},
                                         {"d2h_pageable", T("GPU→CPU, обычная", "GPU→CPU, pageable")}};
  Table table{T("Копирование CPU↔GPU, ГБ/с", "CPU↔GPU copies, GB/s"), {"GPU"}, {}, {Text(j.value("method", std::string()))}};
  for (const Variant& v : variants) table.columns.push_back(v.label);
  table.columns.push_back(T("Предел PCIe", "PCIe limit"));
  std::vector<double> h2d;
  for (const nlohmann::json& g : j["gpus"]) {
    const int i = g.value("index", 0);
    std::vector<Text> row = {Text(std::to_string(i))};
    for (const Variant& v : variants) {
      const nlohmann::json figure = g.value(v.key, nlohmann::json());
      if (figure.is_null() || figure.contains("error")) {
        row.push_back(Text(figure.is_null() ? "—" : "error"));
        continue;
      }
      const double gbps = figure.value("gbps", 0.0);
      Measurement& m = result.Add({fmt::format("gpu{}.{}_gbps", i, v.key), T(fmt::format("GPU{}: ", i) + v.label.ru, fmt::format("GPU{}: ", i) + v.label.en),
                                   gbps, "GB/s", Text("256 MiB per copy, bytes copied, median")});
      m.spread = TimingSpread(gbps, figure);
      row.push_back(Text(Figure(gbps)));
      if (std::string(v.key) != "h2d_pinned") continue;
      h2d.push_back(gbps);
      const auto [max_gen, max_width] = MaxLink(context, i);
      const double limit = reference::PcieLimitGbps(max_gen, max_width);
      if (limit > 0) {
        m.reference = limit;
        m.reference_label = Text(fmt::format("PCIe {}.0 x{}", max_gen, max_width));
      }
      PcieAssessment assessed = AssessPcie(gbps, max_gen, max_width, OptionalInt(figure["nvml"]["pcie_gen_under_load"]),
                                           OptionalInt(figure["nvml"]["pcie_width_under_load"]));
      if (assessed.slow && result.outcome == Outcome::Pass) {
        result.outcome = Outcome::Warn;
        result.reason = T(fmt::format("GPU{}: ", i) + assessed.finding.ru, fmt::format("GPU{}: ", i) + assessed.finding.en);
        result.hint = assessed.hint;
      }
    }
    const auto [max_gen, max_width] = MaxLink(context, i);
    const double limit = reference::PcieLimitGbps(max_gen, max_width);
    row.push_back(Text(limit > 0 ? Figure(limit) : "—"));
    table.AddRow(row);
  }
  result.tables.push_back(table);
  result.data["gpus"] = j["gpus"];
  if (j.contains("concurrent")) result.data["concurrent"] = j["concurrent"];
  if (!h2d.empty()) result.summary = Text(fmt::format("CPU→GPU pinned {} GB/s", Figure(*std::max_element(h2d.begin(), h2d.end()))));
  return result;
}

}  // namespace labcheck::gpu
