#include "node_check/outputs/node_report.h"

#include "core/build_commit.h"
#include "platform/files.h"

namespace labcheck::node_check {

using nlohmann::json;

json NodeReportJson(const NodeVerdict& v, const json& payload, const NodeExpectations& e, const std::string& node) {
  json findings = json::array();
  for (const Finding& f : v.findings) {
    const json card = CardOf(v.gpus, f.gpu);
    const std::string bus_id = FindingBusId(f, v.gpus);
    findings.push_back({{"gpu", f.gpu < 0 ? json(nullptr) : json(f.gpu)},
                        {"pci_bus_id", bus_id.empty() ? json(nullptr) : json(bus_id)},
                        {"device", f.device.empty() ? json(nullptr) : json(f.device)},
                        {"port", f.port ? json(*f.port) : json(nullptr)},
                        {"uuid", card.value("uuid", json(nullptr))},
                        {"serial", card.value("serial", json(nullptr))},
                        {"item", f.item},
                        {"code", f.code},
                        {"severity", reference::SeverityKey(f.severity)},
                        {"clears", reference::ClearsKey(f.clears)},
                        {"fails", Fails(f)},
                        {"held", f.held},
                        {"text", FindingText(f, Lang::En, v.gpus)},
                        {"text_ru", FindingText(f, Lang::Ru, v.gpus)},
                        {"action", f.action.en},
                        {"action_ru", f.action.ru}});
  }
  const json inventory = payload.value("inventory", json::object());
  json expectations = {{"gpus", e.gpus ? json(*e.gpus) : json(nullptr)},
                       {"model", e.model},
                       {"memory_gib", e.memory_gib ? json(*e.memory_gib) : json(nullptr)},
                       {"driver", e.driver},
                       {"mig", e.mig},
                       {"persistence_required", e.persistence_required},
                       {"pcie_gen", e.pcie_gen ? json(*e.pcie_gen) : json(nullptr)},
                       {"pcie_width", e.pcie_width ? json(*e.pcie_width) : json(nullptr)},
                       {"nvlinks", e.nvlinks ? json(*e.nvlinks) : json(nullptr)},
                       {"power_limit_w", e.power_limit_w ? json(*e.power_limit_w) : json(nullptr)},
                       {"perf_tolerance", e.perf_tolerance},
                       {"max_spread", e.max_spread},
                       {"other_process_gib", e.other_process_gib},
                       {"xid_ignore", e.xid_ignore},
                       {"xid_fail", e.xid_fail},
                       {"ib_ports", e.ib_ports ? json(*e.ib_ports) : json(nullptr)},
                       {"roce_ports", e.roce_ports ? json(*e.roce_ports) : json(nullptr)},
                       {"ib_devices", e.ib_devices},
                       {"ecc_corrected_warn", e.ecc_corrected_warn},
                       {"sram_corrected_warn", e.sram_corrected_warn},
                       {"nvlink_errors_warn", e.nvlink_errors_warn},
                       {"report_only", e.report_only}};
  const int exit_code = v.state == NodeState::Healthy ? 0 : v.state == NodeState::Unhealthy ? 1 : 3;
  json out = {{"kind", kNodeReportKind},
              {"version", 1},
              {"tool_version", LAB_CHECK_VERSION},
              {"tool_commit", std::string(BuildCommit())},
              {"node", node},
              {"checked_at", UtcTimestamp()},
              {"verdict", StateName(v.state)},
              {"line", VerdictLine(v, Lang::En)},
              {"line_ru", VerdictLine(v, Lang::Ru)},
              {"exit_code", exit_code},
              {"findings", findings},
              {"gpus", v.gpus},
              {"xids", v.xids},
              {"timings_s", v.timings},
              {"expectations", expectations},
              {"driver_version", inventory.value("driver_version", json(nullptr))},
              {"cuda_driver_version", inventory.value("cuda_driver_version", json(nullptr))},
              {"simulated", inventory.value("simulated", false)}};
  if (inventory.contains("simulated_machine")) out["simulated_machine"] = inventory["simulated_machine"];
  const json& sxids = payload.value("health", json::object()).value("sxid_kernel_log", json(nullptr));
  if (!sxids.is_null()) out["sxids"] = sxids;  // every NVSwitch SXid since boot, fatal or not
  // The driver's other messages since boot (a card it could not initialise, NVLink setup that
  // failed), those that made a finding and those that did not (a card that initialised later).
  const json& messages = payload.value("health", json::object()).value("driver_kernel_log", json(nullptr));
  if (!messages.is_null()) out["driver_messages"] = messages;
  for (const char* key : {"pci_bus", "network_ports", "network_cards_without_rdma"})  // what sysfs says beside the driver
    if (payload.contains(key)) out[key] = payload[key];
  if (payload.contains("error")) out["error"] = payload["error"];
  // The driver's state (gpu/nvidia/driver_state.h): the child's envelope's when CUDA did not start,
  // else the inventory's ("running").
  if (payload.contains("driver_state")) out["driver_state"] = payload["driver_state"];
  else if (inventory.contains("driver_state")) out["driver_state"] = inventory["driver_state"];
  return out;
}

bool IsNodeReport(const json& value) { return value.is_object() && value.value("kind", std::string()) == kNodeReportKind; }

}  // namespace labcheck::node_check
