// The section «Рекомендации»: the two factors for the lessons' estimates and where to write them.
#include <fmt/format.h>

#include "expect/sections.h"

namespace labcheck::expect {

Text CoefficientLine(const Coefficient& c) {
  if (!c.value) return T("нет: " + c.missing_reason.ru, "none: " + c.missing_reason.en);
  const std::string from = fmt::format("{} = {} {}", c.from_key, Num(*c.measured), c.measured_unit);
  if (c.range) {
    return T(fmt::format("×{:.2f} (от ×{:.2f} до ×{:.2f}); из {}", *c.value, c.range->low, c.range->high, from),
             fmt::format("×{:.2f} (×{:.2f} to ×{:.2f}); from {}", *c.value, c.range->low, c.range->high, from));
  }
  Text line = T(fmt::format("×{:.2f}; из {}", *c.value, from), fmt::format("×{:.2f}; from {}", *c.value, from));
  if (!c.limited_by.empty()) {
    line.ru += "; " + c.limited_by.ru;
    line.en += "; " + c.limited_by.en;
  }
  return line;
}

ReportSection RecommendationsSection(const Analysis& a, const CourseReference& course) {
  ReportSection s;
  s.id = "recommendations";
  s.title = T("Рекомендации: поправки к оценкам уроков", "Recommendations: factors for the lessons' estimates");
  const std::string assumed_tflops = BandText(course.train_tflops_assumed);
  const std::string w = Num(course.allreduce_busbw_assumed_gbps);

  Table table;
  table.title = T("Два коэффициента", "The two factors");
  table.columns = {T("Коэффициент", "Factor"), T("Значение", "Value"), T("Как применять", "How to use it")};
  table.AddRow({T("Время обучения", "Training time"), CoefficientLine(a.training),
                T(fmt::format("умножайте оценки времени обучения в уроках (6ND при {} TFLOPS на карту)", assumed_tflops),
                  fmt::format("multiply the lessons' training-time estimates (6ND at {} TFLOPS per card)", assumed_tflops))});
  table.AddRow({T("Время обмена между картами", "Communication time"), CoefficientLine(a.communication),
                T(fmt::format("умножайте оценки времени обмена в уроках (посчитаны при W = {} ГБ/с)", w),
                  fmt::format("multiply the lessons' communication-time estimates (made with W = {} GB/s)", w))});
  table.notes.push_back(T(fmt::format("Время обучения: {} TFLOPS из уроков, делённые на измеренные; диапазон — от "
                                      "краёв {}. Время обмена: W = {} ГБ/с, делённые на измеренную bus bandwidth "
                                      "all-reduce.", assumed_tflops, assumed_tflops, w),
                          fmt::format("Training time: the lessons' {} TFLOPS divided by the measured figure; the range "
                                      "comes from the edges of {}. Communication time: W = {} GB/s divided by the "
                                      "measured all-reduce bus bandwidth.", assumed_tflops, assumed_tflops, w)));
  s.tables.push_back(std::move(table));
  s.paragraphs.push_back(T("Запишите оба коэффициента в journal/lab.md. Команда lab_check journal допишет их туда "
                           "вместе с главными цифрами и датой, ничего не стирая.",
                           "Write both factors into journal/lab.md. The command lab_check journal appends them there "
                           "with the key figures and the date, erasing nothing."));
  s.data["training_time_factor"] = a.training.ToJson();
  s.data["communication_time_factor"] = a.communication.ToJson();
  AddBriefRecommendations(a, s);
  return s;
}

}  // namespace labcheck::expect
