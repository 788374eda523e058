#include "expect/coefficients.h"

#include <algorithm>

#include <fmt/format.h>

#include "expect/expectation_rows.h"
#include "facts/statements.h"

namespace labcheck::expect {
namespace {

// The Llama smoke test ran, on the CPU: why PyTorch had no card, in the report's one wording.
std::optional<Text> RanOnTheCpu(const Report& report, const ReportFacts& facts) {
  if (!MeasuredValue(report, "smoke.llama_cpu_tiny.tokens_per_s")) return std::nullopt;
  return facts::WhyTorchHasNoGpu(facts.run).value_or(T("PyTorch не видит GPU", "PyTorch sees no GPU"));
}

// Why a check left no usable figure, naming the check.
Text CheckMissing(const Report& report, const ReportFacts& facts, const std::string& check_id) {
  const Text why = MissingBecause(report, facts, check_id);
  return T(check_id + ": " + why.ru, check_id + ": " + why.en);
}

}  // namespace

nlohmann::json Coefficient::ToJson() const {
  nlohmann::json j = {{"id", id}, {"from_key", from_key}};
  j["value"] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
  j["range"] = range ? nlohmann::json::array({range->low, range->high}) : nlohmann::json(nullptr);
  j["measured"] = measured ? nlohmann::json(*measured) : nlohmann::json(nullptr);
  j["measured_unit"] = measured_unit;
  if (!value) j["missing_reason"] = {{"ru", missing_reason.ru}, {"en", missing_reason.en}};
  if (!limited_by.empty()) j["limited_by"] = {{"ru", limited_by.ru}, {"en", limited_by.en}};
  return j;
}

Coefficient TrainingTimeFactor(const Report& report, const ReportFacts& facts, const CourseReference& course) {
  Coefficient c;
  c.id = "training_time_factor";
  c.from_key = "smoke.llama.train_tflops";
  c.measured_unit = "TFLOPS";
  c.measured = MeasuredValue(report, c.from_key);
  const CheckResult* check = FindCheck(report, "smoke.llama_train");
  if (!c.measured || *c.measured <= 0) {
    c.measured.reset();
    if (auto cpu = RanOnTheCpu(report, facts)) {
      c.missing_reason = T("смоук-тест шёл на CPU (" + cpu->ru + "): оценки времени в уроках посчитаны для видеокарт",
                           "the smoke test ran on the CPU (" + cpu->en + "): the lessons' time estimates are for GPUs");
    } else {
      c.missing_reason = CheckMissing(report, facts, "smoke.llama_train");
    }
    return c;
  }
  if (check != nullptr && check->outcome == Outcome::Fail) {
    // A failed run's speed says nothing about a working one.
    c.missing_reason = CheckMissing(report, facts, "smoke.llama_train");
    c.measured.reset();
    return c;
  }
  const reference::Band assumed = course.train_tflops_assumed;
  c.value = (assumed.low + assumed.high) / 2 / *c.measured;
  c.range = reference::Band{assumed.low / *c.measured, assumed.high / *c.measured};
  return c;
}

Coefficient CommunicationTimeFactor(const Report& report, const ReportFacts& facts, const CourseReference& course) {
  Coefficient c;
  c.id = "communication_time_factor";
  c.from_key = "nccl.allreduce_busbw_gbps";
  c.measured_unit = "GB/s";
  c.measured = MeasuredValue(report, c.from_key);
  // NCCL measured the cards through the driver, not through PyTorch: a CPU-only torch (to be
  // reinstalled) does not change the busbw the cards will have once it is fixed, so the driver's
  // count decides here, unlike for the training factor.
  // The cards the driver has decide whether the factor applies at all (CUDA_VISIBLE_DEVICES may
  // show fewer; the check then says why it measured nothing).
  const int gpus = std::max(facts.run.cards.DriverCount(), static_cast<int>(facts.gpus.size()));
  const bool wrong_sum = AllreduceWrongSum(report);
  if (gpus == 0 && facts.run.cards.inventory_ran) {
    c.missing_reason = T("нет GPU: обмена между картами нет", "no GPU: there is no communication between cards");
  } else if (gpus == 1) {
    c.missing_reason = T("одна GPU: обмена между картами нет, коэффициент не нужен",
                         "one GPU: there is no communication between cards, the factor does not apply");
  } else if (wrong_sum) {
    c.missing_reason = T("all-reduce вернул неверную сумму: скорость не в счёт, сначала исправьте обмен",
                         "all-reduce returned a wrong sum: its speed does not count, fix the communication first");
  } else if (!c.measured || *c.measured <= 0) {
    c.missing_reason = CheckMissing(report, facts, "interconnect.allreduce");
  } else {
    c.value = course.allreduce_busbw_assumed_gbps / *c.measured;
    // What bounds the figure, so the factor reads as a property of the links, not of the run.
    if (facts.ring && !course.IsCourseGpu(facts.gpus.front().spec().id)) {
      const RingLimit& ring = *facts.ring;
      const int a = std::min(ring.a, ring.b), b = std::max(ring.a, ring.b);
      c.limited_by = T(fmt::format("кольцо ограничено связью GPU {}↔{} ({})", a, b, ring.expected.link.ru),
                       fmt::format("the ring is bound by GPU {}↔{} ({})", a, b, ring.expected.link.en));
    }
    return c;
  }
  c.measured.reset();
  return c;
}

}  // namespace labcheck::expect
