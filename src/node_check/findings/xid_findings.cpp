// XIDs by NVIDIA's Xid catalog (gpu/health/xid_catalog.h, data/xid_catalog.json). A busy node's
// kernel log holds XIDs of users' programs until the next reboot: draining on any of them would
// drain the node again after every resume. So a kernel-log XID fails the node by the catalog's
// immediate action: RESTART_APP and IGNORE never (reported in --json only); RESET_GPU until a
// later line of the log shows the GPU reset or the driver loaded again; RESTART_BM, CONTACT_SUPPORT
// and unknown XIDs until reboot (the log starts afresh at boot). An XID *during* the check fails
// the node whatever its bucket: nothing but lab_check's own work ran on the card. The site's
// --xid-ignore and --xid-fail lists come first. One finding per class (xid_reset, xid_reboot,
// xid_support in data/finding_codes.json), each with its code, severity and action.
//
// Three XIDs are judged by more than their number:
//   - 79, the card fell off the bus, is one finding with the other evidence of it (the driver's
//     lines without an Xid number, the bus scan): fell_off_bus_findings.cpp;
//   - 144-150 (NVLink5) by NVIDIA's decode of their IntrInfo and error status (nvlink5_decode.h);
//   - 154 announces a change of the driver's recovery action: where the card's field 230 was read,
//     the field (recovery_action_findings.cpp) is the driver's verdict now and the log's
//     announcements are reported only; else the card's last 154 line decides, and a Drain P2P there
//     asks what field 230's does (recovery_drain_p2p), not a reset.
#include <map>

#include <fmt/format.h>

#include "gpu/health/xid_catalog.h"
#include "node_check/findings/findings.h"
#include "reference/finding_codes.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;
using gpu::health::XidClass;

// The line's tail after the XID number ("pid=1896, name=python3, Graphics Exception: ..."): what a
// reader needs to tell whose job it was.
std::string Tail(const std::string& line) {
  const size_t colon = line.find("): ");
  if (colon == std::string::npos) return line;
  const size_t comma = line.find(", ", colon);
  return comma == std::string::npos ? "" : line.substr(comma + 2);
}

struct Judged {
  XidClass cls;
  bool fails;
};

gpu::health::XidInfo InfoOf(const json& x) {
  return gpu::health::LookUpXid(x.value("xid", 0), x.value("line", ""), x.value("driver_version", ""));
}

Judged JudgeKernelXid(const json& x, const NodeExpectations& e) {
  const int xid = x.value("xid", 0);
  XidClass cls = InfoOf(x).cls;
  if (e.xid_fail.count(xid) && cls == XidClass::Application) cls = XidClass::Reset;
  if (e.xid_ignore.count(xid)) return {cls, false};
  const bool cleared = x.contains("cleared_by");
  switch (cls) {
    case XidClass::Application: return {cls, false};
    case XidClass::Reset: return {cls, !cleared};
    case XidClass::Reboot:
    case XidClass::ContactSupport: return {cls, true};  // only a reboot clears the log
  }
  return {cls, true};
}

json XidRecord(int gpu, const json& x, const std::string& source, XidClass cls, bool fails) {
  const int xid = x.is_number() ? x.get<int>() : x.value("xid", 0);
  const gpu::health::XidInfo info = x.is_number() ? gpu::health::LookUpXid(xid) : InfoOf(x);
  json r = {{"gpu", gpu},       {"xid", xid},         {"source", source},
            {"bucket", info.action}, {"class", gpu::health::XidClassKey(cls)}, {"meaning", info.meaning.en},
            {"fails", fails}};
  if (x.is_object()) {
    if (!x.value("line", std::string()).empty()) r["note"] = Tail(x["line"].get<std::string>());
    for (const char* key : {"form", "also", "driver_version", "time_s", "cleared_by", "cleared_at_s"})
      if (x.contains(key)) r[key] = x[key];
  }
  if (!info.detail.en.empty()) r["decode"] = {{"action", info.decoded_action}, {"detail", info.detail.en}};
  if (xid == 79) r["reported_as"] = "gpu_fell_off_bus";  // fell_off_bus_findings.cpp
  return r;
}

// "XID 79 (GPU has fallen off the bus): reboot, XID 48 (...): reset the GPU": each XID once, with
// what follows it (": reboot", " during the check").
Text Joined(const std::vector<std::pair<int, Text>>& parts) {
  Text s;
  for (const auto& [xid, after] : parts) {
    const Text one = gpu::health::XidWithMeaning(xid);
    s.ru += fmt::format("{}XID {}{}", s.ru.empty() ? "" : ", ", one.ru, after.ru);
    s.en += fmt::format("{}XID {}{}", s.en.empty() ? "" : ", ", one.en, after.en);
  }
  return s;
}

