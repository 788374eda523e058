// Findings from gpu.health's facts. Every FAIL line of gpu.health (health/health_verdicts.h) is
// one; on top, what a lab can live with but a scheduler must not hand to the next job: a row
// remap or page retirement pending a reset, XIDs by NVIDIA's catalog (xid_findings.cpp), PCIe
// replays growing under load, a link under load below the card's maximum, persistence
// off, a power limit below the default, another process holding memory, MIG not as expected.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpu/health/health_facts.h"
#include "gpu/health/health_line_codes.h"
#include "gpu/health/health_verdicts.h"
#include "gpu/health/kernel_log.h"
#include "node_check/findings/findings.h"

namespace labcheck::node_check {

namespace {

using nlohmann::json;

const json& Get(const json& facts, const char* key) {
  static const json kNull;
  auto it = facts.find(key);
  return it == facts.end() ? kNull : *it;
}
bool Known(const json& field) { return !field.is_null() && !gpu::health::IsNotAvailable(field); }
double Number(const json& field) { return field.is_number() ? field.get<double>() : 0; }
bool True(const json& field) { return field.is_boolean() && field.get<bool>(); }

// The kernel log's XIDs are read once for all cards; each card gets those of its bus id.
json CardKernelXids(const json& gpu, const json& health) {
  const json& log = health.value("xid_kernel_log", json(nullptr));
  if (!log.is_array()) return log;
  json mine = json::array();
  for (const json& x : log)
    if (gpu::health::SameGpu(x.value("pci", ""), gpu.value("pci_bus_id", ""))) mine.push_back(x);
  return mine;
}

struct Collector {
  int gpu;
  std::vector<Finding>& out;
  std::set<std::string> items;
  void Add(const std::string& item, Text text, std::map<std::string, std::string> values = {}) {
    if (!items.insert(item).second) return;  // one finding per item and card
    out.push_back({gpu, item, std::move(text), std::move(values)});
  }
};

void Memory(Collector& c, const json& f) {
  const json& ecc = Get(f, "ecc_uncorrected_volatile");
  const bool ecc_off = Get(f, "ecc_mode").is_boolean() && !Get(f, "ecc_mode").get<bool>();
  if (!ecc_off && Number(ecc) > 0) {
    // NVML's volatile count: it starts at 0 each time the driver loads (and at a GPU reset), so not
    // "since boot" (nvml.h, NVML_VOLATILE_ECC: "Volatile counts are reset each time the driver loads").
    c.Add("ecc_uncorrected", T(fmt::format("неисправимые ошибки ECC: {:.0f} с загрузки драйвера", Number(ecc)),
                               fmt::format("{:.0f} uncorrected ECC errors since the driver loaded", Number(ecc))));
  }
  const json& sram = Get(f, "sram_uncorrected_volatile");
  if (!ecc_off && Number(sram) > 0)
    c.Add("sram_uncorrected", T(fmt::format("неисправимые ошибки ECC в SRAM: {:.0f} с загрузки драйвера", Number(sram)),
                                fmt::format("{:.0f} uncorrected SRAM ECC errors since the driver loaded", Number(sram))));
  const json& rows = Get(f, "remapped_rows");
  if (rows.is_object() && rows.value("failed", false)) c.Add("row_remap_failed", T("замена строк памяти не удалась", "row remap failed"));
  else if (rows.is_object() && rows.value("pending", false))
    c.Add("remapped_rows_pending", T("замена строк ждёт сброса карты", "row remap pending a reset"));
  if (True(Get(f, "retired_pages_pending")))
    c.Add("retired_pages_pending", T("изъятие страниц ждёт сброса карты", "retired pages pending a reset"));
}

void Pcie(Collector& c, const json& f, const reference::GpuSpec* spec, const NodeExpectations& e) {
  const json& growth = Get(f, "pcie_replay_growth");
  if (Number(growth) > 0)
    c.Add("pcie_replay", T(fmt::format("PCIe: повторы растут (+{:.0f} под нагрузкой)", Number(growth)),
                           fmt::format("PCIe replays growing (+{:.0f} under load)", Number(growth))));
  const json& gen = Get(f, "pcie_gen_under_load");
  const json& width = Get(f, "pcie_width_under_load");
  if (!gen.is_number()) return;
  // The generation: NVML's maximum, which already says what card and slot can do together (a
  // Gen5 card in a Gen4 server is how it was bought). The width: the card's own, where the catalog
  // knows it, because NVML's maximum includes the slot and would hide a x16 card in a x8 slot.
  const int max_gen = e.pcie_gen.value_or(static_cast<int>(Number(Get(f, "pcie_gen_max"))));
  int max_width = static_cast<int>(Number(Get(f, "pcie_width_max")));
  if (spec != nullptr && spec->pcie_width > 0) max_width = std::max(max_width, spec->pcie_width);
  if (e.pcie_width) max_width = *e.pcie_width;
  const int g = static_cast<int>(Number(gen)), w = width.is_number() ? static_cast<int>(Number(width)) : max_width;
  if ((max_gen > 0 && g < max_gen) || (max_width > 0 && w < max_width))
    c.Add("pcie_link", T(fmt::format("PCIe Gen{} x{} (максимум Gen{} x{})", g, w, max_gen, max_width),
                         fmt::format("PCIe Gen{} x{} (max Gen{} x{})", g, w, max_gen, max_width)));
}

// A limit below the card's default is a finding, unless the site capped its cards on purpose
// (`nvidia-smi -pl`, common on shared clusters) and said so with --expect-power-limit W: then a
// limit at or above W is fine and one below W is the finding. Within 1 W: NVML reports the
// milliwatts the driver settled on, not the watts typed.
void PowerLimit(Collector& c, const json& limit, const json& fallback, const NodeExpectations& e) {
  if (!limit.is_number() || !fallback.is_number() || Number(limit) + 1 >= Number(fallback)) return;
  // The action's command restores the limit the site asked for, else the card's default.
  const double restore_w = e.power_limit_w ? *e.power_limit_w : Number(fallback);
  const std::map<std::string, std::string> values = {{"default_w", fmt::format("{:.0f}", restore_w)}};
  if (!e.power_limit_w)
    c.Add("power_limit", T(fmt::format("лимит мощности {:.0f} Вт (штатный {:.0f})", Number(limit), Number(fallback)),
                           fmt::format("power limit {:.0f} W (default {:.0f} W)", Number(limit), Number(fallback))),
          values);
  else if (Number(limit) + 1 < *e.power_limit_w)
    c.Add("power_limit", T(fmt::format("лимит мощности {:.0f} Вт (ожидалось от {:.0f})", Number(limit), *e.power_limit_w),
                           fmt::format("power limit {:.0f} W (expected {:.0f}+)", Number(limit), *e.power_limit_w)),
          values);
}

// With MPS, the server owns every client's CUDA context, so NVML lists it alone: "when querying
// active processes via nvidia-smi (or any NVML-based application) nvidia-cuda-mps-server will
// appear as the active CUDA process rather than any of the client processes" (NVIDIA, Multi-Process
// Service, https://docs.nvidia.com/deploy/topics/topic_5_1_2.html). It is the site's
// infrastructure, not a job's leftover. The name is /proc/PID/comm, which the kernel cuts to 15
// characters ("Strings longer than TASK_COMM_LEN (16) characters (including the terminating null
// byte) are silently truncated", proc(5), /proc/pid/comm): a real server reads "nvidia-cuda-mps".
bool IsMpsServer(const json& process) {
  const json& name = process.value("name", json(nullptr));
  if (!name.is_string()) return false;
  const std::string& n = name.get_ref<const std::string&>();
  return n == "nvidia-cuda-mps-server" || n == "nvidia-cuda-mps";
}

// Processes holding memory on the card that are not MPS's server. In a container's PID namespace
// NVML's pids are the host's and have no name here (pid_namespace.h), so MPS's server cannot be
// told from a leftover: the memory is held all the same, and the line says which pids to look up
// on the host, where node-check runs as slurmd runs it.
void OtherProcesses(Collector& c, const json& procs, const NodeExpectations& e) {
  if (!procs.is_array() || procs.empty()) return;
  double gib = 0;
  bool unknown = false;
  std::vector<std::string> host_pids;
  for (const json& p : procs) {
    if (IsMpsServer(p)) continue;
    if (p.value("host_pid", false)) host_pids.push_back(std::to_string(p.value("pid", 0u)));
    if (p.value("used_gib", json(nullptr)).is_number()) gib += p["used_gib"].get<double>();
    else unknown = true;
  }
  if (gib < e.other_process_gib && !unknown) return;
  const std::string pids = fmt::format("{}", fmt::join(host_pids, ", "));
  c.Add("other_processes",
        host_pids.empty()
            ? T(fmt::format("чужой процесс держит {:.1f} GiB", gib), fmt::format("another process holds {:.1f} GiB", gib))
            : T(fmt::format("чужой процесс держит {:.1f} GiB (PID хоста {}: из пространства PID контейнера не назвать)", gib, pids),
                fmt::format("another process holds {:.1f} GiB (host PID {}: not nameable from the container's PID namespace)", gib,
                            pids)));
}

void Settings(Collector& c, const json& f, const NodeExpectations& e) {
  const json& persistence = Get(f, "persistence_mode");
  if (e.persistence_required && persistence.is_boolean() && !persistence.get<bool>())
    c.Add("persistence_mode", T("persistence выключен", "persistence mode off"));
  PowerLimit(c, Get(f, "power_limit_w"), Get(f, "power_default_limit_w"), e);
  OtherProcesses(c, Get(f, "other_processes"), e);
  const json& mig = Get(f, "mig_mode");
  if (mig.is_object() && Known(mig) && mig.value("current", false) != e.mig)
    c.Add("mig_mode", mig.value("current", false) ? T("MIG включён (ожидался выключенным)", "MIG on (expected off)")
                                                  : T("MIG выключен (ожидался включённым)", "MIG off (expected on)"));
}

// gpu.health's own FAIL lines not named above (PROHIBITED compute mode, 60+ retired pages): its
// label and value, keyed as gpu.health's hint codes are (health_line_codes.h), so a card gets one
// finding per key; a FAIL line without a key keeps its item (and reads LC900, unclassified).
void HealthFails(Collector& c, int index, const json& f) {
  for (const gpu::health::HealthLine& line : gpu::health::JudgeGpu(index, f)) {
    // XIDs are judged by the catalog and the site's lists (xid_findings.cpp), not by gpu.health.
    if (line.na || line.status != Outcome::Fail || line.item.rfind("xid_", 0) == 0) continue;
    const std::string key = gpu::health::FindingKeyOfLine(line, f);
    c.Add(key.empty() ? line.item : key, T(line.label.ru + ": " + line.value.ru, line.label.en + ": " + line.value.en));
  }
}

}  // namespace

void AddHealthFindings(const json& health, const std::vector<const reference::GpuSpec*>& specs,
                       const NodeExpectations& expect, std::vector<Finding>& out, json& xids) {
  if (health.value("outcome", std::string("ok")) != "ok") {
    const json& reason = health.value("reason", json(nullptr));
    const std::string en = reason.is_object() ? reason.value("en", std::string()) : "";
    const std::string ru = reason.is_object() ? reason.value("ru", en) : en;
    out.push_back({-1, "health_unavailable", T("состояние карт не прочитано: " + ru, "GPU health unreadable: " + en)});
    return;
  }
  const json gpus = health.value("gpus", json::array());
  for (size_t k = 0; k < gpus.size(); ++k) {
    const json& gpu = gpus[k];
    const int index = gpu.value("index", static_cast<int>(k));
    json facts = gpu.value("facts", json::object());
    if (!facts.contains("xid_kernel_log")) facts["xid_kernel_log"] = CardKernelXids(gpu, health);
    Collector c{index, out, {}};
    if (gpu.contains("error")) c.Add("health_unavailable", Text(gpu["error"].get<std::string>()));
    Memory(c, facts);
    AddXidFindings(index, facts, expect, out, xids);
    AddRecoveryActionFindings(index, facts, out);
    Pcie(c, facts, k < specs.size() ? specs[k] : nullptr, expect);
    Settings(c, facts, expect);
    HealthFails(c, index, facts);
  }
}

}  // namespace labcheck::node_check
