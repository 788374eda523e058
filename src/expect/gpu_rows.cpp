// Per-GPU rows: matmul, memory copy, host↔device copies. One row per GPU model on the machine;
// the worst card of a model decides the row's ratio and flag.
#include <map>

#include <fmt/format.h>

#include "core/measurement_key.h"
#include "expect/expectation_rows.h"
#include "expect/hint_triggers.h"

namespace labcheck::expect {
namespace {

using reference::Band;
using reference::GpuSpec;

struct Group {
  const GpuSpec* spec = nullptr;
  std::vector<const GpuFacts*> gpus;
};

std::vector<Group> GroupByModel(const ReportFacts& facts) {
  std::vector<Group> groups;
  std::map<std::string, size_t> position;
  for (const GpuFacts& g : facts.gpus) {
    // Unknown GPUs group by name: two different unknown cards must not share a reference.
    const std::string key = g.derived() ? "derived:" + g.driver.name : g.spec().id;
    auto [it, inserted] = position.emplace(key, groups.size());
    if (inserted) groups.push_back(Group{&g.spec(), {}});
    groups[it->second].gpus.push_back(&g);
  }
  return groups;
}

std::string Percent(double share) { return fmt::format("{:.0f}", share * 100); }

struct Kind {
  std::string row_id;
  std::string key_suffix;  // gpu{i}.<suffix>
  std::optional<double> GpuSpec::*figure;
  std::string check_id;
  bool always_shown;  // the course's own rows appear even with nothing to compare
  // Read where a GPU has no `key_suffix` figure (a driver that cannot run kernels, an older report).
  std::string fallback_suffix = {};
  Text fallback_note = {};
};

const std::vector<Kind>& Kinds() {
  static const std::vector<Kind> kinds = {
      {"matmul_bf16", "matmul_bf16_tflops", &GpuSpec::bf16_tflops, "gpu.matmul", true},
      {"matmul_fp16", "matmul_fp16_tflops", &GpuSpec::fp16_tflops, "gpu.matmul", true},
      {"matmul_tf32", "matmul_tf32_tflops", &GpuSpec::tf32_tflops, "gpu.matmul", false},
      {"matmul_fp8", "matmul_fp8_tflops", &GpuSpec::fp8_tflops, "gpu.matmul", false},
      // The card's memory is judged by the SM copy kernel; the driver's copy (copy engine) can be
      // far slower on some cards without the memory being at fault (src/gpu/checks/memory_check.cpp).
      {"memory_copy", "memory_kernel_copy_gbps", &GpuSpec::memory_bandwidth_gbps, "gpu.memory_bandwidth", true,
       "memory_copy_gbps",
       T("без SM-копирования: показано копирование драйвера (cuMemcpyDtoDAsync)",
         "no SM copy: the driver's copy (cuMemcpyDtoDAsync) is shown")},
      {"h2d", "h2d_pinned_gbps", nullptr, "gpu.host_device_copy", true},
      {"d2h", "d2h_pinned_gbps", nullptr, "gpu.host_device_copy", true},
  };
  return kinds;
}

// The course lists BF16 and FP16; TF32 and FP8 rows borrow the matmul row's wording.
void SetWording(ExpectationRow& row, const CourseReference& course) {
  if (const CourseRow* c = course.Row(row.id)) {
    row.label = c->label;
    row.what = c->what;
    return;
  }
  const CourseRow* matmul = course.Row("matmul_bf16");
  const std::string precision = row.id == "matmul_tf32" ? "TF32" : "FP8";
  row.label = T("Матмул " + precision + ", TFLOPS", "Matmul " + precision + ", TFLOPS");
  if (matmul != nullptr) row.what = matmul->what;
}

void SetComputeReference(ExpectationRow& row, std::optional<double> figure, Band share,
                         const CourseRow* course_row, bool course_gpu) {
  if (course_gpu && course_row != nullptr && course_row->course_band) {
    row.band = course_row->course_band;
    row.reference = course_row->course_text;
    row.course_machine = true;
    return;
  }
  if (!figure) {
    row.reference = row.derived ? T("карты нет в справочнике, а по данным драйвера оценить нельзя",
                                    "the card is not in the catalog and the driver's figures are not enough to estimate")
                                : T("в паспорте этой карты такой цифры нет", "no such figure in this card's datasheet");
    return;
  }
  row.band = Band{*figure * share.low, *figure * share.high};
  const std::string shares = Percent(share.low) + "–" + Percent(share.high);
  if (row.derived) {
    row.reference = T(fmt::format("оценка {} по данным драйвера; реально {} ({}% оценки)", Num(*figure),
                                  BandText(*row.band), shares),
                      fmt::format("estimate {} from the driver's figures; real {} ({}% of it)", Num(*figure),
                                  BandText(*row.band), shares));
  } else {
    row.reference = T(fmt::format("паспорт {}; реально {} ({}% паспорта)", Num(*figure), BandText(*row.band), shares),
                      fmt::format("datasheet {}; real {} ({}% of datasheet)", Num(*figure), BandText(*row.band), shares));
  }
}

void SetLinkReference(ExpectationRow& row, const GpuSpec& spec, const reference::GpuCatalog& catalog,
                      const CourseRow* course_row, bool course_gpu) {
  if (course_gpu && course_row != nullptr && course_row->course_band) {
    row.band = course_row->course_band;
    row.reference = course_row->course_text;
    row.course_machine = true;
    return;
  }
  const auto link = catalog.Pcie(spec.pcie_gen, spec.pcie_width);
  if (!link) {
    row.reference = T("связь PCIe неизвестна", "PCIe link unknown");
    return;
  }
  row.band = link->practice_gbps;
  row.reference = T(fmt::format("предел PCIe {}.0 x{} около {}; на практике обычно {}", link->gen, link->width,
                                Num(link->limit_gbps), BandText(link->practice_gbps)),
                    fmt::format("PCIe {}.0 x{} limit about {}; in practice usually {}", link->gen, link->width,
                                Num(link->limit_gbps), BandText(link->practice_gbps)));
}

// A low row that a fault found here explains: a clock limit read during the matmul on one of its
// cards, or (host copies) a link that ran below its rating.
void NoteLocalCause(const ReportFacts& facts, const Group& group, ExpectationRow& row) {
  if (!row.worst || row.worst->ratio >= 1) return;
  if (row.id.rfind("matmul_", 0) == 0) {
    for (const GpuFacts* g : group.gpus)
      for (const std::string& reason : g->clock_event_reasons)
        if (IsThrottling(reason)) {
          row.local_cause = T(fmt::format("GPU {}: ", g->index) + ClockReasonText(reason).ru, fmt::format("GPU {}: ", g->index) + ClockReasonText(reason).en);
          return;
        }
  } else if (row.id == "h2d" || row.id == "d2h") {
    if (const auto link = SlowestLinkBelowRating(facts)) row.local_cause = reference::DescribeLinkBelowRating(*link);
  }
}

}  // namespace

void AddGpuRows(const Report& report, const ReportFacts& facts, const CourseReference& course,
                const reference::GpuCatalog& catalog, std::vector<ExpectationRow>& rows) {
  const std::vector<Group> groups = GroupByModel(facts);
  if (groups.empty()) {
    // No GPU: the course's rows still show what the course expects from its machine.
    for (const Kind& kind : Kinds()) {
      const CourseRow* c = course.Row(kind.row_id);
      if (!kind.always_shown || c == nullptr) continue;
      ExpectationRow row;
      row.id = kind.row_id;
      SetWording(row, course);
      row.reference = c->course_text;
      row.course_machine = true;
      FinishRow(row, course, MissingBecause(report, facts, kind.check_id));
      rows.push_back(std::move(row));
    }
    return;
  }
  for (const Kind& kind : Kinds()) {
    for (const Group& group : groups) {
      const GpuSpec& spec = *group.spec;
      ExpectationRow row;
      row.id = kind.row_id;
      row.gpu_model = spec.id;
      row.gpu_name = T(fmt::format("{}× {}", group.gpus.size(), spec.DisplayName().ru),
                       fmt::format("{}× {}", group.gpus.size(), spec.DisplayName().en));
      row.derived = group.gpus.front()->derived();
      // The course's warning is about memory clock and power limit: compute and memory rows only.
      row.modified_card = course.IsModifiedCard(spec.id) && kind.figure != nullptr;
      SetWording(row, course);
      bool fell_back = false;
      for (const GpuFacts* g : group.gpus) {
        std::string key = measurement_key::Format(g->index, kind.key_suffix);
        std::optional<double> value = MeasuredValue(report, key);
        if (!value && !kind.fallback_suffix.empty()) {
          key = measurement_key::Format(g->index, kind.fallback_suffix);
          value = MeasuredValue(report, key);
          fell_back = fell_back || value.has_value();
        }
        if (value) row.readings.push_back(Reading{fmt::format("GPU {}", g->index), g->index, key, *value});
      }
      if (!kind.always_shown && row.readings.empty()) continue;
      const CourseRow* course_row = course.Row(kind.row_id);
      const bool course_gpu = course.IsCourseGpu(spec.id);
      if (kind.figure == nullptr) {  // host-device rows: the reference is the PCIe table
        SetLinkReference(row, spec, catalog, course_row, course_gpu);
      } else {
        const Band share = kind.row_id == "memory_copy" ? catalog.memory_copy_share() : catalog.matmul_share();
        SetComputeReference(row, spec.*(kind.figure), share, course_row, course_gpu);
      }
      if (row.derived) row.note = spec.source;
      if (fell_back) {
        row.note.ru += (row.note.ru.empty() ? "" : "; ") + kind.fallback_note.ru;
        row.note.en += (row.note.en.empty() ? "" : "; ") + kind.fallback_note.en;
      }
      FinishRow(row, course, MissingBecause(report, facts, kind.check_id));
      NoteLocalCause(facts, group, row);
      rows.push_back(std::move(row));
    }
  }
}

}  // namespace labcheck::expect
