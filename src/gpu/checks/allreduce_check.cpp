// interconnect.allreduce: NCCL all-reduce over every local GPU, as DDP does each step: the sweep
// of sizes, busbw as nccl-tests counts it, the bit-exact sum, NCCL's transport from its own log,
// the retry with NCCL_P2P_DISABLE=1, and the pre-flight findings that explain hangs.
#include <cmath>
#include <cstdlib>
#include <optional>
#include <filesystem>

#include <fmt/format.h>

#include "gpu/checks/gpu_check_list.h"
#include "gpu/checks/gpu_check_support.h"
#include "gpu/collective/allreduce_attempts.h"
#include "gpu/collective/preflight.h"
#include "gpu/job_envelope.h"
#include "gpu/jobs/gpu_jobs.h"
#include "reference/gpu_catalog.h"
#include "reference/hints.h"
#include "reference/pcie_link.h"
#include "reference/peer_link.h"

namespace labcheck::gpu {

namespace {

constexpr uint64_t kComparisonMaxBytes = 256ull << 20;
// One size that makes no progress this long is a hang: the child's own detector aborts NCCL and
// reports, well before the parent's timeout kills it. A timeout like the others, so it follows
// --timeout-scale (a slow board's 2 gives 60 s; the tests' 0.2 makes a simulated hang cost 6 s).
constexpr double kStallS = 30;

std::string MakeLogDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "lab_check_nccl_XXXXXX").string();
  char* made = mkdtemp(pattern.data());
  return made != nullptr ? std::string(made) : std::filesystem::temp_directory_path().string();
}

Text Describe(const AllReduceAttempt& a) {
  if (a.wrong_sum) return T("неверная сумма", "wrong sum");
  if (a.hung) return T("зависание", "hang");
  if (a.crashed) return T("процесс упал", "the process crashed");
  if (!a.nccl_error.empty()) return Text("NCCL: " + a.nccl_error);
  if (!a.process_error.empty()) return Text(a.process_error);
  return T("работает", "works");
}

void AddPreflightNotes(const Preflight& p, Table& table) {
  if (p.IommuRisk())
    table.notes.push_back(T("IOMMU включён с трансляцией адресов (" + (p.iommu_cmdline.empty() ? std::string("по умолчанию") : p.iommu_cmdline) +
                                "): P2P между картами может зависать; NCCL советует iommu=pt",
                            "the IOMMU translates addresses (" + (p.iommu_cmdline.empty() ? std::string("default") : p.iommu_cmdline) +
                                "): P2P between cards may hang; NCCL advises iommu=pt"));
  if (!p.acs_redirecting.empty())
    table.notes.push_back(Text(fmt::format("PCIe ACS redirect on {} bridge(s), e.g. {}: P2P goes through the root complex",
                                           p.acs_redirecting.size(), p.acs_redirecting.front().bdf)));
  if (p.bridges_unreadable > 0 && p.acs_redirecting.empty())
    table.notes.push_back(T("ACS не проверен: чтение PCI config требует root", "ACS not checked: reading PCI config needs root"));
  if (p.ShmTooSmall())
    table.notes.push_back(T(fmt::format("/dev/shm всего {:.2f} ГиБ: NCCL SHM может падать (в Docker: --shm-size=1g или --ipc=host)", *p.shm_gib),
                            fmt::format("/dev/shm is only {:.2f} GiB: NCCL's SHM transport may fail (Docker: --shm-size=1g or --ipc=host)", *p.shm_gib)));
}

// Busbw at `bytes` in one attempt's sweep; nullopt when it has no figure there.
std::optional<double> BusbwAt(const nlohmann::json& payload, uint64_t bytes) {
  for (const nlohmann::json& s : payload.value("sweep", nlohmann::json::object()).value("sizes", nlohmann::json::array()))
    if (s.value("bytes", 0ull) == bytes && s["busbw_gbps"].is_number()) return s["busbw_gbps"].get<double>();
  return std::nullopt;
}

