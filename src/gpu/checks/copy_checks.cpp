// gpu.host_device_copy: host↔device copy figures per GPU, from a host buffer on the GPU's own NUMA
// node, and the seed's PCIe rule (≈ half the link: PCIe 3.0 or x8). gpu.memory_bandwidth is in
// memory_check.cpp.
#include <algorithm>

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

// The four copies the child measures, in the table's order.
struct Variant {
  const char* key;
  Text label;
};
const std::vector<Variant>& Variants() {
  static const std::vector<Variant> variants = {{"h2d_pinned", T("CPU→GPU, pinned", "CPU→GPU, pinned")},
                                                {"d2h_pinned", T("GPU→CPU, pinned", "GPU→CPU, pinned")},
                                                {"h2d_pageable", T("CPU→GPU, обычная", "CPU→GPU, pageable")},
                                                {"d2h_pageable", T("GPU→CPU, обычная", "GPU→CPU, pageable")}};
  return variants;
}

Table CopyTable(const nlohmann::json& payload) {
  Table table{T("Копирование CPU↔GPU, ГБ/с", "CPU↔GPU copies, GB/s"), {"GPU"}, {}, {PayloadMethod(payload)}};
  for (const Variant& v : Variants()) table.columns.push_back(v.label);
  table.columns.push_back(T("Предел PCIe", "PCIe limit"));
  table.columns.push_back(T("Узел NUMA (CPU)", "NUMA node (CPUs)"));
  return table;
}

// What the rows leave for the summary and the notes under the table.
struct CopyTally {
  std::vector<double> h2d;
  std::vector<int> unsampled;  // GPUs whose pinned H2D got no NVML sample while it ran
};

// The pinned CPU→GPU copy of GPU `i` against its PCIe link: the link's limit as the reference,
// WARN (the first one found) when the seed's PCIe rule says the link is slow.
void JudgePinnedUpload(const CheckContext& context, int i, double gbps, const nlohmann::json& figure, Measurement& m,
                       CheckResult& result, CopyTally& tally) {
  tally.h2d.push_back(gbps);
  const auto [max_gen, max_width] = MaxLink(context, i);
  const double limit = reference::PcieLimitGbps(max_gen, max_width);
  if (limit > 0) {
    m.reference = limit;
    m.reference_label = Text(fmt::format("PCIe {}.0 x{}", max_gen, max_width));
  }
  // The link "under load" only from samples taken while the copies ran (bench/nvml_sampler.h).
  const nlohmann::json nvml = figure.value("nvml", nlohmann::json::object());
  const bool sampled = nvml.value("samples", 0) > 0;
  if (!sampled && nvml.contains("samples")) tally.unsampled.push_back(i);
  PcieAssessment assessed = AssessPcie(gbps, max_gen, max_width,
                                       sampled ? OptionalInt(nvml.value("pcie_gen_under_load", nlohmann::json())) : std::nullopt,
                                       sampled ? OptionalInt(nvml.value("pcie_width_under_load", nlohmann::json())) : std::nullopt);
  if (assessed.slow && result.outcome == Outcome::Pass) {
    result.outcome = Outcome::Warn;
    result.reason = T(fmt::format("GPU{}: ", i) + assessed.finding.ru, fmt::format("GPU{}: ", i) + assessed.finding.en);
    result.hint = assessed.hint;
  }
}

// One copy's cell of GPU `i`, and its measurement when it has a figure.
Text VariantCell(const CheckContext& context, int i, const Variant& v, const nlohmann::json& figure, CheckResult& result,
                 CopyTally& tally) {
  if (figure.is_null() || figure.contains("error")) return Text(figure.is_null() ? "—" : "error");
  const double gbps = figure.value("gbps", 0.0);
  Measurement& m = result.Add({fmt::format("gpu{}.{}_gbps", i, v.key), T(fmt::format("GPU{}: ", i) + v.label.ru, fmt::format("GPU{}: ", i) + v.label.en),
                               gbps, "GB/s",
                               T(fmt::format("{} МиБ за копию, скопированные байты, события CUDA, медиана", figure.value("bytes", 0ull) >> 20),
                                 fmt::format("{} MiB per copy, bytes copied, CUDA events, median", figure.value("bytes", 0ull) >> 20))});
  m.spread = TimingSpread(gbps, figure);
  if (std::string(v.key) == "h2d_pinned") JudgePinnedUpload(context, i, gbps, figure, m, result, tally);
  return Text(Figure(gbps));
}

