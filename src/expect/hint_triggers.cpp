#include "expect/hint_triggers.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "facts/statements.h"

namespace labcheck::expect {
namespace {

using nlohmann::json;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The check's reason and raw error, lower case, for matching error messages.
std::string CheckText(const CheckResult& c) { return Lower(c.reason.ru + " " + c.reason.en + " " + c.error); }

bool Mentions(const std::string& text, std::initializer_list<const char*> needles) {
  return std::any_of(needles.begin(), needles.end(), [&](const char* n) { return text.find(n) != std::string::npos; });
}

// A SKIP that installing a package can fix: the probe said the package is missing (data.probe
// {reason: "package_missing", package}) from an interpreter whose torch imports. A SKIP or FAIL
// without the probe's word (the interpreter did not start, an older report) gets no package advice.
bool PackageSkip(const CheckResult* c, const ReportFacts& facts, const char* package = nullptr) {
  if (c == nullptr || c->outcome != Outcome::Skip || !facts.run.torch.installed()) return false;
  if (!c->data.is_object() || !c->data.contains("probe") || !c->data["probe"].is_object()) return false;
  const json& probe = c->data["probe"];
  if (DataString(probe, "reason") != "package_missing") return false;
  return package == nullptr || DataString(probe, "package").empty() || DataString(probe, "package") == package;
}

// The course's two rows about cards PyTorch does not see, each where its action answers the cause:
// «GPU не найдены» (reinstall torch, update the driver) for a torch whose build has no CUDA or does
// not run on this driver; «меньше 4 карт» (CUDA_VISIBLE_DEVICES, nvidia-smi) for cards the variable
// hides from a CUDA torch. A torch that is missing or does not start is env.python's to say.
void GpuCountHints(const ReportFacts& facts, const CourseReference& course, std::vector<TriggeredHint>& out) {
  const facts::RunFacts& run = facts.run;
  const int driver_count = run.cards.DriverCount();
  if (!run.cards.inventory_ran || driver_count == 0) return;
  const bool cuda_torch_blind = run.torch.state == facts::TorchState::Cuda && run.cards.cuda_ok && run.torch.sees == 0;
  if (run.torch.state == facts::TorchState::NoCuda || cuda_torch_blind) {
    const Text why = facts::WhyTorchHasNoGpu(run).value_or(Text());
    out.push_back({hint::kNoGpuSeen,
                   T(fmt::format("драйвер (nvidia-smi) видит {} GPU; {}", driver_count, why.ru),
                     fmt::format("the driver (nvidia-smi) sees {} GPU(s); {}", driver_count, why.en)),
                   "env.python"});
    return;
  }
  if (run.cards.visible_devices && run.cards.SomeHidden() && run.torch.state == facts::TorchState::Cuda) {
    out.push_back({hint::kFewerGpus, *facts::WhyFewerGpus(run.cards), "gpu.inventory"});
    return;
  }
  // The course machine has four cards; fewer in the driver itself, with nothing hiding any.
  if (!facts.gpus.empty() && course.IsCourseGpu(facts.gpus.front().spec().id) && driver_count < course.course_gpu_count &&
      !run.cards.SomeHidden()) {
    out.push_back({hint::kFewerGpus,
                   T(fmt::format("видно {} из {} карт машины курса", driver_count, course.course_gpu_count),
                     fmt::format("{} of the course machine's {} cards are visible", driver_count,
                                 course.course_gpu_count)),
                   "gpu.inventory"});
  }
}

void AllreduceHints(const Report& report, const ReportFacts& facts, const std::vector<ExpectationRow>& rows,
                    std::vector<TriggeredHint>& out) {
  for (const ExpectationRow& row : rows) {
    if (row.id != "allreduce") continue;
    if (row.failure && row.failure->en == "wrong sum") {
      out.push_back({hint::kWrongSum, T("all-reduce: неверная сумма", "all-reduce: wrong sum"), "interconnect.allreduce"});
    } else if (row.failure) {
      out.push_back({hint::kNcclHang, T("all-reduce: " + row.failure->ru, "all-reduce: " + row.failure->en),
                     "interconnect.allreduce"});
    } else if (row.worst && row.worst->level == Level::OffLow) {
      // Slow, not hung: the hang advice (NCCL_P2P_DISABLE, IOMMU) does not answer it. A link below
      // its rating does (the slot, the riser, the BIOS); without one, the deviation is the authors'.
      const auto link = SlowestLinkBelowRating(facts);
      if (!link) continue;
      const Text against = row.course_machine ? T("W из уроков", "the lessons' W")
                                              : T("того, что позволяет самая медленная связь кольца",
                                                  "what the ring's slowest link allows");
      const Text bound = reference::DescribeLinkBelowRating(*link);
      out.push_back({hint::kPcieGen3,
                     T("all-reduce " + row.measured.ru + " ГБ/с — в 2 раза и больше ниже " + against.ru + "; упирается в " + bound.ru,
                       "all-reduce " + row.measured.en + " GB/s: 2× or more below " + against.en + "; bound by " + bound.en),
                     "interconnect.allreduce"});
    }
  }
  for (const char* id : {"smoke.ddp", "smoke.fsdp2"}) {
    const CheckResult* c = FindCheck(report, id);
    if (c == nullptr || c->outcome != Outcome::Fail) continue;
    if (Mentions(CheckText(*c), {"nccl", "timeout", "timed out", "hang", "завис"})) {
      out.push_back({hint::kNcclHang, T(std::string(id) + ": FAIL (NCCL)", std::string(id) + ": FAIL (NCCL)"), id});
    }
  }
}

void MatmulHints(const ReportFacts& facts, const std::vector<ExpectationRow>& rows, std::vector<TriggeredHint>& out) {
  for (const ExpectationRow& row : rows) {
    if (row.id.rfind("matmul_", 0) != 0 || !row.worst || row.worst->ratio >= 1) continue;
    std::vector<std::string> reasons;
    for (const Reading& r : row.readings) {
      for (const GpuFacts& g : facts.gpus) {
        if (g.index != r.gpu) continue;
        for (const auto& reason : g.clock_event_reasons) {
          if (IsThrottling(reason) && std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) {
            reasons.push_back(reason);
          }
        }
      }
    }
    // Far below (2×) always; merely below with a throttling reason read during the run too.
    const bool far_below = row.worst->level == Level::OffLow;
    const bool explained = row.worst->level == Level::Notable && !reasons.empty();
    if (!far_below && !explained) continue;
    double worst_value = 0;
    for (const Reading& r : row.readings) {
      if (r.where == row.worst_where) worst_value = r.value;
    }
    Text detail(fmt::format("{} {}: {} при ориентире {}", row.label.ru, row.worst_where, Num(worst_value),
                            row.band ? BandText(*row.band) : "—"),
                fmt::format("{} {}: {} against {}", row.label.en, row.worst_where, Num(worst_value),
                            row.band ? BandText(*row.band) : "—"));
    if (!reasons.empty()) {
      std::vector<std::string> ru, en;
      for (const auto& r : reasons) {
        ru.push_back(ClockReasonText(r).ru);
        en.push_back(ClockReasonText(r).en);
      }
      detail.ru += fmt::format("; причина снижения частот во время замера: {}", fmt::join(ru, ", "));
      detail.en += fmt::format("; clock-event reason read during the run: {}", fmt::join(en, ", "));
    }
    out.push_back({hint::kMatmulSlow, detail, row.id});
  }
}

void PcieHints(const ReportFacts& facts, const CourseReference& course, const reference::GpuCatalog& catalog,
               const std::vector<ExpectationRow>& rows, std::vector<TriggeredHint>& out) {
  // "About 12–13": the Gen3 x16 / Gen4 x8 band plus the course's normal deviation.
  const auto gen3 = catalog.Pcie(3, 16);
  if (!gen3) return;
  const double about_gen3 = gen3->practice_gbps.high * (1 + course.normal_within);
  for (const ExpectationRow& row : rows) {
    if ((row.id != "h2d" && row.id != "d2h") || !row.band || row.band->low <= about_gen3) continue;
    for (const Reading& r : row.readings) {
      if (r.value > about_gen3) continue;
      const char* dir = row.id == "h2d" ? "CPU→GPU" : "GPU→CPU";
      out.push_back({hint::kPcieGen3,
                     T(fmt::format("{}: {} {} ГБ/с при ориентире {}", r.where, dir, Num(r.value), BandText(*row.band)),
                       fmt::format("{}: {} {} GB/s against {}", r.where, dir, Num(r.value), BandText(*row.band))),
                     row.id});
      return;  // one is enough: the advice is the same for every card
    }
  }
  // NVML may say it outright: the link ran (under load, else at the driver's maximum) below what
  // the card is rated for.
  if (const auto link = SlowestLinkBelowRating(facts)) {
    out.push_back({hint::kPcieGen3, reference::DescribeLinkBelowRating(*link),
                   link->under_load ? "gpu.host_device_copy" : "gpu.inventory"});
  }
}

void SmokeHints(const Report& report, const ReportFacts& facts, std::vector<TriggeredHint>& out) {
  auto skipped = [](const char* id) { return T(std::string(id) + ": SKIP", std::string(id) + ": SKIP"); };
  for (const char* id : {"smoke.llama_train", "smoke.hf_llama", "smoke.lora"}) {
    if (PackageSkip(FindCheck(report, id), facts)) {
      out.push_back({hint::kLlamaLoraSkip, skipped(id), id});
      break;
    }
  }
  if (const CheckResult* q = FindCheck(report, "smoke.qlora")) {
    const bool broken = q->outcome == Outcome::Fail && facts.run.torch.installed() &&
                        Mentions(CheckText(*q), {"undefined symbol", "bitsandbytes"});
    if (broken || PackageSkip(q, facts, "bitsandbytes")) {
      out.push_back({hint::kBitsandbytes, Text(std::string("smoke.qlora: ") + OutcomeName(q->outcome)), "smoke.qlora"});
    }
  }
  for (const char* id : {"smoke.triton", "smoke.torch_compile"}) {
    const CheckResult* c = FindCheck(report, id);
    if (c != nullptr && c->outcome == Outcome::Fail && facts.run.torch.installed() &&
        Mentions(CheckText(*c), {"python.h", "compiler", "gcc", "cc1", "g++", "ld returned"})) {
      out.push_back({hint::kTritonCompiler, T(std::string(id) + ": FAIL (компилятор)", std::string(id) + ": FAIL (compiler)"), id});
      break;
    }
  }
  if (PackageSkip(FindCheck(report, "smoke.vllm"), facts)) {
    out.push_back({hint::kVllmSkip, skipped("smoke.vllm"), "smoke.vllm"});
  }
}

}  // namespace

bool IsThrottling(const std::string& reason) {
  return reason != "gpu_idle" && reason != "none" && reason != "applications_clocks_setting";
}

Text ClockReasonText(const std::string& reason) {
  if (reason == "power_cap" || reason == "sw_power_cap") return T("лимит мощности (power_cap)", "power limit (power_cap)");
  if (reason == "thermal" || reason == "sw_thermal_slowdown" || reason == "hw_thermal_slowdown") {
    return T("перегрев (" + reason + ")", "overheating (" + reason + ")");
  }
  if (reason == "hw_slowdown" || reason == "hw_power_brake_slowdown") {
    return T("аппаратное снижение частот: перегрев или питание (" + reason + ")",
             "hardware slowdown: heat or power supply (" + reason + ")");
  }
  return Text(reason);
}

std::vector<TriggeredHint> FindHints(const Report& report, const ReportFacts& facts,
                                     const CourseReference& course, const reference::GpuCatalog& catalog,
                                     const std::vector<ExpectationRow>& rows) {
  std::vector<TriggeredHint> out;
  GpuCountHints(facts, course, out);
  AllreduceHints(report, facts, rows, out);
  MatmulHints(facts, rows, out);
  PcieHints(facts, course, catalog, rows, out);
  SmokeHints(report, facts, out);
  // One entry per hint: the first trigger found is the most direct one.
  std::vector<TriggeredHint> unique;
  for (auto& h : out) {
    if (std::none_of(unique.begin(), unique.end(), [&](const TriggeredHint& u) { return u.id == h.id; })) {
      unique.push_back(std::move(h));
    }
  }
  return unique;
}

}  // namespace labcheck::expect
