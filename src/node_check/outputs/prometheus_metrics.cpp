#include "node_check/outputs/prometheus_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/build_commit.h"
#include "gpu/health/xid_catalog.h"
#include "platform/files.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

// A label value with the three escapes the text format asks for: backslash, quote, newline.
std::string Escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string Number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : (std::isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf"); }

// The samples of one metric family, written under its HELP and TYPE lines (every family a gauge:
// each value is what this run saw, not a count that only grows).
class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}
  void Add(const std::string& labels, double value) { samples_ += name_ + (labels.empty() ? "" : "{" + labels + "}") + " " + Number(value) + "\n"; }
  std::string Text() const {
    return samples_.empty() ? "" : "# HELP " + name_ + " " + help_ + "\n# TYPE " + name_ + " gauge\n" + samples_;
  }

 private:
  std::string name_, help_, samples_;
};

json Facts(const json& payload, size_t k) {
  const json gpus = payload.value("health", json::object()).value("gpus", json::array());
  return k < gpus.size() && gpus[k].is_object() ? gpus[k].value("facts", json::object()) : json::object();
}

std::string CardLabels(const json& card, const json& inventory_gpu) {
  const json& uuid = inventory_gpu.value("uuid", json(nullptr));
  return fmt::format(R"(gpu="{}",uuid="{}",model="{}")", card.value("index", 0), Escape(uuid.is_string() ? uuid.get<std::string>() : ""),
                     Escape(card.value("name", std::string())));
}

void AddIfNumber(Family& f, const std::string& labels, const json& value, double scale = 1) {
  if (value.is_number()) f.Add(labels, value.get<double>() * scale);
}

struct CardFamilies {
  Family matmul{"lab_check_gpu_matmul_flops_per_second", "Dense matmul throughput of a short cuBLASLt series (8192^3, BF16; FP16 without BF16), FLOP per second."};
  Family copy{"lab_check_gpu_device_copy_bytes_per_second", "Device memory copy as lab_check's copy figure counts it (its SM kernel: bytes read plus bytes written), bytes per second."};
  Family pcie_gen{"lab_check_gpu_pcie_link_generation", "PCIe generation the link ran at under load."};
  Family pcie_width{"lab_check_gpu_pcie_link_width_lanes", "PCIe link width under load, lanes."};
  Family nvlinks{"lab_check_gpu_nvlinks_active", "NVLinks in the active state."};
  Family ecc{"lab_check_gpu_ecc_uncorrected_errors", "Uncorrected ECC errors since the driver loaded (volatile)."};
  Family retired{"lab_check_gpu_retired_pages", "Retired memory pages (single-bit plus double-bit)."};
  Family remapped{"lab_check_gpu_remapped_rows", "Remapped memory rows, by the kind of error that caused the remap."};
  Family xids{"lab_check_gpu_xids", "XIDs seen, by NVIDIA's Xid catalog class and where they were seen (kernel log since boot, or during the check)."};
  Family failing{"lab_check_gpu_xids_failing", "XIDs that keep the node out of service (lab_check's XID policy)."};
  Family recovery{"lab_check_gpu_recovery_action", "1 for the recovery action the driver asks for (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION; action=\"none\" when none), where the driver has the field."};
};

void AddCard(CardFamilies& f, const json& card, const json& inventory_gpu, const json& facts, const json& xids) {
  const std::string labels = CardLabels(card, inventory_gpu);
  AddIfNumber(f.matmul, labels, card.value("matmul_tflops", json(nullptr)), 1e12);
  AddIfNumber(f.copy, labels, card.value("copy_gbps", json(nullptr)), 1e9);
  AddIfNumber(f.pcie_gen, labels, card.value("pcie_gen_under_load", json(nullptr)));
  AddIfNumber(f.pcie_width, labels, card.value("pcie_width_under_load", json(nullptr)));
  const json& nvlink = card.value("nvlink", json(nullptr));
  if (nvlink.is_object()) AddIfNumber(f.nvlinks, labels, nvlink.value("active", json(nullptr)));
  AddIfNumber(f.ecc, labels, facts.value("ecc_uncorrected_volatile", json(nullptr)));
  const json& action = facts.value("recovery_action", json(nullptr));
  if (action.is_string()) f.recovery.Add(labels + fmt::format(R"(,action="{}")", Escape(action.get<std::string>())), 1);
  const json& sbe = facts.value("retired_pages_single_bit", json(nullptr));
  const json& dbe = facts.value("retired_pages_double_bit", json(nullptr));
  if (sbe.is_number() && dbe.is_number()) f.retired.Add(labels, sbe.get<double>() + dbe.get<double>());
  const json& rows = facts.value("remapped_rows", json(nullptr));
  if (rows.is_object() && rows.contains("corrected")) {
    AddIfNumber(f.remapped, labels + R"(,error="correctable")", rows["corrected"]);
    AddIfNumber(f.remapped, labels + R"(,error="uncorrectable")", rows.value("uncorrected", json(nullptr)));
  }
  // Every class and source gets a sample, zero included: a series that appears only when
  // something went wrong makes alerts harder to write (absent() instead of > 0).
  std::map<std::string, int> seen, fails;
  for (const json& x : xids) {
    if (x.value("gpu", -1) != card.value("index", -2)) continue;
    const std::string key = x.value("class", "") + "|" + x.value("source", "");
    ++seen[key];
    if (x.value("fails", false)) ++fails[x.value("class", "")];
  }
  for (gpu::health::XidClass c : {gpu::health::XidClass::Application, gpu::health::XidClass::Reset, gpu::health::XidClass::Reboot,
                                  gpu::health::XidClass::ContactSupport}) {
    const std::string cls = gpu::health::XidClassKey(c);
    for (const char* source : {"kernel_log", "during_check"})
      f.xids.Add(labels + fmt::format(R"(,class="{}",source="{}")", cls, source), seen[cls + "|" + source]);
    f.failing.Add(labels + fmt::format(R"(,class="{}")", cls), fails[cls]);
  }
}

