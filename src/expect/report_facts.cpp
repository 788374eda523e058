#include "expect/report_facts.h"

#include <algorithm>

#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck::expect {
namespace {

using nlohmann::json;

template <typename T>
std::optional<T> Optional(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if constexpr (std::is_same_v<T, bool>) {
    if (it->is_boolean()) return it->get<bool>();
    return std::nullopt;
  } else {
    if (it->is_number()) return it->get<T>();
    return std::nullopt;
  }
}

reference::DriverFacts ReadDriverFacts(const json& g) {
  reference::DriverFacts d;
  d.name = DataString(g, "name");
  d.memory_gib = Optional<double>(g, "memory_total_gib").value_or(0);
  d.cc_major = Optional<int>(g, "cc_major").value_or(0);
  d.cc_minor = Optional<int>(g, "cc_minor").value_or(0);
  d.sm_count = Optional<int>(g, "sm_count").value_or(0);
  d.max_sm_clock_mhz = Optional<double>(g, "max_sm_clock_mhz");
  d.max_memory_clock_mhz = Optional<double>(g, "max_memory_clock_mhz");
  d.memory_bus_width_bits = Optional<int>(g, "memory_bus_width_bits");
  d.pcie_gen_max = Optional<int>(g, "pcie_gen_max");
  d.pcie_width_max = Optional<int>(g, "pcie_width_max");
  return d;
}

// gpu.inventory may be missing (interrupted run, no NVML); the per-GPU keys still tell which
// devices were measured.
std::vector<int> IndicesFromKeys(const Report& report) {
  static const std::regex kGpuKey(R"(^gpu(\d+)\.)");
  std::vector<int> indices;
  for (const auto& check : report.checks) {
    for (const auto& m : check.measurements) {
      std::smatch match;
      if (std::regex_search(m.key, match, kGpuKey)) {
        const int i = std::stoi(match[1]);
        if (std::find(indices.begin(), indices.end(), i) == indices.end()) indices.push_back(i);
      }
    }
  }
  std::sort(indices.begin(), indices.end());
  return indices;
}

void ReadClockReasons(const Report& report, std::vector<GpuFacts>& gpus) {
  const CheckResult* matmul = FindCheck(report, "gpu.matmul");
  if (matmul == nullptr || !matmul->data.contains("gpus") || !matmul->data["gpus"].is_array()) return;
  for (const json& g : matmul->data["gpus"]) {
    if (!g.is_object()) continue;
    const int index = Optional<int>(g, "index").value_or(-1);
    auto it = g.find("clock_event_reasons");
    if (it == g.end() || !it->is_array()) continue;
    for (auto& facts : gpus) {
      if (facts.index != index) continue;
      for (const json& r : *it) {
        if (r.is_string()) facts.clock_event_reasons.push_back(r.get<std::string>());
      }
    }
  }
}

// gpu.host_device_copy's data.gpus[].h2d_pinned.nvml: the link NVML read while the copy ran.
void ReadLinksUnderLoad(const Report& report, std::vector<GpuFacts>& gpus) {
  const CheckResult* copies = FindCheck(report, "gpu.host_device_copy");
  if (copies == nullptr || !copies->data.contains("gpus") || !copies->data["gpus"].is_array()) return;
  for (const json& g : copies->data["gpus"]) {
    if (!g.is_object() || !g.contains("h2d_pinned") || !g["h2d_pinned"].is_object()) continue;
    const json nvml = g["h2d_pinned"].value("nvml", json::object());
    if (!nvml.is_object() || nvml.value("samples", 0) <= 0) continue;
    const int index = Optional<int>(g, "index").value_or(-1);
    for (auto& facts : gpus) {
      if (facts.index != index) continue;
      facts.pcie_gen_under_load = Optional<int>(nvml, "pcie_gen_under_load");
      facts.pcie_width_under_load = Optional<int>(nvml, "pcie_width_under_load");
    }
  }
}

// The driver's cards as NVML lists them, where CUDA saw none: identity only (name; NVML's index).
void ReadNvmlOnlyGpus(const Report& report, std::vector<GpuFacts>& gpus) {
  const CheckResult* inventory = FindCheck(report, "gpu.inventory");
  if (inventory == nullptr || !inventory->data.contains("nvml_gpus") || !inventory->data["nvml_gpus"].is_array()) return;
  int position = 0;
  for (const json& g : inventory->data["nvml_gpus"]) {
    if (!g.is_object()) continue;
    GpuFacts f;
    f.index = Optional<int>(g, "index").value_or(position++);
    f.driver.name = DataString(g, "name");
    gpus.push_back(std::move(f));
  }
}

}  // namespace

