// The network ports a multi-node job needs (scan/network_ports.h, with their roles from
// scan/network_roles.h), judged when --expect-ib, --expect-roce or --ib-devices say the node has
// them: InfiniBand and RoCE ports counted apart against --expect-ib and --expect-roce (gpud counts
// only InfiniBand-link-layer ports against its expected count: leptonai/gpud
// components/accelerator/nvidia/infiniband/types/ibport.go IsIBPort, check_thresholds.go, commit
// 4a8de33a); a rail --ib-devices names that is not there; an NVIDIA network card on the PCI bus
// without an RDMA device (lost by the driver: named by bus id even when the count still holds);
// then each port by its role (network_port_judging.cpp). A node without these flags is not judged
// on them: a workstation's unused HCA is no fault.
//
// --expect-ib counted RoCE ports too before issue 53, so a node with 8 InfiniBand rails and 2 RoCE
// ports never noticed a lost rail under --expect-ib 8. It now counts InfiniBand ports alone; where
// that changes the count (RoCE ports present, no --expect-roce), a monitor finding says so on every
// run, and a count that falls short names the RoCE ports it no longer includes.
#include <algorithm>

#include <fmt/format.h>

#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

bool IsRoce(const json& p) { return p.value("link_layer", std::string()) == "Ethernet"; }

std::string PortsWord(int n, Lang lang) {
  if (lang == Lang::En) return n == 1 ? "port" : "ports";
  const int last = n % 10, last_two = n % 100;
  if (last == 1 && last_two != 11) return "порт";
  if (last >= 2 && last <= 4 && (last_two < 12 || last_two > 14)) return "порта";
  return "портов";
}

void AddCounts(int ib, int roce, const NodeExpectations& e, std::vector<Finding>& out) {
  if (e.ib_ports && ib < *e.ib_ports) {
    std::string ru = fmt::format("{} {} InfiniBand вместо {}", ib, PortsWord(ib, Lang::Ru), *e.ib_ports);
    std::string en = fmt::format("{} InfiniBand {}, expected {}", ib, PortsWord(ib, Lang::En), *e.ib_ports);
    if (roce > 0 && !e.roce_ports) {
      ru += fmt::format(" (порты RoCE, {}, считаются отдельно: --expect-roce)", roce);
      en += fmt::format(" (RoCE ports, {}, are counted apart: --expect-roce)", roce);
    }
    out.push_back({-1, "network_port_count", T(ru, en)});
  }
  if (e.roce_ports && roce < *e.roce_ports)
    out.push_back({-1, "network_port_count", T(fmt::format("{} {} RoCE вместо {}", roce, PortsWord(roce, Lang::Ru), *e.roce_ports),
                                               fmt::format("{} RoCE {}, expected {}", roce, PortsWord(roce, Lang::En), *e.roce_ports))});
  if (e.ib_ports && !e.roce_ports && roce > 0)
    out.push_back({-1, "expect_ib_meaning",
                   T(fmt::format("--expect-ib {} считает только порты InfiniBand ({} здесь); {} {} RoCE, которые он считал раньше, "
                                 "не считаются: добавьте --expect-roce {}",
                                 *e.ib_ports, ib, roce, PortsWord(roce, Lang::Ru), roce),
                     fmt::format("--expect-ib {} counts InfiniBand ports only ({} here); the {} RoCE {} it counted before are not "
                                 "counted: add --expect-roce {}",
                                 *e.ib_ports, ib, roce, PortsWord(roce, Lang::En), roce))});
}

// --ib-devices names a rail that sysfs does not have.
void AddMissingNamedRails(const json& ports, const NodeExpectations& e, std::vector<Finding>& out) {
  for (const std::string& name : e.ib_devices) {
    const bool there = std::any_of(ports.begin(), ports.end(), [&](const json& p) { return p.value("device", std::string()) == name; });
    if (there) continue;
    Finding f{-1, "network_port_count", T(fmt::format("{} (--ib-devices) нет на узле", name), fmt::format("{} (--ib-devices) is not on this node", name))};
    f.device = name;
    out.push_back(std::move(f));
  }
}

// An NVIDIA network card on the bus whose driver made no RDMA device of it. Ethernet functions
// only where RoCE is expected: elsewhere one may be a plain Ethernet card without mlx5_ib.
void AddCardsWithoutRdma(const json& cards, const NodeExpectations& e, std::vector<Finding>& out) {
  if (!cards.is_array()) return;
  for (const json& c : cards) {
    const bool infiniband = c.value("link_layer", std::string()) != "Ethernet";
    if (!infiniband && !e.roce_ports) continue;
    const std::string bus = c.value("pci_bus_id", std::string());
    const bool compute = c.value("role", std::string("compute")) != "other";
    const std::string kind = infiniband ? "InfiniBand" : "RoCE";
    Finding f{-1, "network_card_lost",
              T(fmt::format("карта {} {} ({}) есть на шине PCI, но не в стеке RDMA: драйвер её потерял", kind, bus,
                            compute ? "вычислительная сеть" : "хранилище/управление"),
                fmt::format("{} card {} ({}) on the PCI bus but not in the RDMA stack: the driver lost it", kind, bus,
                            compute ? "compute" : "storage/in-band"))};
    f.pci_bus_id = bus;
    out.push_back(std::move(f));
  }
}

}  // namespace

bool NetworkPortsJudged(const NodeExpectations& e) { return e.ib_ports || e.roce_ports || !e.ib_devices.empty(); }

void AddNetworkPortFindings(const json& ports, const json& cards_without_rdma, const NodeExpectations& expect,
                            std::vector<Finding>& out) {
  if (!NetworkPortsJudged(expect) || !ports.is_array()) return;
  const int roce = static_cast<int>(std::count_if(ports.begin(), ports.end(), IsRoce));
  AddCounts(static_cast<int>(ports.size()) - roce, roce, expect, out);
  AddMissingNamedRails(ports, expect, out);
  AddCardsWithoutRdma(cards_without_rdma, expect, out);
  JudgeNetworkPortsByRole(ports, out);
}

}  // namespace labcheck::node_check
