// Judge of `ddp` and `fsdp2`: the distributed run must end where one process on the whole batch
// ends, within kDistMaxAbsDiff, on every rank.
#include <fmt/format.h>

#include "reference/hints.h"
#include "smoke/judge_common.h"
#include "smoke/judges.h"

namespace labcheck::smoke {
namespace {

Text Layout(const std::string& backend, int64_t world, const std::string& device) {
  if (device == "cuda") {
    return T(fmt::format("{} GPU, {}", world, backend), fmt::format("{} GPUs, {}", world, backend));
  }
  return T(fmt::format("{} процесса на CPU, {}", world, backend), fmt::format("{} CPU processes, {}", world, backend));
}

// Why it ran on the CPU although the course means GPUs, when it did.
Text CpuNote(const std::optional<std::string>& cpu_because) {
  if (cpu_because == "one_gpu") {
    return T("одна GPU: проверен распределённый путь на CPU, обмен между картами через NCCL не проверялся",
             "one GPU: the distributed path was tested on the CPU; NCCL between cards was not exercised");
  }
  if (cpu_because == "forced_cpu") return T("CPU по LABCHECK_SMOKE_FORCE_CPU=1", "CPU forced by LABCHECK_SMOKE_FORCE_CPU=1");
  // "no_gpu": why PyTorch had none is the report's facts' to say (verdict.cpp, SayWhyNoGpu).
  return {};
}

}  // namespace

CheckResult JudgeDistributed(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const std::string backend = f.String("backend");
  const int64_t world = f.Integer("world_size");
  const std::string device = f.String("device");
  const int64_t steps = f.Integer("steps");
  const double max_diff = f.Number("max_abs_diff");
  const double cross_rank = f.Number("cross_rank_max_diff");
  const double max_param = f.Number("max_abs_param");
  const auto cpu_because = f.OptionalString("cpu_because");
  if (!f.ok()) return Incomplete(test, f, result);

  const Text layout = Layout(backend, world, device);
  const Text figures = T(fmt::format("max |Δ| = {} (≤ {}), шагов {}", Sci(max_diff), Sci(kDistMaxAbsDiff), steps),
                         fmt::format("max |Δ| = {} (≤ {}), {} steps", Sci(max_diff), Sci(kDistMaxAbsDiff), steps));
  CheckResult out;
  out.id = test.check_id;
  Measurement& m = out.Add({});
  m.key = test.check_id + ".max_abs_param_diff";
  m.label = T("наибольшее расхождение параметров с обучением в одном процессе",
              "largest parameter difference from one-process training");
  m.value = max_diff;
  m.unit = "abs";
  m.method = T(fmt::format("шагов SGD в FP32: {}; глобальный батч делится между рангами; |Δ| по всем параметрам всех "
                           "рангов, параметры порядка {}",
                           steps, Fixed(max_param, 2)),
               fmt::format("{} FP32 SGD steps, the global batch split across ranks; |Δ| over all parameters of all "
                           "ranks, parameters of order {}",
                           steps, Fixed(max_param, 2)));

  const bool ok = Finite(max_diff) && Finite(cross_rank) && max_diff <= kDistMaxAbsDiff && cross_rank <= kDistMaxAbsDiff;
  const Text note = CpuNote(cpu_because);
  out.summary = T(layout.ru + ": " + figures.ru + (note.empty() ? "" : "; " + note.ru),
                  layout.en + ": " + figures.en + (note.empty() ? "" : "; " + note.en));
  if (ok) {
    out.outcome = Outcome::Pass;
    return out;
  }
  out.outcome = Outcome::Fail;
  out.reason = T(fmt::format("параметры после распределённого обучения отличаются от обучения в одном процессе: "
                             "max |Δ| = {}, между рангами {}, допуск {}",
                             Sci(max_diff), Sci(cross_rank), Sci(kDistMaxAbsDiff)),
                 fmt::format("parameters after distributed training differ from one-process training: max |Δ| = {}, "
                             "between ranks {}, tolerance {}",
                             Sci(max_diff), Sci(cross_rank), Sci(kDistMaxAbsDiff)));
  out.hint = hint::Action(hint::kWrongSum);
  return out;
}

}  // namespace labcheck::smoke
