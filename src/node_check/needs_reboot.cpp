#include "node_check/needs_reboot.h"

#include "gpu/health/recovery_action.h"
#include "gpu/health/xid_catalog.h"

namespace labcheck::node_check {

namespace {

using gpu::health::XidAction;
using gpu::health::XidClass;

bool Contains(const std::string& text, const std::string& part) { return !part.empty() && text.find(part) != std::string::npos; }

// xid_findings.cpp ends each failing XID with ": " and its catalog action; RESTART_BM and
// CONTACT_SUPPORT (and XIDs the catalog lacks) fail the node until reboot.
bool XidNeedsReboot(const Text& text) {
  for (XidClass cls : {XidClass::Reboot, XidClass::ContactSupport})
    if (Contains(text.en, ": " + XidAction(cls).en) || Contains(text.ru, ": " + XidAction(cls).ru)) return true;
  return false;
}

}  // namespace

bool NeedsReboot(const NodeVerdict& verdict) {
  const Text reboot_action = gpu::health::RecoveryActionText("node_reboot");
  for (const Finding& f : verdict.findings) {
    if (f.item == "gpu_off_bus" || f.item == "nvswitch_sxid") return true;
    if (f.item == "xid_kernel_log" && XidNeedsReboot(f.text)) return true;
    if (f.item == "recovery_action" && f.text.en == reboot_action.en) return true;
  }
  return false;
}

bool ReasonNeedsReboot(const std::string& reason) {
  // The words of those findings' texts (bus_findings.cpp, nvswitch_sxid_findings.cpp, the XID
  // actions, RecoveryActionText), in both languages a reason can be written in.
  static const char* const kWords[] = {"reboot", "contact NVIDIA support", "on the PCI bus but not in the driver",
                                       "перезагруз", "поддержку NVIDIA", "есть на шине PCI, но не в драйвере"};
  for (const char* w : kWords)
    if (Contains(reason, w)) return true;
  return false;
}

}  // namespace labcheck::node_check