// Each kind of finding on each card, with its code and severity (data/finding_codes.json): the
// count of such findings (a card can have the same code twice, from the kernel log and from the
// check itself). Then the node's findings per severity, every severity with a sample, 0 included.
std::string FindingMetrics(const NodeVerdict& v) {
  Family coded("lab_check_finding", "Findings of this run by code (data/finding_codes.json), card and severity; held=\"true\" when --report-only held it back.");
  Family by_severity("lab_check_node_findings_by_severity", "Findings of this run by severity; only severities above monitor that are not held back keep the node out of service.");
  std::map<std::string, int> per_labels;
  std::map<std::string, int> per_severity;
  for (const Finding& f : v.findings) {
    const json& id = CardOf(v.gpus, f.gpu).value("uuid", json(nullptr));
    const std::string uuid = id.is_string() ? id.get<std::string>() : "";
    // The card (a GPU's or a network card's bus id) and, for a network port, its device and port:
    // what an RMA is filed by.
    ++per_labels[fmt::format(R"(code="{}",severity="{}",gpu="{}",uuid="{}",held="{}",pci_bus_id="{}",device="{}",port="{}")", f.code,
                             reference::SeverityKey(f.severity), f.gpu < 0 ? std::string() : std::to_string(f.gpu), Escape(uuid),
                             f.held ? "true" : "false", Escape(FindingBusId(f, v.gpus)), Escape(f.device),
                             f.port ? std::to_string(*f.port) : std::string())];
    ++per_severity[reference::SeverityKey(f.severity)];
  }
  for (const auto& [labels, count] : per_labels) coded.Add(labels, count);
  for (reference::Severity s : {reference::Severity::Monitor, reference::Severity::Config, reference::Severity::Reset,
                                reference::Severity::Reboot, reference::Severity::Isolate})
    by_severity.Add(fmt::format(R"(severity="{}")", reference::SeverityKey(s)), per_severity[reference::SeverityKey(s)]);
  return coded.Text() + by_severity.Text();
}

// What --drain did with Slurm this run (slurm_policy.h): one sample, the action as a label, so that
// an alert can fire on a drain the cap held back ("held_by_cap") or a drain or resume that failed
// (ok="false"): the node is sick and still in service then, which nobody else will notice.
std::string DrainMetrics(const json& drain) {
  if (!drain.is_object() || !drain.contains("action")) return "";
  Family f("lab_check_node_drain", "What node-check --drain did with Slurm this run: 1 for the action taken (drained, resumed, held_by_cap, left_as_is, waiting_for_healthy_runs, ...); ok=\"false\" when Slurm refused or could not be reached.");
  const std::string action = drain.value("action", std::string());
  // Not ok: scontrol ran and failed, or there was none to run. A decision that ran nothing
  // (held by the cap, waiting for a reboot) is ok; its action says what it was.
  const bool ok = action != "no_slurm" && (drain.value("ok", false) || !drain.value("ran", false));
  f.Add(fmt::format(R"(action="{}",ok="{}")", Escape(action), ok ? "true" : "false"), 1);
  return f.Text();
}

}  // namespace