const CheckResult* FindCheck(const Report& report, std::string_view id) { return report.FindCheck(std::string(id)); }

const Measurement* FindMeasurement(const Report& report, std::string_view key) {
  return report.FindMeasurement(std::string(key));
}

std::optional<double> MeasuredValue(const Report& report, std::string_view key) {
  const Measurement* m = FindMeasurement(report, key);
  return m ? std::optional<double>(m->value) : std::nullopt;
}

bool AllreduceWrongSum(const Report& report) {
  const CheckResult* check = FindCheck(report, "interconnect.allreduce");
  if (check == nullptr) return false;
  const json& d = check->data;
  const bool retry_wrong = d.is_object() && d.contains("p2p_disable_retry") && DataFlag(d["p2p_disable_retry"], "wrong_sum");
  return DataFlag(d, "wrong_sum") || retry_wrong;
}

ReportFacts ReadFacts(const Report& report, const reference::GpuCatalog& catalog) {
  ReportFacts facts;
  facts.quick = report.meta.quick;
  facts.skip_dist = report.meta.skip_dist;
  facts.interrupted = report.meta.interrupted;

  const CheckResult* inventory = FindCheck(report, "gpu.inventory");
  if (inventory != nullptr && inventory->data.contains("gpus") && inventory->data["gpus"].is_array()) {
    facts.inventory_present = true;
    int position = 0;
    for (const json& g : inventory->data["gpus"]) {
      if (!g.is_object()) continue;
      GpuFacts f;
      f.index = Optional<int>(g, "index").value_or(position);
      f.driver = ReadDriverFacts(g);
      facts.gpus.push_back(std::move(f));
      ++position;
    }
  } else {
    for (int i : IndicesFromKeys(report)) {
      GpuFacts f;
      f.index = i;
      facts.gpus.push_back(std::move(f));
    }
  }
  if (facts.gpus.empty()) {
    ReadNvmlOnlyGpus(report, facts.gpus);
    facts.gpus_from_nvml = !facts.gpus.empty();
  }
  for (auto& g : facts.gpus) {
    g.catalog_spec = catalog.Match(g.driver.name, g.driver.memory_gib);
    if (g.catalog_spec == nullptr) g.derived_spec = reference::DeriveSpec(g.driver, catalog);
  }
  ReadClockReasons(report, facts.gpus);
  ReadLinksUnderLoad(report, facts.gpus);
  ReadPairFacts(report, catalog, facts);

  facts.run = facts::ReadRunFacts(report);
  return facts;
}

std::optional<reference::RanLink> SlowestLinkBelowRating(const ReportFacts& facts) {
  std::vector<reference::RanLink> links;
  for (const GpuFacts& g : facts.gpus) {
    if (g.derived()) continue;  // an unknown card's "rating" is the driver's own maximum
    reference::RanLink link{g.index, 0, 0, false, g.spec().pcie_gen, g.spec().pcie_width};
    if (g.pcie_gen_under_load && g.pcie_width_under_load) {
      link.gen = *g.pcie_gen_under_load;
      link.width = *g.pcie_width_under_load;
      link.under_load = true;
    } else if (g.driver.pcie_gen_max && g.driver.pcie_width_max) {
      link.gen = *g.driver.pcie_gen_max;
      link.width = *g.driver.pcie_width_max;
    }
    links.push_back(link);
  }
  return reference::SlowestBelowRating(links);
}

}  // namespace labcheck::expect
