#include "calc/throughput.h"

#include <fmt/format.h>

namespace labcheck::calc {

Throughput ResolveThroughput(std::optional<double> tflops_flag, const MachineReport* report,
                             const reference::GpuSpec* gpu, const CalcConstants& k) {
  if (tflops_flag) return {*tflops_flag, *tflops_flag, T("задано --tflops", "given with --tflops")};
  if (report && report->train_tflops) {
    const double t = *report->train_tflops;
    return {t, t, T(fmt::format("измерено: smoke.llama.train_tflops в {} {}", report->path, report->finished_at),
                    fmt::format("measured: smoke.llama.train_tflops in {} {}", report->path, report->finished_at))};
  }
  const double low_share = k.course_train_tflops_low / k.course_datasheet_bf16_tflops;
  const double high_share = k.course_train_tflops_high / k.course_datasheet_bf16_tflops;
  if (gpu && gpu->bf16_tflops) {
    const double d = *gpu->bf16_tflops;
    return {d * low_share, d * high_share,
            T(fmt::format("справочник: {} — {:g} TFLOPS BF16 по паспорту × доля, которую курс закладывает для RTX 4080 ({:g}–{:g} из {:g})",
                          gpu->DisplayName().ru, d, k.course_train_tflops_low, k.course_train_tflops_high, k.course_datasheet_bf16_tflops),
              fmt::format("reference: {} — {:g} datasheet BF16 TFLOPS × the share the course assumes for the RTX 4080 ({:g}–{:g} of {:g})",
                          gpu->DisplayName().en, d, k.course_train_tflops_low, k.course_train_tflops_high, k.course_datasheet_bf16_tflops))};
  }
  return {k.course_train_tflops_low, k.course_train_tflops_high,
          T(fmt::format("оценка курса: {:g}–{:g} TFLOPS на карту (RTX 4080)", k.course_train_tflops_low, k.course_train_tflops_high),
            fmt::format("the course's assumption: {:g}–{:g} TFLOPS per card (RTX 4080)", k.course_train_tflops_low, k.course_train_tflops_high))};
}

Bandwidth ResolveAllreduceBandwidth(const MachineReport* report, const CalcConstants& k) {
  if (report && report->allreduce_busbw_gbps) {
    return {*report->allreduce_busbw_gbps, T(fmt::format("измерено: nccl.allreduce_busbw_gbps в {}", report->path),
                                             fmt::format("measured: nccl.allreduce_busbw_gbps in {}", report->path))};
  }
  return {k.course_allreduce_busbw_gbps, T(fmt::format("оценка курса: W = {:g} ГБ/с", k.course_allreduce_busbw_gbps),
                                           fmt::format("the course's assumption: W = {:g} GB/s", k.course_allreduce_busbw_gbps))};
}

}  // namespace labcheck::calc
