#include "gpu/health/health_verdicts.h"

#include "gpu/health/health_line_codes.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/gpu_label.h"
#include "core/gpu_rows.h"
#include "gpu/health/health_facts.h"
#include "gpu/health/health_line_codes.h"
#include "gpu/health/xid_watch.h"
#include "gpu/health/xid_catalog.h"
#include "reference/hints.h"

namespace labcheck::gpu::health {

namespace {

using nlohmann::json;

// Retired pages: NVIDIA's limit is 64 per card; near it the card is due for replacement
// (https://docs.nvidia.com/deploy/dynamic-page-retirement/, "Page Retirement limit").
constexpr unsigned long long kRetiredPagesReplace = 60;
constexpr double kTemperatureMarginC = 10;  // idle within 10 °C of the slowdown point: cooling problem
constexpr double kOtherProcessWarnGiB = 0.5;  // a desktop compositor holds a few hundred MiB: not a finding

struct Lines {
  int gpu;
  std::string smi_id;  // what `nvidia-smi -i` takes for this card: its bus id (core/gpu_label.h)
  std::vector<HealthLine> out;
  void Add(std::string item, Text label, Outcome status, Text value, Text hint = {}) {
    out.push_back({gpu, std::move(item), std::move(label), status, false, std::move(value), std::move(hint)});
  }
  // n/a when the field says so; returns true then.
  bool NotAvailable(const std::string& item, const Text& label, const json& field) {
    if (field.is_null()) {
      out.push_back({gpu, item, label, Outcome::Pass, true, T("нет данных", "no data"), {}});
      return true;
    }
    if (!IsNotAvailable(field)) return false;
    out.push_back({gpu, item, label, Outcome::Pass, true, Text(field.value("na", std::string("n/a"))), {}});
    return true;
  }
};

const json& Get(const json& facts, const char* key) {
  static const json kNull;
  auto it = facts.find(key);
  return it == facts.end() ? kNull : *it;
}

unsigned long long Count(const json& field) { return field.is_number() ? field.get<unsigned long long>() : 0; }

Text ResetHint(const std::string& smi_id) {
  return T(fmt::format("перезагрузите машину или сбросьте карту без нагрузки: sudo nvidia-smi -r -i {}", smi_id),
           fmt::format("reboot, or reset the idle card: sudo nvidia-smi -r -i {}", smi_id));
}
const Text kReplaceHint = T("карта теряет память: сохраните отчёт и обратитесь к продавцу (гарантия, RMA)",
                            "the card is losing memory: keep this report and contact the seller (warranty, RMA)");

void Ecc(Lines& l, const json& f) {
  const Text label = T("ECC: неисправленные ошибки", "ECC: uncorrected errors");
  const json& mode = Get(f, "ecc_mode");
  if (mode.is_boolean() && !mode.get<bool>()) {
    l.Add("ecc_uncorrected", label, Outcome::Pass, T("ECC выключен", "ECC is off"));
    return;
  }
  const json& vol = Get(f, "ecc_uncorrected_volatile");
  const json& agg = Get(f, "ecc_uncorrected_aggregate");
  if (!l.NotAvailable("ecc_uncorrected", label, vol)) {
    const std::string life = agg.is_number() ? fmt::format(", {} over the card's life", Count(agg)) : "";
    const std::string life_ru = agg.is_number() ? fmt::format(", {} за всю жизнь карты", Count(agg)) : "";
    const Text value(fmt::format("{} с загрузки драйвера{}", Count(vol), life_ru),
                     fmt::format("{} since the driver loaded{}", Count(vol), life));
    if (Count(vol) > 0) l.Add("ecc_uncorrected", label, Outcome::Fail, value, kReplaceHint);
    else if (Count(agg) > 0)
      l.Add("ecc_uncorrected", label, Outcome::Warn, value,
            T("раньше были неисправимые ошибки памяти: следите, растёт ли счётчик (nvidia-smi -q -d ECC)",
              "uncorrectable memory errors happened before: watch whether the count grows (nvidia-smi -q -d ECC)"));
    else l.Add("ecc_uncorrected", label, Outcome::Pass, value);
  }
  const Text clabel = T("ECC: исправленные ошибки", "ECC: corrected errors");
  const json& cvol = Get(f, "ecc_corrected_volatile");
  const json& cagg = Get(f, "ecc_corrected_aggregate");
  if (!l.NotAvailable("ecc_corrected", clabel, cvol)) {
    // Corrected errors are what ECC is for; a count alone is not a fault (page retirement and row
    // remapping below say when it becomes one).
    l.Add("ecc_corrected", clabel, Outcome::Pass,
          Text(fmt::format("{} с загрузки драйвера{}", Count(cvol), cagg.is_number() ? fmt::format(", {} всего", Count(cagg)) : ""),
               fmt::format("{} since the driver loaded{}", Count(cvol), cagg.is_number() ? fmt::format(", {} in total", Count(cagg)) : "")));
  }
}

void RetiredPages(Lines& l, const json& f) {
  const Text label = T("Изъятые страницы памяти", "Retired memory pages");
  const json& sbe = Get(f, "retired_pages_single_bit");
  const json& dbe = Get(f, "retired_pages_double_bit");
  const json& pending = Get(f, "retired_pages_pending");
  if (l.NotAvailable("retired_pages", label, dbe)) return;
  const unsigned long long total = Count(sbe) + Count(dbe);
  const bool is_pending = pending.is_boolean() && pending.get<bool>();
  const Text value(fmt::format("{} (одиночные ошибки: {}, двойные: {}){}", total, Count(sbe), Count(dbe), is_pending ? ", ждут сброса" : ""),
                   fmt::format("{} (single-bit: {}, double-bit: {}){}", total, Count(sbe), Count(dbe), is_pending ? ", pending a reset" : ""));
  if (total >= kRetiredPagesReplace) l.Add("retired_pages", label, Outcome::Fail, value, kReplaceHint);
  else if (is_pending) l.Add("retired_pages", label, Outcome::Warn, value, ResetHint(l.smi_id));
  else if (Count(dbe) > 0)
    l.Add("retired_pages", label, Outcome::Warn, value,
          T("были двойные ошибки памяти: следите за счётчиком (nvidia-smi -q -d PAGE_RETIREMENT)",
            "double-bit memory errors happened: watch the count (nvidia-smi -q -d PAGE_RETIREMENT)"));
  else l.Add("retired_pages", label, Outcome::Pass, value);
}

void RemappedRows(Lines& l, const json& f) {
  const Text label = T("Замена строк памяти (row remapping)", "Memory row remapping");
  const json& r = Get(f, "remapped_rows");
  if (l.NotAvailable("remapped_rows", label, r)) return;
  const bool pending = r.value("pending", false), failed = r.value("failed", false);
  const unsigned long long corrected = r.value("corrected", 0ull), uncorrected = r.value("uncorrected", 0ull);
  const Text value(fmt::format("исправимые: {}, неисправимые: {}{}{}", corrected, uncorrected, pending ? ", ждёт сброса" : "",
                               failed ? ", замена не удалась" : ""),
                   fmt::format("correctable: {}, uncorrectable: {}{}{}", corrected, uncorrected, pending ? ", pending a reset" : "",
                               failed ? ", a remap failed" : ""));
  if (failed) l.Add("remapped_rows", label, Outcome::Fail, value, kReplaceHint);
  else if (pending) l.Add("remapped_rows", label, Outcome::Warn, value, ResetHint(l.smi_id));
  else if (uncorrected > 0)
    l.Add("remapped_rows", label, Outcome::Warn, value,
          T("строки заменены из-за неисправимых ошибок: следите за счётчиком (nvidia-smi -q -d ROW_REMAPPER)",
            "rows were remapped after uncorrectable errors: watch the count (nvidia-smi -q -d ROW_REMAPPER)"));
  else l.Add("remapped_rows", label, Outcome::Pass, value);
}

// "79 (GPU has fallen off the bus), 13 (Graphics Engine Exception)": the catalog's meaning beside
// each number, so a reader need not look it up.
Text XidList(const std::vector<int>& xids, const std::vector<std::string>& lines = {}) {
  Text s;
  for (size_t i = 0; i < xids.size(); ++i) {
    const Text one = XidWithMeaning(xids[i], i < lines.size() ? lines[i] : "");
    s = T(s.ru + (s.ru.empty() ? "" : ", ") + one.ru, s.en + (s.en.empty() ? "" : ", ") + one.en);
  }
  return s;
}

const Text kXidHint = T("расшифровка XID: https://docs.nvidia.com/deploy/xid-errors/; при повторах проверьте питание, "
                        "охлаждение и посадку карты, обновите драйвер",
                        "XID meanings: https://docs.nvidia.com/deploy/xid-errors/; if they repeat, check power, cooling and "
                        "the card's seating, update the driver");

void Xids(Lines& l, const json& f) {
  const Text label = T("XID во время проверки", "XIDs during the run");
  const json& during = Get(f, "xid_during_run");
  if (!l.NotAvailable("xid_during_run", label, during)) {
    std::vector<int> xids = during.get<std::vector<int>>();
    const bool hardware = std::any_of(xids.begin(), xids.end(), IsHardwareXid);
    if (xids.empty()) l.Add("xid_during_run", label, Outcome::Pass, T("нет", "none"));
    else l.Add("xid_during_run", label, hardware ? Outcome::Fail : Outcome::Warn, XidList(xids), kXidHint);
  }
  const Text klabel = T("XID в журнале ядра с загрузки", "XIDs in the kernel log since boot");
  const json& log = Get(f, "xid_kernel_log");
  if (!l.NotAvailable("xid_kernel_log", klabel, log)) {
    std::vector<int> xids;
    std::vector<std::string> lines;
    for (const json& x : log) {
      xids.push_back(x.value("xid", 0));
      lines.push_back(x.value("line", ""));
    }
    if (xids.empty()) l.Add("xid_kernel_log", klabel, Outcome::Pass, T("нет", "none"));
    else l.Add("xid_kernel_log", klabel, Outcome::Warn, XidList(xids, lines), kXidHint);
  }
}

void Pcie(Lines& l, const json& f) {
  const Text label = T("PCIe: повторы передачи (replay)", "PCIe replays");
  const json& count = Get(f, "pcie_replay_count");
  const json& growth = Get(f, "pcie_replay_growth");
  if (!l.NotAvailable("pcie_replay", label, count)) {
    const Text value(fmt::format("{}{}", Count(count), growth.is_number() ? fmt::format(", +{} под нагрузкой", Count(growth)) : ""),
                     fmt::format("{}{}", Count(count), growth.is_number() ? fmt::format(", +{} under load", Count(growth)) : ""));
    if (Count(growth) > 0)
      l.Add("pcie_replay", label, Outcome::Warn, value,
            T("ошибки на линии PCIe: переставьте карту, проверьте райзер и слот, в BIOS зафиксируйте поколение PCIe",
              "errors on the PCIe link: reseat the card, check the riser and slot, pin the PCIe generation in the BIOS"));
    else l.Add("pcie_replay", label, Outcome::Pass, value);
  }
  const Text dlabel = T("PCIe под нагрузкой", "PCIe link under load");
  const json& gen = Get(f, "pcie_gen_under_load");
  const json& width = Get(f, "pcie_width_under_load");
  const json& gen_max = Get(f, "pcie_gen_max");
  const json& width_max = Get(f, "pcie_width_max");
  if (l.NotAvailable("pcie_downtrain", dlabel, gen) || l.NotAvailable("pcie_downtrain", dlabel, gen_max)) return;
  const Text value(fmt::format("Gen{} x{} (максимум Gen{} x{})", Count(gen), Count(width), Count(gen_max), Count(width_max)),
                   fmt::format("Gen{} x{} (maximum Gen{} x{})", Count(gen), Count(width), Count(gen_max), Count(width_max)));
  const bool down = Count(gen) < Count(gen_max) || (width.is_number() && width_max.is_number() && Count(width) < Count(width_max));
  l.Add("pcie_downtrain", dlabel, down ? Outcome::Warn : Outcome::Pass, value, down ? hint::Action(hint::kPcieGen3) : Text());
}

void Modes(Lines& l, const json& f) {
  const Text plabel = T("Режим persistence", "Persistence mode");
  const json& persistence = Get(f, "persistence_mode");
  if (!l.NotAvailable("persistence_mode", plabel, persistence)) {
    // Off is the desktop default and costs only start-up time: a hint, not a warning.
    const bool on = persistence.get<bool>();
    l.Add("persistence_mode", plabel, Outcome::Pass, on ? T("включён", "on") : T("выключен", "off"),
          on ? Text() : T("первый вызов CUDA ждёт инициализации драйвера; чтобы не ждать: sudo nvidia-smi -pm 1",
                          "the first CUDA call waits for the driver to initialise; to avoid it: sudo nvidia-smi -pm 1"));
  }
  const Text wlabel = T("Лимит мощности", "Power limit");
  const json& limit = Get(f, "power_limit_w");
  const json& fallback = Get(f, "power_default_limit_w");
  if (!l.NotAvailable("power_limit", wlabel, limit)) {
    if (IsNotAvailable(fallback) || fallback.is_null()) {
      l.Add("power_limit", wlabel, Outcome::Pass, Text(fmt::format("{:.0f} W", limit.get<double>())));
    } else {
      const double w = limit.get<double>(), d = fallback.get<double>();
      const Text value(fmt::format("{:.0f} Вт (по умолчанию {:.0f} Вт)", w, d), fmt::format("{:.0f} W (default {:.0f} W)", w, d));
      if (w + 1 < d)
        l.Add("power_limit", wlabel, Outcome::Warn, value,
              T(fmt::format("лимит ниже штатного: карта медленнее паспорта. Если это не нарочно: sudo nvidia-smi -i {} -pl {:.0f}", l.smi_id, d),
                fmt::format("the limit is below the default, so the card runs slower than its datasheet. If not on purpose: "
                            "sudo nvidia-smi -i {} -pl {:.0f}", l.smi_id, d)));
      else l.Add("power_limit", wlabel, Outcome::Pass, value);
    }
  }
  const Text clabel = T("Режим вычислений", "Compute mode");
  const json& mode = Get(f, "compute_mode");
  if (!l.NotAvailable("compute_mode", clabel, mode)) {
    const std::string m = mode.get<std::string>();
    const Text fix = T(fmt::format("верните режим по умолчанию: sudo nvidia-smi -i {} -c DEFAULT", l.smi_id),
                       fmt::format("restore the default mode: sudo nvidia-smi -i {} -c DEFAULT", l.smi_id));
    if (m == "prohibited")
      l.Add("compute_mode", clabel, Outcome::Fail, T("PROHIBITED: CUDA-процессы запрещены", "PROHIBITED: no CUDA process may run"), fix);
    else if (m == "exclusive_process" || m == "exclusive_thread")
      l.Add("compute_mode", clabel, Outcome::Warn,
            T("EXCLUSIVE_PROCESS: второй процесс на карте не запустится (DDP-воркеры, vLLM рядом с обучением)",
              "EXCLUSIVE_PROCESS: a second process cannot use the card (DDP workers, vLLM beside training)"), fix);
    else l.Add("compute_mode", clabel, Outcome::Pass, Text(m == "default" ? "DEFAULT" : m));
  }
  const Text mlabel = T("MIG", "MIG");
  const json& mig = Get(f, "mig_mode");
  if (!l.NotAvailable("mig_mode", mlabel, mig)) {
    const bool current = mig.value("current", false), pending = mig.value("pending", false);
    if (current || pending != current)
      l.Add("mig_mode", mlabel, Outcome::Warn,
            current ? T("включён: процессы видят срезы карты, а не всю", "on: processes see slices of the card, not all of it")
                    : T("включится после сброса", "turns on after a reset"),
            T(fmt::format("для обучения на всей карте: sudo nvidia-smi -i {} -mig 0 и сброс карты", l.smi_id),
              fmt::format("to train on the whole card: sudo nvidia-smi -i {} -mig 0, then reset the card", l.smi_id)));
    else l.Add("mig_mode", mlabel, Outcome::Pass, T("выключен", "off"));
  }
}

void Processes(Lines& l, const json& f) {
  const Text label = T("Другие процессы на карте", "Other processes on the card");
  const json& procs = Get(f, "other_processes");
  if (l.NotAvailable("other_processes", label, procs)) return;
  double total = 0;
  std::string listed_ru, listed_en;
  bool host_pids = false;
  for (const json& p : procs) {
    const double gib = p["used_gib"].is_number() ? p["used_gib"].get<double>() : 0;
    total += gib;
    const bool host_pid = p.value("host_pid", false);
    host_pids = host_pids || host_pid;
    const std::string held = p["used_gib"].is_number() ? fmt::format(" {:.1f} GiB", gib) : "";
    const std::string name = p["name"].is_string() ? p["name"].get<std::string>() : "?";
    listed_ru += (listed_ru.empty() ? "" : ", ") + fmt::format("{} {}{}", p.value("pid", 0u), host_pid ? "(PID хоста)" : name, held);
    listed_en += (listed_en.empty() ? "" : ", ") + fmt::format("{} {}{}", p.value("pid", 0u), host_pid ? "(host PID)" : name, held);
  }
  // The driver gives host pids, which a container's PID namespace cannot name (pid_namespace.h).
  const Text where = host_pids ? T(". Процессы названы PID хоста: драйвер не знает пространств имён PID, и из контейнера их "
                                   "имён не видно; назовите их nvidia-smi на хосте (или запустите контейнер с --pid=host)",
                                   ". The processes are named by host PID: the driver does not know PID namespaces, and their "
                                   "names are not visible from a container; name them with nvidia-smi on the host (or run the "
                                   "container with --pid=host)")
                               : T("", "");
  if (procs.empty()) {
    l.Add("other_processes", label, Outcome::Pass, T("нет", "none"));
  } else if (total >= kOtherProcessWarnGiB || std::any_of(procs.begin(), procs.end(), [](const json& p) { return !p["used_gib"].is_number(); })) {
    l.Add("other_processes", label, Outcome::Warn,
          Text(fmt::format("{:.1f} GiB занято: {}", total, listed_ru), fmt::format("{:.1f} GiB held: {}", total, listed_en)),
          Text("замеры делят карту с ними и будут ниже; память для обучения меньше. Список: nvidia-smi; остановите их или "
                   "выберите другую карту (CUDA_VISIBLE_DEVICES)" + where.ru,
               "measurements share the card with them and come out lower, and training has less memory. List: nvidia-smi; stop "
               "them or pick another card (CUDA_VISIBLE_DEVICES)" + where.en));
  } else {
    l.Add("other_processes", label, Outcome::Pass, Text(listed_ru, listed_en));
  }
}

void IdleClocks(Lines& l, const json& f) {
  const Text label = T("Снижение частот в простое", "Clock events at idle");
  const json& reasons = Get(f, "clock_event_reasons_idle");
  if (l.NotAvailable("clock_events_idle", label, reasons)) return;
  std::vector<std::string> bad;
  for (const std::string& r : reasons.get<std::vector<std::string>>())
    if (r == "thermal" || r == "hw_thermal" || r == "hw_slowdown" || r == "hw_power_brake") bad.push_back(r);
  std::string shown;
  for (const json& r : reasons) shown += (shown.empty() ? "" : ", ") + r.get<std::string>();
  if (bad.empty()) l.Add("clock_events_idle", label, Outcome::Pass, Text(shown.empty() ? "—" : shown));
  else
    l.Add("clock_events_idle", label, Outcome::Warn, Text(shown),
          T("частоты снижены уже без нагрузки: перегрев или аппаратный сигнал (питание, разъём 12VHPWR). nvidia-smi -q -d "
            "PERFORMANCE покажет причину",
            "clocks are cut even at idle: overheating or a hardware signal (power, the 12VHPWR connector). nvidia-smi -q -d "
            "PERFORMANCE shows why"));
}

void Temperature(Lines& l, const json& f) {
  const Text label = T("Температура", "Temperature");
  const json& t = Get(f, "temperature_c");
  const json& slowdown = Get(f, "temperature_slowdown_c");
  if (l.NotAvailable("temperature", label, t)) return;
  if (IsNotAvailable(slowdown) || slowdown.is_null()) {
    l.Add("temperature", label, Outcome::Pass,
          Text(fmt::format("{} °C (порог снижения частот: n/a)", Count(t)), fmt::format("{} °C (slowdown threshold: n/a)", Count(t))));
    return;
  }
  const Text value(fmt::format("{} °C, порог снижения частот {} °C", Count(t), Count(slowdown)),
                   fmt::format("{} °C, slowdown threshold {} °C", Count(t), Count(slowdown)));
  if (Count(t) + kTemperatureMarginC >= Count(slowdown))
    l.Add("temperature", label, Outcome::Warn, value,
          T(fmt::format("карта горячая ещё до нагрузки: проверьте вентиляторы и обдув корпуса; ограничьте мощность: "
                        "sudo nvidia-smi -i {} -pl <ватты>", l.smi_id),
            fmt::format("the card is hot before any load: check the fans and case airflow; cap the power: "
                        "sudo nvidia-smi -i {} -pl <watts>", l.smi_id)));
  else l.Add("temperature", label, Outcome::Pass, value);
}

const char* StatusName(const HealthLine& line) { return line.na ? "N/A" : OutcomeName(line.status); }

}  // namespace

bool IsHardwareXid(int xid) {
  // NVIDIA's Xid catalog (data/xid_catalog.json): anything but RESTART_APP and IGNORE asks for a
  // reset, a reboot or support, so it is the card's (or the driver's) matter, not the program's.
  return LookUpXid(xid).cls != XidClass::Application;
}

std::vector<HealthLine> JudgeGpu(int index, const json& facts, const std::string& pci_bus_id) {
  Lines l{index, NvidiaSmiId(pci_bus_id), {}};
  Ecc(l, facts);
  RetiredPages(l, facts);
  RemappedRows(l, facts);
  Xids(l, facts);
  Pcie(l, facts);
  Modes(l, facts);
  Processes(l, facts);
  IdleClocks(l, facts);
  Temperature(l, facts);
  return l.out;
}

CheckResult JudgeHealth(const json& payload) {
  CheckResult result;
  result.outcome = Outcome::Pass;
  Table table{T("Состояние GPU (NVML)", "GPU health (NVML)"),
              {"GPU", T("Что", "Item"), T("Статус", "Status"), T("Значение", "Value"), T("Что делать", "What to do")},
              {},
              {T("N/A — драйвер или карта этого не сообщают (у GeForce нет ECC и замены строк); это не ошибка.",
                 "N/A — the driver or card does not report it (GeForce cards have no ECC or row remapping); not a fault.")}};
  json lines = json::array();
  std::vector<HealthLine> judged;
  std::optional<HealthLine> worst;  // the first FAIL, else the first WARN
  std::string worst_bus_id;
  int warn = 0, fail = 0;
  for (const json& gpu : payload.value("gpus", json::array())) {
    const int index = gpu.value("index", 0);
    json facts = gpu.value("facts", json::object());
    if (!facts.contains("xid_kernel_log") && payload.contains("xid_kernel_log")) {
      const json& log = payload["xid_kernel_log"];
      if (IsNotAvailable(log)) {
        facts["xid_kernel_log"] = log;
      } else {
        json mine = json::array();
        for (const json& x : log)
          if (SameGpu(x.value("pci", ""), gpu.value("pci_bus_id", ""))) mine.push_back(x);
        facts["xid_kernel_log"] = mine;
      }
    }
    const std::string bus_id = gpu.value("pci_bus_id", "");
    for (HealthLine& line : JudgeGpu(index, facts, bus_id)) {
      line.code = FindingCodeOfLine(line, facts);
      // The code leads the hint, so that the lab's report and the cluster's gate name a fault alike.
      if (!line.code.empty())
        line.hint = line.hint.empty() ? Text(line.code) : T(line.code + ": " + line.hint.ru, line.code + ": " + line.hint.en);
      judged.push_back(line);
      lines.push_back({{"gpu", index}, {"item", line.item}, {"status", StatusName(line)}, {"value", line.value.en},
                       {"hint", line.hint.en}, {"code", line.code.empty() ? json(nullptr) : json(line.code)}});
      if (!line.na && line.status == Outcome::Fail) ++fail;
      if (!line.na && line.status == Outcome::Warn) ++warn;
      if (!line.na && line.status != Outcome::Pass &&
          (!worst || (line.status == Outcome::Fail && worst->status != Outcome::Fail))) {
        worst = line;
        worst_bus_id = bus_id;
      }
    }
  }
  std::vector<GpuRow> rows;
  for (const HealthLine& line : judged)
    rows.push_back({line.item, line.gpu, {line.label, Text(StatusName(line)), line.value, line.hint}});
  AddRowsMergedByGpu(rows, static_cast<int>(payload.value("gpus", json::array()).size()), 0, table);
  result.tables.push_back(table);
  result.data = {{"gpus", payload.value("gpus", json::array())}, {"lines", lines}};
  if (payload.contains("xid_kernel_log")) result.data["xid_kernel_log"] = payload["xid_kernel_log"];
  result.summary = T(fmt::format("FAIL: {}, WARN: {}", fail, warn), fmt::format("FAIL: {}, WARN: {}", fail, warn));
  if (fail == 0 && warn == 0) result.summary = T("всё в порядке", "all fine");
  if (worst) {
    result.outcome = fail > 0 ? Outcome::Fail : Outcome::Warn;
    const std::string card = GpuLabel(worst->gpu, worst_bus_id);
    result.reason = Text(fmt::format("{}: {} — {}", card, worst->label.ru, worst->value.ru),
                         fmt::format("{}: {} — {}", card, worst->label.en, worst->value.en));
    result.hint = worst->hint;
  }
  return result;
}

}  // namespace labcheck::gpu::health
