#include "node_check/slurm/needs_reboot.h"

#include <algorithm>
#include <regex>

namespace labcheck::node_check {

namespace {

bool Contains(const std::string& text, const std::string& part) { return !part.empty() && text.find(part) != std::string::npos; }

// A reason written before findings had codes: the words of the texts of the findings that clear
// only with a reboot (bus_findings.cpp, nvswitch_sxid_findings.cpp, the XID actions,
// RecoveryActionText), in both languages a reason can be written in.
bool WordsNeedReboot(const std::string& reason) {
  static const char* const kWords[] = {"reboot", "contact NVIDIA support", "on the PCI bus but not in the driver",
                                       "перезагруз", "поддержку NVIDIA", "есть на шине PCI, но не в драйвере"};
  return std::any_of(std::begin(kWords), std::end(kWords), [&](const char* w) { return Contains(reason, w); });
}

}  // namespace

bool NeedsReboot(const NodeVerdict& verdict) {
  return std::any_of(verdict.findings.begin(), verdict.findings.end(),
                     [](const Finding& f) { return Fails(f) && f.clears == reference::Clears::Reboot; });
}

bool ReasonNeedsReboot(const std::string& reason) {
  static const std::regex kCode("\\bLC[0-9]{3}\\b");
  bool coded = false;
  for (auto it = std::sregex_iterator(reason.begin(), reason.end(), kCode); it != std::sregex_iterator(); ++it) {
    const reference::FindingCode* entry = reference::FindingCodeByCode(it->str());
    if (entry == nullptr) continue;
    coded = true;
    if (entry->clears == reference::Clears::Reboot) return true;
  }
  return !coded && WordsNeedReboot(reason);
}

}  // namespace labcheck::node_check