// The comparison sweep with NCCL_P2P_DISABLE=1: a note with both figures, and the ratio when the
// path without P2P is clearly faster (by more than run-to-run noise), which the verdict reports.
std::optional<double> AddComparison(const AllReduceRun& run, CheckResult& result, Table& table) {
  if (!run.comparison) return std::nullopt;
  const AllReduceAttempt& c = *run.comparison;
  if (!c.ok()) {
    table.notes.push_back(Text("Для сравнения с NCCL_P2P_DISABLE=1: " + Describe(c).ru,
                               "For comparison, with NCCL_P2P_DISABLE=1: " + Describe(c).en));
    return std::nullopt;
  }
  // The largest size both sweeps measured (the comparison stops at 256 MiB).
  const nlohmann::json sizes = c.payload.value("sweep", nlohmann::json::object()).value("sizes", nlohmann::json::array());
  std::optional<double> with, without;
  uint64_t bytes = 0;
  for (auto s = sizes.rbegin(); s != sizes.rend(); ++s) {
    bytes = s->value("bytes", 0ull);
    with = BusbwAt(run.first.payload, bytes);
    without = BusbwAt(c.payload, bytes);
    if (with && without) break;
  }
  if (!with || !without || *with <= 0) return std::nullopt;
  result.Add({"nccl.allreduce_busbw_p2p_disabled_gbps",
              T("all-reduce с NCCL_P2P_DISABLE=1, bus bandwidth", "all-reduce with NCCL_P2P_DISABLE=1, bus bandwidth"), *without,
              "GB/s", T(fmt::format("{} МиБ, тот же проход с NCCL_P2P_DISABLE=1 ({})", bytes >> 20, TransportSummary(c.log)),
                        fmt::format("{} MiB, the same sweep with NCCL_P2P_DISABLE=1 ({})", bytes >> 20, TransportSummary(c.log)))});
  const double ratio = *without / *with;
  table.notes.push_back(T(fmt::format("Для сравнения с NCCL_P2P_DISABLE=1 ({}): busbw {} GB/s на {} МиБ, {:.2f}× от первой попытки",
                                      TransportSummary(c.log), Figure(*without), bytes >> 20, ratio),
                          fmt::format("For comparison, with NCCL_P2P_DISABLE=1 ({}): busbw {} GB/s at {} MiB, {:.2f}× the first attempt",
                                      TransportSummary(c.log), Figure(*without), bytes >> 20, ratio)));
  // 10 %: well above the few per cent two sweeps differ by on a quiet machine.
  if (ratio > 1.10) return ratio;
  return std::nullopt;
}

// The sweep, its retry with NCCL_P2P_DISABLE=1 and, in a full check, the comparison; NCCL's logs
// go to a folder removed afterwards.
AllReduceRun RunAttempts(CheckContext& context, const char* user_p2p) {
  const std::string log_dir = MakeLogDir();
  context.Progress(-1, "NCCL all-reduce");
  // Half the budget each, so the retry still fits when the first attempt hangs to its timeout.
  const double attempt_timeout = context.budget_s() / 2;
  // A full check also measures the NCCL_P2P_DISABLE=1 path when the first attempt works (unless the
  // user chose it already): it is the one setting a user can change, and only a measurement says
  // which way is faster on their board. Up to 256 MiB (the seed's ddp_check size, past DDP's 25 MiB
  // buckets), so the comparison costs a quarter of the full sweep.
  const bool compare = !context.options().quick && (user_p2p == nullptr || std::string(user_p2p) != "1");
  const std::string stall_s = fmt::format("{:g}", kStallS * context.options().timeout_scale);
  AllReduceLauncher compare_launch;
  if (compare)
    compare_launch = [&](const EnvList& env) {
      return RunGpuJob(context, kAllReduceCheck.job,
                       {"--max-bytes", std::to_string(kComparisonMaxBytes), "--stall-s", stall_s}, env, attempt_timeout);
    };
  AllReduceRun run = RunAllReduceWithRetry(
      [&](const EnvList& env) { return RunGpuJob(context, kAllReduceCheck.job, {"--stall-s", stall_s}, env, attempt_timeout); },
      log_dir, compare_launch);
  std::error_code ignored;
  std::filesystem::remove_all(log_dir, ignored);
  return run;
}

