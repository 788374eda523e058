#include "gpu/health/xid_catalog.h"

#include <map>

#include <nlohmann/json.hpp>

#include "gpu/health/nvlink5_decode.h"
#include "reference/reference_data.h"

namespace labcheck::gpu::health {

namespace {

using nlohmann::json;

std::optional<XidClass> ClassOfAction(const json& classes, const std::string& action) {
  auto it = classes.find(action);
  if (it == classes.end() || !it->is_string()) return std::nullopt;
  // NVLink5 XIDs are decoded per line (LookUpXid); undecoded, the strictest outcome, a reset.
  if (it->get<std::string>() == "nvlink5_decode") return XidClass::Reset;
  return XidClassFromKey(it->get<std::string>());
}

struct Loaded {
  XidCatalogFacts facts;
  std::map<int, XidInfo> by_xid;
  json classes;
};

// A parse failure leaves an empty catalog (every XID CONTACT_SUPPORT, the strict reading); the
// catalog's test parses the embedded file, so it cannot ship broken.
const Loaded& Catalog() {
  static const Loaded loaded = [] {
    Loaded l;
    const json root = json::parse(reference::ReferenceFile("xid_catalog.json"), nullptr, false);
    if (root.is_discarded() || !root.is_object()) return l;
    const json source = root.value("source", json::object());
    l.facts.url = source.value("url", "");
    l.facts.read = source.value("read", "");
    l.classes = root.value("classes", json::object());
    for (const json& row : root.value("xids", json::array())) {
      XidInfo info;
      info.xid = row.value("xid", 0);
      info.mnemonic = row.value("mnemonic", "");
      info.action = row.value("action", "CONTACT_SUPPORT");
      info.cls = ClassOfAction(l.classes, info.action).value_or(XidClass::ContactSupport);
      info.meaning = row.contains("en") ? Text(row.value("ru", ""), row.value("en", "")) : Text(info.mnemonic);
      l.facts.rows.push_back(info);
      l.by_xid[info.xid] = info;
    }
    return l;
  }();
  return loaded;
}

// XID 154's text, as the catalog quotes it: "GPU recovery action changed from 0x0 (None) to 0x2
// (Node Reboot Required)"; the expected values are None, Drain P2P, Drain and Reset, GPU Reset
// Required, Node Reboot Required. The last parenthesis is the action now in force.
XidClass RecoveryActionClass(const std::string& line) {
  const size_t open = line.rfind('(');
  const std::string action = open == std::string::npos ? "" : line.substr(open + 1);
  if (action.rfind("Node Reboot Required", 0) == 0) return XidClass::Reboot;
  // Drain P2P: the card must not serve peer-to-peer work until it is reset, and the same action
  // read from the driver (field 230, recovery_action_findings) fails the node: a reset class here
  // too, so the kernel log and the field never disagree about one driver verdict.
  if (action.rfind("GPU Reset Required", 0) == 0 || action.rfind("Drain and Reset", 0) == 0 ||
      action.rfind("Drain P2P", 0) == 0)
    return XidClass::Reset;
  if (action.rfind("None", 0) == 0) return XidClass::Application;
  return XidClass::ContactSupport;  // a 154 line whose action we cannot read
}

// An NVLink5 XID by NVIDIA's decode sheet: decoded, the sheet's outcome; else a GPU reset, the
// strictest of the outcomes it gives these XIDs, and why.
void DecodeNvlink5Into(XidInfo& info, const std::string& line, const std::string& driver_version) {
  const Nvlink5Decoding d = DecodeNvlink5(info.xid, line, driver_version);
  info.detail = d.why;
  info.cls = XidClass::Reset;
  if (!d.decoded) return;
  info.decoded_action = d.action;
  info.cls = XidClassFromKey(Nvlink5OutcomeClass(d.action).value_or("reset")).value_or(XidClass::Reset);
}

}  // namespace

XidInfo LookUpXid(int xid, const std::string& line, const std::string& driver_version) {
  const Loaded& c = Catalog();
  auto it = c.by_xid.find(xid);
  XidInfo info;
  if (it == c.by_xid.end()) {
    info.xid = xid;
    info.action = "CONTACT_SUPPORT";
    info.meaning = T("нет в каталоге NVIDIA", "not in NVIDIA's catalog");
    return info;
  }
  info = it->second;
  const std::string cls = c.classes.value(info.action, "");
  if (cls == "recovery_action") info.cls = RecoveryActionClass(line);
  if (cls == "nvlink5_decode") DecodeNvlink5Into(info, line, driver_version);
  return info;
}

const char* XidClassKey(XidClass cls) {
  switch (cls) {
    case XidClass::Application: return "application";
    case XidClass::Reset: return "reset";
    case XidClass::Reboot: return "reboot";
    case XidClass::ContactSupport: return "contact_support";
  }
  return "contact_support";
}

std::optional<XidClass> XidClassFromKey(const std::string& key) {
  for (XidClass c : {XidClass::Application, XidClass::Reset, XidClass::Reboot, XidClass::ContactSupport})
    if (key == XidClassKey(c)) return c;
  return std::nullopt;
}

Text XidAction(XidClass cls) {
  switch (cls) {
    case XidClass::Application: return T("ошибка задачи, узел исправен", "the job's fault, the node is fine");
    case XidClass::Reset: return T("сбросьте GPU", "reset the GPU");
    case XidClass::Reboot: return T("перезагрузите узел", "reboot");
    case XidClass::ContactSupport: return T("обратитесь в поддержку NVIDIA", "contact NVIDIA support");
  }
  return {};
}

Text XidWithMeaning(int xid, const std::string& line) {
  const XidInfo info = LookUpXid(xid, line);
  return T(std::to_string(xid) + " (" + info.meaning.ru + ")", std::to_string(xid) + " (" + info.meaning.en + ")");
}

const XidCatalogFacts& XidCatalog() { return Catalog().facts; }

}  // namespace labcheck::gpu::health