// The finding's key for XIDs of a class (data/finding_codes.json's "xid_class"): one finding per
// class, so that each carries its own severity and action. An application-class XID fails only
// during the check, where it asks for a reset like the reset class.
std::string KeyOfClass(XidClass cls) {
  const reference::FindingCode* entry =
      reference::FindingCodeForXidClass(gpu::health::XidClassKey(cls == XidClass::Application ? XidClass::Reset : cls));
  return entry != nullptr ? entry->key : "unclassified";
}

// Each failing XID once per class, in the order of the log, with what follows it.
class FailingByClass {
 public:
  void Add(XidClass cls, int xid, Text after) {
    auto& list = by_class_[KeyOfClass(cls)];
    for (const auto& f : list)
      if (f.first == xid) return;
    list.push_back({xid, std::move(after)});
  }
  void Emit(int gpu, std::vector<Finding>& out) const {
    for (const auto& [key, list] : by_class_) out.push_back({gpu, key, Joined(list)});
  }

 private:
  std::map<std::string, std::vector<std::pair<int, Text>>> by_class_;
};

// XID 154 announces a change of the driver's recovery action (the catalog: "summarizes the recovery
// action required for other Xids"). The card's field 230, where it was read, is the action now; else
// the card's last announcement is: an earlier one was overtaken by it.
const char* Superseded154(const json& log, size_t k, const json& facts) {
  if (log[k].value("xid", 0) != 154) return nullptr;
  if (facts.value("recovery_action", json(nullptr)).is_string()) return "recovery_action";
  for (size_t later = k + 1; later < log.size(); ++later)
    if (log[later].value("xid", 0) == 154) return "later_xid_154";
  return nullptr;
}

// "… changed from 0x0 (None) to 0x3 (Drain P2P)": the action in force is the last parenthesis.
bool AnnouncesDrainP2p(const json& x) {
  const std::string line = x.value("line", "");
  const size_t open = line.rfind('(');
  return x.value("xid", 0) == 154 && open != std::string::npos && line.compare(open + 1, 9, "Drain P2P") == 0;
}

// ": reset the GPU"; an NVLink5 XID the decode sheet could not read says so, as it is judged strictly.
Text AfterKernelXid(XidClass cls, const gpu::health::XidInfo& info) {
  const Text action = gpu::health::XidAction(cls);
  const bool undecoded = !info.detail.en.empty() && info.decoded_action.empty();
  return undecoded ? T(" (не расшифрована): " + action.ru, " (not decoded): " + action.en) : T(": " + action.ru, ": " + action.en);
}

void KernelLog(int gpu, const json& log, const json& facts, const NodeExpectations& e, std::vector<Finding>& out, json& xids) {
  if (!log.is_array()) return;
  FailingByClass failing;
  bool drain_p2p = false;
  for (size_t k = 0; k < log.size(); ++k) {
    const json& x = log[k];
    const int xid = x.value("xid", 0);
    Judged j = JudgeKernelXid(x, e);
    const char* superseded = Superseded154(log, k, facts);
    if (superseded != nullptr) j.fails = false;
    json r = XidRecord(gpu, x, "kernel_log", j.cls, j.fails);
    if (superseded != nullptr) r["superseded_by"] = superseded;
    xids.push_back(r);
    if (!j.fails || xid == 79) continue;  // 79: one finding with the other evidence, fell_off_bus_findings.cpp
    if (AnnouncesDrainP2p(x)) drain_p2p = true;
    else failing.Add(j.cls, xid, AfterKernelXid(j.cls, InfoOf(x)));
  }
  failing.Emit(gpu, out);
  if (drain_p2p)
    out.push_back({gpu, "recovery_drain_p2p",
                   T("XID 154: драйвер просит остановить обмен P2P", "XID 154: the driver asks to drain peer-to-peer traffic")});
}

void DuringCheck(int gpu, const json& during, const NodeExpectations& e, std::vector<Finding>& out, json& xids) {
  if (!during.is_array()) return;
  FailingByClass failing;
  for (const json& x : during) {
    const int xid = x.is_number() ? x.get<int>() : x.value("xid", 0);
    const XidClass cls = gpu::health::LookUpXid(xid).cls;
    const bool fails = !e.xid_ignore.count(xid);
    xids.push_back(XidRecord(gpu, json(xid), "during_check", cls, fails));
    if (fails && xid != 79) failing.Add(cls, xid, T(" во время проверки", " during the check"));
  }
  failing.Emit(gpu, out);
}

}  // namespace

void AddXidFindings(int gpu, const json& facts, const NodeExpectations& expect, std::vector<Finding>& out, json& xids) {
  KernelLog(gpu, facts.value("xid_kernel_log", json(nullptr)), facts, expect, out, xids);
  DuringCheck(gpu, facts.value("xid_during_run", json(nullptr)), expect, out, xids);
}

}  // namespace labcheck::node_check