// The measurements of the sweep that worked: its largest size as DDP's figure, as nccl-tests
// times it, and 256 MiB as the seed's ddp_check.py.
void AddBusbw(const nlohmann::json& sizes, int ranks, CheckResult& result) {
  const nlohmann::json& last = sizes.back();
  result.Add({"nccl.allreduce_busbw_gbps", T("all-reduce, bus bandwidth", "all-reduce, bus bandwidth"),
              last.value("busbw_gbps", 0.0), "GB/s",
              T(fmt::format("{} GPU, {} МиБ, busbw = байты/время × 2(n−1)/n (nccl-tests), события CUDA, самый медленный ранг",
                            ranks, last.value("bytes", 0ull) >> 20),
                fmt::format("{} GPUs, {} MiB, busbw = bytes/time × 2(n−1)/n (nccl-tests), CUDA events, slowest rank",
                            ranks, last.value("bytes", 0ull) >> 20))});
  if (const nlohmann::json& host = last.value("busbw_gbps_nccl_tests", nlohmann::json()); host.is_number())
    result.Add({"nccl.allreduce_busbw_nccl_tests_gbps",
                T("all-reduce, bus bandwidth как в nccl-tests", "all-reduce, bus bandwidth as nccl-tests"),
                host.get<double>(), "GB/s",
                T(fmt::format("{} GPU, {} МиБ, часы хоста вокруг цикла итераций до синхронизации потока, как считает "
                              "all_reduce_perf",
                              ranks, last.value("bytes", 0ull) >> 20),
                  fmt::format("{} GPUs, {} MiB, host clock around the loop of iterations up to the stream "
                              "synchronise, as all_reduce_perf counts it",
                              ranks, last.value("bytes", 0ull) >> 20))});
  for (const nlohmann::json& s : sizes)
    if (s.value("bytes", 0ull) == 256ull << 20)
      result.Add({"nccl.allreduce_busbw_256mib_gbps", T("all-reduce 256 МиБ, bus bandwidth", "all-reduce 256 MiB, bus bandwidth"),
                  s.value("busbw_gbps", 0.0), "GB/s",
                  T("как в ddp_check.py: 256 МиБ, busbw = байты/время × 2(n−1)/n", "as ddp_check.py: 256 MiB, busbw = bytes/time × 2(n−1)/n")});
}

// The table of sizes from the attempt that worked (none: the table has only its notes).
Table SweepTable(const AllReduceAttempt* good, int ranks, CheckResult& result) {
  Table table{T("All-reduce (NCCL), float32", "All-reduce (NCCL), float32"),
              {T("Размер, МиБ", "Size, MiB"), T("Время, мс", "Time, ms"), "algbw, GB/s", "busbw, GB/s",
               T("busbw как в nccl-tests, GB/s", "busbw as nccl-tests, GB/s"), T("Сумма", "Sum")}};
  if (good == nullptr) return table;
  auto figure = [](const nlohmann::json& v) { return Text(v.is_number() ? Figure(v.get<double>()) : "—"); };
  const nlohmann::json sizes = good->payload["sweep"].value("sizes", nlohmann::json::array());
  for (const nlohmann::json& s : sizes) {
    table.AddRow({Text(std::to_string(s.value("bytes", 0ull) >> 20)), Text(Figure(s.value("time_ms", 0.0))),
                  Text(Figure(s.value("algbw_gbps", 0.0))), figure(s.value("busbw_gbps", nlohmann::json())),
                  figure(s.value("busbw_gbps_nccl_tests", nlohmann::json())),
                  s.value("correct", false) ? Text("OK") : T("НЕВЕРНО", "WRONG")});
  }
  if (!sizes.empty() && ranks > 1) AddBusbw(sizes, ranks, result);
  table.notes.push_back(T("busbw: время по событиям CUDA на потоке каждой карты, медленнейшая карта; «как в nccl-tests»: "
                          "часы процесса от первого запуска до завершения всех потоков, как считает all_reduce_perf "
                          "(в него входят задержки запуска и ожидания)",
                          "busbw: CUDA-event time on each card's stream, the slowest card; 'as nccl-tests': the "
                          "process's host clock from the first launch until every stream is done, as all_reduce_perf "
                          "counts it (launch and wait overheads included)"));
  table.notes.push_back(PayloadMethod(good->payload));
  table.notes.push_back(T("Транспорт NCCL: " + TransportSummary(good->log), "NCCL transport: " + TransportSummary(good->log)));
  return table;
}

