// Machine-wide rows: P2P, GPU→GPU copies, all-reduce bus bandwidth and Llama training speed.
#include <regex>

#include <fmt/format.h>

#include "expect/expectation_rows.h"

namespace labcheck::expect {
namespace {

using reference::Band;

struct PairReading {
  int from = 0, to = 0;
  std::string key;
  double value = 0;
};

// p2p.{i}-{j}.access and p2p.{i}-{j}.copy_gbps, in report order.
std::vector<PairReading> PairReadings(const Report& report, const std::string& what) {
  static const std::regex kPairKey(R"(^p2p\.(\d+)-(\d+)\.(\w+)$)");
  std::vector<PairReading> out;
  for (const auto& check : report.checks) {
    for (const auto& m : check.measurements) {
      std::smatch match;
      if (std::regex_match(m.key, match, kPairKey) && match[3] == what) {
        out.push_back(PairReading{std::stoi(match[1]), std::stoi(match[2]), m.key, m.value});
      }
    }
  }
  return out;
}

ExpectationRow CourseWorded(const std::string& id, const CourseReference& course) {
  ExpectationRow row;
  row.id = id;
  if (const CourseRow* c = course.Row(id)) {
    row.label = c->label;
    row.what = c->what;
    row.reference = c->course_text;
  }
  return row;
}

bool AnyGeforce(const ReportFacts& facts) {
  for (const auto& g : facts.gpus) {
    if (g.spec().geforce) return true;
  }
  return false;
}

bool AllNvlink(const ReportFacts& facts) {
  if (facts.gpus.empty()) return false;
  for (const auto& g : facts.gpus) {
    if (!g.spec().nvlink_gbps) return false;
  }
  return true;
}

Text NeedsTwoGpus(const ReportFacts& facts) {
  if (facts.gpus.empty() && facts.usable_gpu_count() == 0) return T("нет GPU", "no GPU");
  return T("нужно минимум 2 GPU", "needs at least 2 GPUs");
}

Text NeedsGpu(const ReportFacts& facts) {
  return facts.gpus.empty() ? T("нет GPU", "no GPU") : T("PyTorch не видит GPU", "PyTorch sees no GPU");
}

ExpectationRow P2pRow(const Report& report, const ReportFacts& facts, const CourseReference& course) {
  ExpectationRow row = CourseWorded("p2p", course);
  const std::vector<PairReading> access = PairReadings(report, "access");
  if (!AnyGeforce(facts) && !facts.gpus.empty()) {
    row.reference = AllNvlink(facts) ? T("с NVLink — «да»", "with NVLink: “yes”")
                                     : T("зависит от платформы; без P2P обмен идёт через память процессора",
                                         "depends on the platform; without P2P data goes through host memory");
  }
  if (access.empty()) {
    row.measured = facts.usable_gpu_count() < 2 ? NeedsTwoGpus(facts) : MissingBecause(report, facts, "gpu.p2p");
    return row;
  }
  int yes = 0;
  for (const auto& a : access) yes += a.value > 0.5 ? 1 : 0;
  const std::string counts = fmt::format("{} из {} пар", yes, access.size());
  const std::string counts_en = fmt::format("{} of {} pairs", yes, access.size());
  if (yes == 0) {
    row.measured = T("нет (" + counts + ")", "no (" + counts_en + ")");
  } else if (yes == static_cast<int>(access.size())) {
    row.measured = T("да (" + counts + ")", "yes (" + counts_en + ")");
  } else {
    row.measured = T("частично (" + counts + ")", "partly (" + counts_en + ")");
  }
  if (AllNvlink(facts) && !AnyGeforce(facts) && yes < static_cast<int>(access.size())) {
    row.note = T("ожидался P2P через NVLink: посмотрите nvidia-smi topo -m", "P2P over NVLink was expected: look at nvidia-smi topo -m");
  }
  return row;
}

ExpectationRow GpuToGpuRow(const Report& report, const ReportFacts& facts, const CourseReference& course,
                           const reference::GpuCatalog& catalog) {
  ExpectationRow row = CourseWorded("gpu_to_gpu", course);
  bool all_access = true;
  for (const auto& a : PairReadings(report, "access")) all_access = all_access && a.value > 0.5;
  for (const auto& c : PairReadings(report, "copy_gbps")) {
    row.readings.push_back(Reading{fmt::format("GPU {}→{}", c.from, c.to), -1, c.key, c.value});
  }
  const CourseRow* course_row = course.Row("gpu_to_gpu");
  if (!facts.gpus.empty()) {
    const reference::GpuSpec& spec = facts.gpus.front().spec();
    row.gpu_model = spec.id;
    if (course.IsCourseGpu(spec.id) && course_row != nullptr && course_row->course_band) {
      row.band = course_row->course_band;
      row.course_machine = true;
    } else if (all_access && AllNvlink(facts) && !row.readings.empty()) {
      const double one_way = *spec.nvlink_gbps / 2;
      row.band = Band{one_way, one_way};
      row.reference = T(fmt::format("предел NVLink в одну сторону {} (паспорт: {} в обе стороны)", Num(one_way),
                                    Num(*spec.nvlink_gbps)),
                        fmt::format("NVLink limit one way {} (datasheet: {} both ways)", Num(one_way),
                                    Num(*spec.nvlink_gbps)));
    } else if (auto link = catalog.Pcie(spec.pcie_gen, spec.pcie_width)) {
      row.band = link->practice_gbps;
      row.reference = T(fmt::format("без P2P данные идут через память процессора и обычно не быстрее, чем "
                                    "CPU→GPU (на практике {})", BandText(link->practice_gbps)),
                        fmt::format("without P2P data goes through host memory and is usually no faster than "
                                    "CPU→GPU (in practice {})", BandText(link->practice_gbps)));
    }
  }
  const Text missing = facts.usable_gpu_count() < 2 ? NeedsTwoGpus(facts) : MissingBecause(report, facts, "gpu.p2p");
  FinishRow(row, course, missing);
  return row;
}

// What went wrong with all-reduce, in the row's words; nullopt when it worked at once. The first
// attempt's fields are top-level in the check's data, the retry's under p2p_disable_retry.
std::optional<Text> AllreduceFailure(const Report& report) {
  const CheckResult* check = FindCheck(report, "interconnect.allreduce");
  if (check == nullptr) return std::nullopt;
  if (AllreduceWrongSum(report)) return T("неверная сумма", "wrong sum");
  const auto& d = check->data;
  std::optional<Text> problem;
  if (DataFlag(d, "hung")) {
    problem = T("завис", "hung");
  } else if (DataFlag(d, "crashed")) {
    problem = T("процесс упал", "the process crashed");
  } else if (DataFlag(d, "nccl_error") || !DataString(d, "nccl_error").empty()) {
    problem = T("ошибка NCCL", "NCCL error");
  } else if (check->outcome == Outcome::Fail) {
    problem = T("не работает", "does not work");
  }
  // WARN: the retry with NCCL_P2P_DISABLE=1 worked; still worth flagging, the advice applies.
  if (problem && check->outcome == Outcome::Warn) {
    problem->ru += ", работает с NCCL_P2P_DISABLE=1";
    problem->en += ", works with NCCL_P2P_DISABLE=1";
  }
  return problem;
}

ExpectationRow AllreduceRow(const Report& report, const ReportFacts& facts, const CourseReference& course) {
  ExpectationRow row = CourseWorded("allreduce", course);
  const double w = course.allreduce_busbw_assumed_gbps;
  row.band = Band{w, w};
  row.course_machine = true;  // the lessons' W is the same for every machine
  if (auto busbw = MeasuredValue(report, "nccl.allreduce_busbw_gbps")) {
    row.readings.push_back(Reading{"", -1, "nccl.allreduce_busbw_gbps", *busbw});
  }
  row.failure = AllreduceFailure(report);
  Text missing = facts.usable_gpu_count() < 2 ? NeedsTwoGpus(facts)
                 : facts.skip_dist           ? T("не запускался (--skip-dist)", "not run (--skip-dist)")
                                             : MissingBecause(report, facts, "interconnect.allreduce");
  if (row.failure && row.readings.empty()) row.measured = *row.failure;
  FinishRow(row, course, missing);
  return row;
}

ExpectationRow LlamaRow(const Report& report, const ReportFacts& facts, const CourseReference& course) {
  ExpectationRow row = CourseWorded("llama_train", course);
  row.course_machine = true;  // the lessons assume 20–40 TFLOPS per card whatever the card
  const auto tflops = MeasuredValue(report, "smoke.llama.train_tflops");
  if (facts.usable_gpu_count() == 0) {
    // smoke.llama_train trains a tiny configuration on the CPU; its speed compares with nothing.
    row.measured = MeasuredValue(report, "smoke.llama_cpu_tiny.tokens_per_s")
                       ? T("нет GPU (на CPU шла крошечная конфигурация, её скорость не сравнима)",
                           "no GPU (a tiny configuration ran on the CPU; its speed compares with nothing)")
                       : NeedsGpu(facts);
    return row;
  }
  row.band = course.train_tflops_assumed;
  if (tflops) row.readings.push_back(Reading{"", -1, "smoke.llama.train_tflops", *tflops});
  FinishRow(row, course, MissingBecause(report, facts, "smoke.llama_train"));
  return row;
}

}  // namespace

void AddMachineRows(const Report& report, const ReportFacts& facts, const CourseReference& course,
                    const reference::GpuCatalog& catalog, std::vector<ExpectationRow>& rows) {
  rows.push_back(P2pRow(report, facts, course));
  rows.push_back(GpuToGpuRow(report, facts, course, catalog));
  rows.push_back(AllreduceRow(report, facts, course));
  rows.push_back(LlamaRow(report, facts, course));
}

}  // namespace labcheck::expect
