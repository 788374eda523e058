// NVSwitch SXids from the kernel log (gpu/health/sxid.h): a fatal one fails the node until reboot
// (the log starts afresh then), named by switch and number; non-fatal ones are only listed in
// --json ("sxids"). Each switch and SXid once, however often the line repeats.
#include <set>

#include <fmt/format.h>

#include "node_check/findings/findings.h"

namespace labcheck::node_check {

void AddSxidFindings(const nlohmann::json& sxids, std::vector<Finding>& out) {
  if (!sxids.is_array()) return;
  std::set<std::pair<std::string, int>> seen;
  for (const nlohmann::json& s : sxids) {
    if (!s.value("fatal", false)) continue;
    const std::string pci = s.value("pci", std::string("?"));
    const int sxid = s.value("sxid", 0);
    if (!seen.insert({pci, sxid}).second) continue;
    const std::string text = s.value("text", std::string());
    Finding f{-1, "nvswitch_sxid",
              T(fmt::format("NVSwitch {} SXid {} (фатальная): {}; перезагрузите узел", pci, sxid, text),
                fmt::format("NVSwitch {} SXid {} (fatal): {}; reboot the node", pci, sxid, text))};
    if (pci != "?") f.pci_bus_id = pci;  // the switch, for --json and the metrics (issue 53)
    out.push_back(std::move(f));
  }
}

}  // namespace labcheck::node_check