// What each attempt did, under the table.
void NoteAttempts(const AllReduceRun& run, int ranks, Table& table) {
  if (ranks == 1)
    table.notes.push_back(T("одна видеокарта: данные никуда не передаются, поэтому bus bandwidth не имеет смысла",
                            "one GPU: nothing crosses a link, so bus bandwidth has no meaning"));
  table.notes.push_back(Text("Первая попытка: " + Describe(run.first).ru, "First attempt: " + Describe(run.first).en));
  if (run.retry)
    table.notes.push_back(Text("С NCCL_P2P_DISABLE=1: " + Describe(*run.retry).ru, "With NCCL_P2P_DISABLE=1: " + Describe(*run.retry).en));
}

// The least a ring of these cards is rated for, whatever path NCCL takes: every pair through host
// memory over the slower card's rated PCIe link, the two copies one after the other (the low edge
// of reference/peer_link.h's host band). NVLink or P2P only raise it. From the catalog, never from
// a measured copy: a card on a slow riser must not lower its own reference (issue 38).
struct RatedFloor {
  double gbps = 0;
  Text basis;
};
std::optional<RatedFloor> RatedRingFloor(const CheckContext& context) {
  const reference::GpuCatalog& catalog = reference::GpuCatalog::Builtin();
  std::vector<reference::PeerCard> cards;
  for (int i = 0; const nlohmann::json* gpu = InventoryGpu(context, i); ++i) {
    reference::PeerCard card;
    if (gpu->contains("name") && (*gpu)["name"].is_string())
      card.spec = catalog.Match((*gpu)["name"].get<std::string>(), gpu->value("memory_total_gib", 0.0));
    if (card.spec == nullptr) return std::nullopt;  // an unknown card: no rating to hold it to
    cards.push_back(card);
  }
  std::optional<RatedFloor> floor;
  for (size_t a = 0; a < cards.size(); ++a)
    for (size_t b = 0; b < cards.size(); ++b) {
      if (a == b) continue;
      const reference::PeerExpectation host = reference::ExpectPeerCopy(reference::PeerLink{}, cards[a], cards[b], catalog);
      if (!host.band) return std::nullopt;
      if (!floor || host.band->low < floor->gbps) floor = RatedFloor{host.band->low, host.basis};
    }
  return floor;
}

// The card whose link ran furthest below its rating while gpu.host_device_copy measured it: what
// explains a slow ring.
std::optional<reference::RanLink> SlowestCardLink(const CheckContext& context) {
  const CheckResult* copies = context.Earlier(kHostDeviceCopyCheck.id);
  if (copies == nullptr || !copies->data.contains("gpus") || !copies->data["gpus"].is_array()) return std::nullopt;
  const reference::GpuCatalog& catalog = reference::GpuCatalog::Builtin();
  std::vector<reference::RanLink> links;
  for (const nlohmann::json& g : copies->data["gpus"]) {
    const int i = g.value("index", -1);
    const nlohmann::json* gpu = InventoryGpu(context, i);
    const nlohmann::json nvml = g.value("h2d_pinned", nlohmann::json::object()).value("nvml", nlohmann::json::object());
    if (gpu == nullptr || !gpu->contains("name") || !(*gpu)["name"].is_string()) continue;
    const reference::GpuSpec* spec = catalog.Match((*gpu)["name"].get<std::string>(), gpu->value("memory_total_gib", 0.0));
    if (spec == nullptr || !nvml.value("pcie_gen_under_load", nlohmann::json()).is_number() ||
        !nvml.value("pcie_width_under_load", nlohmann::json()).is_number())
      continue;
    links.push_back({i, nvml["pcie_gen_under_load"].get<int>(), nvml["pcie_width_under_load"].get<int>(), true,
                     spec->pcie_gen, spec->pcie_width});
  }
  return reference::SlowestBelowRating(links);
}

