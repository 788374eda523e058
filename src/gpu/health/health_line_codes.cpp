#include "gpu/health/health_line_codes.h"

#include <map>
#include <optional>

#include "gpu/health/xid_catalog.h"
#include "reference/finding_codes.h"

namespace labcheck::gpu::health {

namespace {

using nlohmann::json;

bool Flag(const json& facts, const char* key) {
  const auto it = facts.find(key);
  return it != facts.end() && it->is_boolean() && it->get<bool>();
}

bool RowRemapPending(const json& facts) {
  const auto it = facts.find("remapped_rows");
  return it != facts.end() && it->is_object() && it->value("pending", false);
}

// The strictest class among a line's XIDs that asks something of the node (an application's XID
// asks nothing), as node-check's XID findings are keyed (xid_findings.cpp).
std::optional<XidClass> StrictestClass(const json& xids) {
  std::optional<XidClass> worst;
  if (!xids.is_array()) return worst;
  for (const json& x : xids) {
    const XidClass cls = x.is_number() ? LookUpXid(x.get<int>()).cls
                                       : LookUpXid(x.value("xid", 0), x.value("line", ""), x.value("driver_version", "")).cls;
    if (cls == XidClass::Application) continue;
    if (!worst || static_cast<int>(cls) > static_cast<int>(*worst)) worst = cls;
  }
  return worst;
}

bool FellOffTheBus(const json& xids) {
  if (!xids.is_array()) return false;
  for (const json& x : xids)
    if ((x.is_number() ? x.get<int>() : x.value("xid", 0)) == 79) return true;
  return false;
}

// node-check's finding key for the line, by item and what the line says.
std::string KeyOf(const HealthLine& line, const json& facts) {
  const bool fail = line.status == Outcome::Fail;
  if (line.item == "remapped_rows") return fail ? "row_remap_failed" : RowRemapPending(facts) ? "remapped_rows_pending" : "";
  if (line.item == "retired_pages") return fail ? "retired_pages_limit" : Flag(facts, "retired_pages_pending") ? "retired_pages_pending" : "";
  if (line.item == "ecc_uncorrected") return fail ? "ecc_uncorrected" : "";
  if (line.item == "pcie_downtrain") return "pcie_link";
  if (line.item == "xid_during_run" || line.item == "xid_kernel_log") {
    const auto it = facts.find(line.item);
    const json& xids = it == facts.end() ? json(nullptr) : *it;
    const std::optional<XidClass> cls = StrictestClass(xids);
    if (!cls) return "";
    // XID 79 is node-check's "fell off the bus" (LC110), which outranks the other reboot-class XIDs.
    if (*cls == XidClass::Reboot && FellOffTheBus(xids)) return "gpu_fell_off_bus";
    const reference::FindingCode* entry = reference::FindingCodeForXidClass(XidClassKey(*cls));
    return entry != nullptr ? entry->key : "";
  }
  static const std::map<std::string, std::string> kSameKey = {
      {"pcie_replay", "pcie_replay"}, {"power_limit", "power_limit"}, {"compute_mode", "compute_mode"},
      {"mig_mode", "mig_mode"},       {"other_processes", "other_processes"}, {"ecc_corrected", "ecc_corrected"}};
  const auto it = kSameKey.find(line.item);
  return it == kSameKey.end() ? "" : it->second;
}

}  // namespace

std::string FindingKeyOfLine(const HealthLine& line, const json& facts) {
  if (line.na || line.status == Outcome::Pass) return "";
  return KeyOf(line, facts);
}

std::string FindingCodeOfLine(const HealthLine& line, const json& facts) {
  const std::string key = FindingKeyOfLine(line, facts);
  return key.empty() ? "" : reference::FindingCodeFor(key).code;
}

}  // namespace labcheck::gpu::health