// What sysfs said beside the driver: the GPUs on the PCI bus, and each InfiniBand/RoCE port.
std::string SysfsMetrics(const json& payload) {
  Family on_bus("lab_check_node_gpus_on_pci_bus", "NVIDIA GPUs sysfs lists on the PCI bus, whether the driver has them or not.");
  Family port_up("lab_check_network_port_up", "1 when the InfiniBand/RoCE port is ACTIVE with its physical link LinkUp; role is what it was judged as (compute, other).");
  // Bytes, not bits: Prometheus's base unit, which promtool's lint asks for (issue 53 found the
  // earlier _bits_per_second name failing `promtool check metrics`).
  Family port_rate("lab_check_network_port_rate_bytes_per_second", "The InfiniBand/RoCE port's rate as the kernel reports it, in bytes per second per direction (the kernel's Gb/s / 8).");
  const json& bus = payload.value("pci_bus", json(nullptr));
  if (bus.is_object() && bus.contains("gpus") && !bus.contains("partial")) on_bus.Add("", static_cast<double>(bus["gpus"].size()));
  const json& ports = payload.value("network_ports", json(nullptr));
  for (const json& p : ports.is_array() ? ports : json::array()) {
    const json& bus = p.value("pci_bus_id", json(nullptr));
    const std::string labels = fmt::format(R"(device="{}",port="{}",pci_bus_id="{}",role="{}")", Escape(p.value("device", std::string())),
                                           p.value("port", 0), Escape(bus.is_string() ? bus.get<std::string>() : ""),
                                           Escape(p.value("role", std::string())));
    port_up.Add(labels, p.value("state", std::string()) == "ACTIVE" && p.value("phys_state", std::string()) == "LinkUp" ? 1 : 0);
    AddIfNumber(port_rate, labels, p.value("rate_gbit", json(nullptr)), 1e9 / 8);
  }
  return on_bus.Text() + port_up.Text() + port_rate.Text();
}

std::string PrometheusText(const NodeVerdict& v, const json& payload, double checked_at_s, const json& drain) {
  Family healthy("lab_check_node_healthy", "1 when lab_check node-check found the node healthy, 0 when it found a fault or could not tell.");
  Family unknown("lab_check_node_unknown", "1 when lab_check node-check could not tell (no driver, no GPU).");
  Family findings("lab_check_node_findings", "Findings that keep the node out of service (above monitor, not held back by --report-only).");
  Family duration("lab_check_node_check_duration_seconds", "Wall time of the whole node-check run.");
  Family when("lab_check_node_check_timestamp_seconds", "Unix time the check ran: alert when it stops moving.");
  // Test equipment: a simulated machine's figures must never pass for a real card's on a dashboard.
  Family simulated("lab_check_node_simulated", "1 when the figures come from lab_check's simulated NVIDIA machine (tests/sim), not real GPUs.");
  simulated.Add("", payload.value("inventory", json::object()).value("simulated", false) ? 1 : 0);
  // Which build wrote the file, as exporters name theirs (node_exporter_build_info): a fleet on
  // "one binary for every node" can see a node left on an older one.
  Family build("lab_check_build_info", "The lab_check build that wrote this file: its version and commit; always 1.");
  build.Add(fmt::format(R"(version="{}",commit="{}")", Escape(LAB_CHECK_VERSION), Escape(std::string(BuildCommit()))), 1);
  healthy.Add("", v.state == NodeState::Healthy ? 1 : 0);
  unknown.Add("", v.state == NodeState::CannotTell ? 1 : 0);
  findings.Add("", static_cast<double>(std::count_if(v.findings.begin(), v.findings.end(), Fails)));
  AddIfNumber(duration, "", v.timings.value("total_s", json(nullptr)));
  when.Add("", checked_at_s);

  CardFamilies cards;
  const json inventory_gpus = payload.value("inventory", json::object()).value("gpus", json::array());
  for (size_t k = 0; k < v.gpus.size(); ++k)
    AddCard(cards, v.gpus[k], k < inventory_gpus.size() ? inventory_gpus[k] : json::object(), Facts(payload, k), v.xids);

  std::string out;
  for (const Family* f : {&build, &healthy, &unknown, &simulated, &findings, &duration, &when, &cards.matmul, &cards.copy, &cards.pcie_gen,
                          &cards.pcie_width, &cards.nvlinks, &cards.ecc, &cards.retired, &cards.remapped, &cards.xids,
                          &cards.failing, &cards.recovery})
    out += f->Text();
  return out + FindingMetrics(v) + DrainMetrics(drain) + SysfsMetrics(payload);
}

Status WritePrometheusFile(const std::string& path, const std::string& text) {
  if (path.size() < 5 || path.compare(path.size() - 5, 5, ".prom") != 0)
    return Status::Error(path + ": node_exporter's textfile collector reads only files ending in .prom");
  return WriteFileAtomically(path, text);
}

}  // namespace labcheck::node_check