// A working ring 2× or more below the least its cards are rated for: WARN, the link that explains
// it named when the copies saw one.
void JudgeAgainstRating(const CheckContext& context, CheckResult& result) {
  const Measurement* busbw = result.Find("nccl.allreduce_busbw_gbps");
  const std::optional<RatedFloor> floor = RatedRingFloor(context);
  if (busbw == nullptr || !floor || busbw->value > kFarBelow * floor->gbps) return;
  result.outcome = Outcome::Warn;
  result.reason = T(fmt::format("busbw {} ГБ/с — в 2 раза и больше ниже наименьшего, на что рассчитаны карты: {} ГБ/с ({})",
                                Figure(busbw->value), Figure(floor->gbps), floor->basis.ru),
                    fmt::format("busbw {} GB/s is 2× or more below the least these cards are rated for: {} GB/s ({})",
                                Figure(busbw->value), Figure(floor->gbps), floor->basis.en));
  if (const std::optional<reference::RanLink> link = SlowestCardLink(context)) {
    const Text bound = reference::DescribeLinkBelowRating(*link);
    result.hint = T("упирается в " + bound.ru + ": поставьте карту в слот x16 без райзера или проверьте настройку PCIe в BIOS",
                    "bound by " + bound.en + ": seat the card in an x16 slot without the riser or check the PCIe setting in the BIOS");
  } else {
    result.hint = T("посмотрите скорость CPU↔GPU каждой карты (gpu.host_device_copy) и nvidia-smi -q -d PCIE: медленная связь одной "
                    "карты тормозит всё кольцо",
                    "look at each card's CPU↔GPU speed (gpu.host_device_copy) and nvidia-smi -q -d PCIE: one card's slow link "
                    "slows the whole ring");
  }
}

// The first attempt worked: PASS, or WARN when the path without P2P was clearly faster or the ring
// is far below its cards' rating.
void PassVerdict(const CheckContext& context, const AllReduceAttempt& good, const Preflight& preflight,
                 std::optional<double> faster_without_p2p, CheckResult& result) {
  result.outcome = Outcome::Pass;
  const Measurement* busbw = result.Find("nccl.allreduce_busbw_gbps");
  result.summary = busbw ? Text(fmt::format("busbw {} GB/s, {}", Figure(busbw->value), TransportSummary(good.log)))
                         : T("работает (одна карта)", "works (one GPU)");
  if (!faster_without_p2p) {
    JudgeAgainstRating(context, result);
    return;
  }
  const int percent = static_cast<int>(std::lround((*faster_without_p2p - 1) * 100));
  result.outcome = Outcome::Warn;
  if (const Measurement* without = result.Find("nccl.allreduce_busbw_p2p_disabled_gbps"))
    result.summary = T(result.summary.ru + fmt::format("; с NCCL_P2P_DISABLE=1 {} GB/s", Figure(without->value)),
                       result.summary.en + fmt::format("; with NCCL_P2P_DISABLE=1 {} GB/s", Figure(without->value)));
  result.reason = T(fmt::format("с NCCL_P2P_DISABLE=1 all-reduce на {}% быстрее: путь P2P на этой плате медленнее, чем через память процессора", percent),
                    fmt::format("all-reduce is {}% faster with NCCL_P2P_DISABLE=1: the P2P path on this board is slower than going through host memory", percent));
  // The pre-flight's notes say what it found; without findings, where P2P usually loses.
  const bool noted = preflight.IommuRisk() || !preflight.acs_redirecting.empty();
  result.hint = noted ? T("export NCCL_P2P_DISABLE=1 перед обучением (в ~/.bashrc или в скрипте запуска); причина — в примечаниях к таблице (IOMMU, ACS)",
                          "export NCCL_P2P_DISABLE=1 before training (in ~/.bashrc or the launch script); the table's notes say why (IOMMU, ACS)")
                      : T("export NCCL_P2P_DISABLE=1 перед обучением (в ~/.bashrc или в скрипте запуска); P2P обычно теряет на "
                          "PCIe ACS (выключите в BIOS) и трансляции IOMMU (параметр ядра iommu=pt)",
                          "export NCCL_P2P_DISABLE=1 before training (in ~/.bashrc or the launch script); P2P usually loses to "
                          "PCIe ACS (turn it off in the BIOS) and IOMMU translation (kernel parameter iommu=pt)");
}

