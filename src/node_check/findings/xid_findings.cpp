// XIDs by NVIDIA's Xid catalog (gpu/health/xid_catalog.h, data/xid_catalog.json). A busy node's
// kernel log holds XIDs of users' programs until the next reboot: draining on any of them would
// drain the node again after every resume. So a kernel-log XID fails the node by the catalog's
// immediate action: RESTART_APP and IGNORE never (reported in --json only); RESET_GPU until a
// later line of the log shows the GPU reset or the driver loaded again; RESTART_BM, CONTACT_SUPPORT
// and unknown XIDs until reboot (the log starts afresh at boot). An XID *during* the check fails
// the node whatever its bucket: nothing but lab_check's own work ran on the card. The site's
// --xid-ignore and --xid-fail lists come first. One finding per class (xid_reset, xid_reboot,
// xid_support in data/finding_codes.json), each with its code, severity and action.
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

Judged JudgeKernelXid(const json& x, const NodeExpectations& e) {
  const int xid = x.value("xid", 0);
  XidClass cls = gpu::health::LookUpXid(xid, x.value("line", "")).cls;
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

json XidRecord(int gpu, int xid, const std::string& source, const std::string& line, XidClass cls, bool fails) {
  const gpu::health::XidInfo info = gpu::health::LookUpXid(xid, line);
  json r = {{"gpu", gpu},       {"xid", xid},         {"source", source},
            {"bucket", info.action}, {"class", gpu::health::XidClassKey(cls)}, {"meaning", info.meaning.en},
            {"fails", fails}};
  if (!line.empty()) r["note"] = Tail(line);
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

void KernelLog(int gpu, const json& log, const NodeExpectations& e, std::vector<Finding>& out, json& xids) {
  if (!log.is_array()) return;
  FailingByClass failing;
  for (const json& x : log) {
    const int xid = x.value("xid", 0);
    const Judged j = JudgeKernelXid(x, e);
    json r = XidRecord(gpu, xid, "kernel_log", x.value("line", ""), j.cls, j.fails);
    for (const char* key : {"time_s", "cleared_by", "cleared_at_s"})
      if (x.contains(key)) r[key] = x[key];
    xids.push_back(r);
    const Text action = gpu::health::XidAction(j.cls);
    if (j.fails) failing.Add(j.cls, xid, T(": " + action.ru, ": " + action.en));
  }
  failing.Emit(gpu, out);
}

void DuringCheck(int gpu, const json& during, const NodeExpectations& e, std::vector<Finding>& out, json& xids) {
  if (!during.is_array()) return;
  FailingByClass failing;
  for (const json& x : during) {
    const int xid = x.is_number() ? x.get<int>() : x.value("xid", 0);
    const XidClass cls = gpu::health::LookUpXid(xid).cls;
    const bool fails = !e.xid_ignore.count(xid);
    xids.push_back(XidRecord(gpu, xid, "during_check", "", cls, fails));
    if (fails) failing.Add(cls, xid, T(" во время проверки", " during the check"));
  }
  failing.Emit(gpu, out);
}

}  // namespace

void AddXidFindings(int gpu, const json& facts, const NodeExpectations& expect, std::vector<Finding>& out, json& xids) {
  KernelLog(gpu, facts.value("xid_kernel_log", json(nullptr)), expect, out, xids);
  DuringCheck(gpu, facts.value("xid_during_run", json(nullptr)), expect, out, xids);
}

}  // namespace labcheck::node_check
