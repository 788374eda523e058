// Cards on the PCI bus that the driver does not have (pci_bus_scan.h): each one a finding naming
// its bus id, with or without --expect-gpus, since the driver's own count cannot show a card it
// lost. A run given only some of the node's cards (payload "pci_bus"."partial") compares nothing:
// the bus lists the cards it was never given; the JSON says so.
#include <set>

#include <fmt/format.h>

#include "gpu/nvidia/nvml_library.h"  // CanonicalPciBusId
#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

std::set<std::string> DriverBusIds(const json& inventory) {
  std::set<std::string> ids;
  for (const json& g : inventory.value("gpus", json::array()))
    ids.insert(gpu::CanonicalPciBusId(g.value("pci_bus_id", std::string())));
  return ids;
}

}  // namespace

void AddBusFindings(const json& bus, const json& inventory, std::vector<Finding>& out, const std::set<std::string>& named) {
  if (!bus.is_object() || !bus.contains("gpus") || bus.contains("partial")) return;
  const std::set<std::string> driver = DriverBusIds(inventory);
  for (const json& id : bus["gpus"]) {
    const std::string bus_id = gpu::CanonicalPciBusId(id.get<std::string>());
    if (driver.count(bus_id) || named.count(bus_id)) continue;  // named: fell off, or failed to initialise
    Finding f{-1, "gpu_off_bus",
              T(fmt::format("GPU {} есть на шине PCI, но не в драйвере: отвалилась от шины или не "
                            "инициализировалась; смотрите журнал ядра",
                            bus_id),
                fmt::format("GPU {} on the PCI bus but not in the driver: fell off the bus or failed to "
                            "initialise; see the kernel log",
                            bus_id))};
    f.pci_bus_id = bus_id;  // the card to reseat or replace, for --json and the metrics (issue 53)
    out.push_back(std::move(f));
  }
}

}  // namespace labcheck::node_check