// The first attempt failed: WARN when the retry worked, FAIL when neither did.
void FailureVerdict(const AllReduceRun& run, const AllReduceAttempt* good, CheckResult& result) {
  if (good != nullptr) {
    result.outcome = Outcome::Warn;
    result.reason = T("all-reduce работает только с NCCL_P2P_DISABLE=1 (" + Describe(run.first).ru + " без него)",
                      "all-reduce works only with NCCL_P2P_DISABLE=1 (" + Describe(run.first).en + " without)");
    result.hint = hint::Action(hint::kNcclHang);
    return;
  }
  result.outcome = Outcome::Fail;
  const bool wrong = run.first.wrong_sum || (run.retry && run.retry->wrong_sum);
  result.reason = wrong ? T("all-reduce вернул неверную сумму", "all-reduce returned a wrong sum")
                        : Text("all-reduce: " + Describe(run.first).ru, "all-reduce: " + Describe(run.first).en);
  result.hint = hint::Action(wrong ? hint::kWrongSum : hint::kNcclHang);
  result.error = run.first.process_error.empty() ? run.first.log.last_line : run.first.process_error;
}

// No GPU, or one: nothing crosses a link, so there is no all-reduce to judge (as gpu.p2p).
std::optional<CheckResult> SkipBeforeRunning(const CheckContext& context) {
  if (auto skip = SkipWithoutGpus(context, kAllReduceCheck.id)) return skip;
  return SkipWithOneGpu(context, kAllReduceCheck.id,
                        T("одна видеокарта: all-reduce нечего передавать между картами, bus bandwidth не имеет смысла",
                          "one GPU: an all-reduce has nothing to pass between cards, bus bandwidth has no meaning"));
}

CheckResult RunAllReduceCheck(CheckContext& context) {
  if (std::optional<CheckResult> skip = SkipBeforeRunning(context)) return *skip;
  const Preflight preflight = ReadPreflight("/", "/dev/shm");
  const char* user_p2p = std::getenv("NCCL_P2P_DISABLE");
  const AllReduceRun run = RunAttempts(context, user_p2p);
  if (run.skipped) {
    CheckResult skipped = Skipped(kAllReduceCheck.id, TextFromJson((*run.skipped)["reason"]), TextFromJson((*run.skipped)["hint"]));
    skipped.error = run.skipped->value("error", std::string());
    return skipped;
  }
  CheckResult result;
  result.data = run.first.ToJson();
  result.data["preflight"] = preflight.ToJson();
  result.data["p2p_disable_retry"] = run.retry ? run.retry->ToJson() : nlohmann::json(nullptr);
  result.data["p2p_disabled_comparison"] = run.comparison ? run.comparison->ToJson() : nlohmann::json(nullptr);
  if (user_p2p != nullptr) result.data["user_nccl_p2p_disable"] = user_p2p;
  const AllReduceAttempt* good = run.first.ok() ? &run.first : (run.retry && run.retry->ok() ? &*run.retry : nullptr);
  const int ranks = (good ? good->payload : run.first.payload).value("ranks", 0);
  result.data["ranks"] = ranks;

  Table table = SweepTable(good, ranks, result);
  NoteAttempts(run, ranks, table);
  const std::optional<double> faster_without_p2p = AddComparison(run, result, table);
  AddPreflightNotes(preflight, table);
  result.tables.push_back(table);
  result.Add({"nccl.allreduce_ok", T("all-reduce: сумма верна", "all-reduce: the sum is right"), good != nullptr ? 1.0 : 0.0, "0/1",
              T("побитовое сравнение с точной суммой, не зависящей от порядка", "bit-exact comparison with an order-independent exact sum")});
  if (good == &run.first)
    PassVerdict(context, *good, preflight, faster_without_p2p, result);
  else
    FailureVerdict(run, good, result);
  return result;
}

}  // namespace

const GpuCheckSpec kAllReduceCheck = {
    .id = "interconnect.allreduce",
    .section = "interconnect",
    .title = T("All-reduce через NCCL", "All-reduce through NCCL"),
    .quick = QuickMode::Shortened,
    .distributed = true,
    .budget_s = 480,
    .job = kAllReduceJob,
    .job_fn = AllReduceJob,
    .run = RunAllReduceCheck,
    .reads = {&kInventoryCheck, &kHostDeviceCopyCheck},
};

}  // namespace labcheck::gpu