// Where this GPU's host buffers were made and its copies ran (bench/numa_placement.h); a note
// when the thread could not be pinned there.
Text NumaCell(int i, const nlohmann::json& numa, Table& table) {
  const std::string node = numa.contains("node") && numa["node"].is_number() ? std::to_string(numa["node"].get<int>()) : "?";
  const std::string cpus = numa.value("cpus", std::string());
  if (numa.contains("note"))
    table.notes.push_back(T(fmt::format("GPU{}: поток не закреплён за узлом NUMA карты ({}): буфер мог оказаться в памяти "
                                        "другого процессора", i, numa["note"].get<std::string>()),
                            fmt::format("GPU{}: the thread was not pinned to the GPU's NUMA node ({}): the buffer may sit "
                                        "in the other socket's memory", i, numa["note"].get<std::string>())));
  return numa.value("pinned", false) ? Text(node + " (" + cpus + ")") : Text("—");
}

void AddGpuRow(const CheckContext& context, const nlohmann::json& g, CheckResult& result, Table& table, CopyTally& tally) {
  const int i = g.value("index", 0);
  std::vector<Text> row = {Text(std::to_string(i))};
  for (const Variant& v : Variants()) row.push_back(VariantCell(context, i, v, g.value(v.key, nlohmann::json()), result, tally));
  const auto [max_gen, max_width] = MaxLink(context, i);
  const double limit = reference::PcieLimitGbps(max_gen, max_width);
  row.push_back(Text(limit > 0 ? Figure(limit) : "—"));
  row.push_back(NumaCell(i, g.value("numa", nlohmann::json::object()), table));
  table.AddRow(row);
}

CheckResult RunHostDeviceCopyCheck(CheckContext& context) {
  GpuJobReply reply = RunGpuJobFor(context, kHostDeviceCopyCheck, "CPU↔GPU");
  if (reply.ending) return *reply.ending;
  const nlohmann::json& j = reply.payload;
  CheckResult result;
  result.outcome = Outcome::Pass;
  Table table = CopyTable(j);
  CopyTally tally;
  for (const nlohmann::json& g : j["gpus"]) AddGpuRow(context, g, result, table, tally);
  for (int i : tally.unsampled)
    table.notes.push_back(T(fmt::format("GPU{}: NVML не успело снять ни одного замера во время копирования: связь PCIe под "
                                        "нагрузкой не оценена, судим только по скорости", i),
                            fmt::format("GPU{}: NVML took no sample while the copies ran: the PCIe link under load is not "
                                        "judged, only the speed is", i)));
  result.tables.push_back(table);
  result.data["gpus"] = j["gpus"];
  if (j.contains("concurrent")) result.data["concurrent"] = j["concurrent"];
  if (!tally.h2d.empty())
    result.summary = Text(fmt::format("CPU→GPU pinned {} GB/s", Figure(*std::max_element(tally.h2d.begin(), tally.h2d.end()))));
  return result;
}

}  // namespace

const GpuCheckSpec kHostDeviceCopyCheck = {
    .id = "gpu.host_device_copy",
    .section = "gpu",
    .title = T("Копирование CPU↔GPU", "CPU↔GPU copies"),
    .quick = QuickMode::Shortened,
    .budget_s = 180,
    .job = kHostCopyJob,
    .job_fn = HostCopyJob,
    .run = RunHostDeviceCopyCheck,
    .reads = {&kInventoryCheck},
};

}  // namespace labcheck::gpu
