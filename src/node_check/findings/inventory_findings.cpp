// Findings from the inventory: how many cards, which model, how much memory, which driver, and
// whether each card's NVLinks are up as its model has them (nvmlDeviceGetNvLinkState per link).
#include <algorithm>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "node_check/findings/findings.h"
#include "reference/mig_slice.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

std::string Name(const json& gpu) { return gpu.value("name", std::string("?")); }

// "580" matches "580.95.05"; "580.95" matches it too; "58" does not.
bool DriverMatches(const std::string& want, const std::string& have) {
  if (have == want) return true;
  return have.size() > want.size() && have.compare(0, want.size(), want) == 0 && have[want.size()] == '.';
}

// Every word of `want` among the words of the device name ("h100" in "NVIDIA H100 80GB HBM3").
bool ModelMatches(const std::string& want, const std::string& device_name) {
  const std::vector<std::string> have = reference::DeviceNameWords(device_name);
  for (const std::string& w : reference::DeviceNameWords(want))
    if (std::find(have.begin(), have.end(), w) == have.end()) return false;
  return true;
}

void Count(const json& gpus, const NodeExpectations& e, std::vector<Finding>& out) {
  const int n = static_cast<int>(gpus.size());
  if (e.gpus && n != *e.gpus)
    out.push_back({-1, "gpu_count", T(fmt::format("{} GPU вместо {}", n, *e.gpus), fmt::format("{} GPUs, expected {}", n, *e.gpus))});
  else if (n == 0)
    out.push_back({-1, "gpu_none", T("драйвер не видит ни одной GPU", "the driver sees no GPU")});
}

void Model(const json& gpus, const NodeExpectations& e, std::vector<Finding>& out) {
  std::map<std::string, int> models;
  for (const json& g : gpus) ++models[Name(g)];
  std::string most;
  for (const auto& [name, count] : models)
    if (most.empty() || count > models[most]) most = name;
  for (const json& g : gpus) {
    const int i = g.value("index", 0);
    if (!e.model.empty() && !ModelMatches(e.model, Name(g)))
      out.push_back({i, "model", T(fmt::format("{} вместо {}", Name(g), e.model), fmt::format("{}, expected {}", Name(g), e.model))});
    else if (e.model.empty() && models.size() > 1 && Name(g) != most)
      out.push_back({i, "model", T(fmt::format("{}, у остальных {}", Name(g), most), fmt::format("{}, the others {}", Name(g), most))});
  }
}

void Memory(const json& gpus, const NodeExpectations& e, std::vector<Finding>& out) {
  double largest = 0;
  for (const json& g : gpus) largest = std::max(largest, g.value("memory_total_gib", 0.0));
  for (const json& g : gpus) {
    const int i = g.value("index", 0);
    const double gib = g.value("memory_total_gib", 0.0);
    if (e.memory_gib && gib < *e.memory_gib * kMemoryTolerance)
      out.push_back({i, "memory", T(fmt::format("память {:.1f} GiB вместо {:.0f}", gib, *e.memory_gib),
                                    fmt::format("memory {:.1f} GiB, expected {:.0f}", gib, *e.memory_gib))});
    else if (!e.memory_gib && gib < largest * kMemoryTolerance)
      out.push_back({i, "memory", T(fmt::format("память {:.1f} GiB, у других {:.1f}", gib, largest),
                                    fmt::format("memory {:.1f} GiB, the others {:.1f}", gib, largest))});
  }
}

void Driver(const json& inventory, const NodeExpectations& e, std::vector<Finding>& out) {
  if (e.driver.empty()) return;
  const json& v = inventory.value("driver_version", json(nullptr));
  const std::string have = v.is_string() ? v.get<std::string>() : "";
  if (have.empty())
    out.push_back({-1, "driver_version", T(fmt::format("версия драйвера не прочитана (ожидалась {})", e.driver),
                                   fmt::format("driver version unreadable (expected {})", e.driver))});
  else if (!DriverMatches(e.driver, have))
    out.push_back({-1, "driver_version", T(fmt::format("драйвер {} вместо {}", have, e.driver), fmt::format("driver {}, expected {}", have, e.driver))});
}

// NVML reports a link with nothing attached as down (issue 42: NVIDIA's NVSentinel and DCGM had to
// learn to skip such links), so "down" alone is not a fault. A board (SXM: bridge_links 0) has all
// its links wired when the card has peers on the node: each must be up; a card alone (a cloud VM
// given one GPU of a board) has nothing at the other end. A PCIe card has links only through
// bridges: none up is a card without bridges, some down is a bridge badly seated; the same for a
// card the catalog does not know.
int ExpectedNvLinks(const reference::GpuSpec* spec, int active, int down, size_t cards, const NodeExpectations& e) {
  if (e.nvlinks) return *e.nvlinks;
  if (spec != nullptr && !spec->nvlink) return 0;
  if (spec != nullptr && spec->nvlink->bridge_links == 0) return cards > 1 || active > 0 ? spec->nvlink->links : 0;
  return active == 0 ? 0 : active + down;  // no bridge fitted, or every link the GPU answers for
}

void NvLinks(const json& gpus, const std::vector<const reference::GpuSpec*>& specs, const NodeExpectations& e,
             std::vector<Finding>& out) {
  for (size_t k = 0; k < gpus.size(); ++k) {
    const json& g = gpus[k];
    const json& links = g.value("nvlink", json(nullptr));
    if (!links.is_object() || links.contains("na")) continue;
    const int i = g.value("index", 0), active = links.value("active", 0), down = links.value("down", 0);
    const reference::GpuSpec* spec = k < specs.size() ? specs[k] : nullptr;
    const int expected = ExpectedNvLinks(spec, active, down, gpus.size(), e);
    if (active < expected)
      out.push_back({i, "nvlink_down", T(fmt::format("NVLink: активны {} из {}", active, expected),
                                    fmt::format("NVLink {}/{} links up", active, expected))});
  }
}

}  // namespace

namespace {

// A MIG slice is judged against its share of the whole card (reference/mig_slice.h); the slice's
// spec is made here and kept for the process, so the pointers stay valid for the verdict.
const reference::GpuSpec* SliceSpec(const reference::GpuCatalog& catalog, const json& g) {
  static std::deque<reference::GpuSpec> slices;
  std::optional<reference::GpuSpec> slice =
      reference::MigSliceSpec(catalog, Name(g), g.value("sm_count", 0), g.value("memory_total_gib", 0.0));
  if (!slice) return nullptr;
  slices.push_back(std::move(*slice));
  return &slices.back();
}

}  // namespace

std::vector<const reference::GpuSpec*> CatalogSpecs(const json& inventory) {
  std::vector<const reference::GpuSpec*> specs;
  const reference::GpuCatalog& catalog = reference::GpuCatalog::Builtin();
  for (const json& g : inventory.value("gpus", json::array()))
    specs.push_back(reference::IsMigSlice(Name(g)) ? SliceSpec(catalog, g)
                                                   : catalog.Match(Name(g), g.value("memory_total_gib", 0.0)));
  return specs;
}

void AddInventoryFindings(const json& inventory, const std::vector<const reference::GpuSpec*>& specs,
                          const NodeExpectations& expect, std::vector<Finding>& out) {
  const json gpus = inventory.value("gpus", json::array());
  Count(gpus, expect, out);
  Model(gpus, expect, out);
  Memory(gpus, expect, out);
  Driver(inventory, expect, out);
  NvLinks(gpus, specs, expect, out);
}

}  // namespace labcheck::node_check
