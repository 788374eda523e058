#include "calc/expert_parallel.h"

#include <fmt/format.h>

#include "calc/byte_units.h"
#include "calc/param_count.h"

namespace labcheck::calc {

std::optional<Text> ExpertParallelModelError(const ModelInput& model, const TrainingSettings& s) {
  const int ep = s.expert_parallel;
  if (ep <= 1) return std::nullopt;
  if (!model.arch || !model.arch->moe.enabled()) {
    return T(fmt::format("--expert-parallel {}: у модели нет маршрутизируемых экспертов (плотная модель или только размер), делить нечего; уберите флаг или возьмите MoE-модель", ep),
             fmt::format("--expert-parallel {}: the model has no routed experts (a dense model or a bare size), so there is nothing to split; drop the flag or pick an MoE model", ep));
  }
  const int64_t experts = model.arch->moe.experts;
  if (experts % ep != 0) {
    return T(fmt::format("--expert-parallel {} не делит число экспертов {}: каждая GPU держит целые эксперты; возьмите делитель {}", ep, experts, experts),
             fmt::format("--expert-parallel {} does not divide the {} routed experts: each GPU holds whole experts; use a divisor of {}", ep, experts, experts));
  }
  return std::nullopt;
}

std::optional<Text> MoeKernelModelError(const ModelInput& model, const TrainingSettings& s) {
  if (s.moe_kernel == MoeKernel::Transformers || (model.arch && model.arch->moe.enabled())) return std::nullopt;
  return T("--moe-kernel megablocks: у модели нет маршрутизируемых экспертов (плотная модель или только размер); уберите флаг или возьмите MoE-модель",
           "--moe-kernel megablocks: the model has no routed experts (a dense model or a bare size); drop the flag or pick an MoE model");
}

std::optional<Text> ExpertParallelLayoutError(const TrainingSettings& s, bool gpus_given) {
  const int ep = s.expert_parallel;
  if (ep <= 1) return std::nullopt;
  if (gpus_given && s.gpus % ep != 0) {
    return T(fmt::format("--expert-parallel {} не делит --gpus {}: группа экспертного параллелизма берётся из GPU data parallel; возьмите делитель {}", ep, s.gpus, s.gpus),
             fmt::format("--expert-parallel {} does not divide --gpus {}: the expert-parallel group is carved out of the data-parallel GPUs; use a divisor of {}", ep, s.gpus, s.gpus));
  }
  // DeepSpeed's engine refuses it: deepspeed/runtime/engine.py asserts "MoE not supported with Stage 3".
  if (s.sharding == Sharding::Zero3) {
    return T("--expert-parallel с --sharding zero3 не работает: DeepSpeed отказывает (\"MoE not supported with Stage 3\"); возьмите zero1, zero2 или fsdp",
             "--expert-parallel does not go with --sharding zero3: DeepSpeed refuses it (\"MoE not supported with Stage 3\"); use zero1, zero2 or fsdp");
  }
  // torchtitan/distributed/parallel_dims.py: "expert_parallel_degree must divide dp_shard * cp * tp".
  if (gpus_given && s.sharding == Sharding::Hybrid && s.WeightShards() % ep != 0) {
    return T(fmt::format("--expert-parallel {} не делит группу шардирования --shard-size {}: эксперты делятся внутри группы (torchtitan: ep делит dp_shard)", ep, s.WeightShards()),
             fmt::format("--expert-parallel {} does not divide the sharding group of --shard-size {}: experts are split within a group (torchtitan: ep divides dp_shard)", ep, s.WeightShards()));
  }
  return std::nullopt;
}

double RoutedExpertParams(const ModelInput& model) {
  const std::optional<ParamCounts> counts = model.counts();
  return counts ? static_cast<double>(counts->routed_experts) : 0;
}

double RoutedExpertAdapterParams(const ModelInput& model, const TrainingSettings& s) {
  if (!model.arch || !model.arch->moe.enabled() || !s.lora_experts) return 0;
  const Architecture& a = *model.arch;
  return static_cast<double>(LoraParams(a, s.lora_rank, s.lora_targets, true) - LoraParams(a, s.lora_rank, s.lora_targets, false));
}

double SplitWithExperts(double all, double experts, double shards, double expert_shards) {
  return (all - experts) / shards + experts / expert_shards;
}

double ExpertAllToAllBytes(const Architecture& arch, const TrainingSettings& s) {
  if (s.expert_parallel <= 1 || !arch.moe.enabled()) return 0;
  // torchtitan/models/common/token_dispatcher.py: the dispatch all-to-all sends each token's top_k
  // routed rows of hidden values to their experts' ranks and the combine brings them back; in
  // backward the same exchange runs on their gradients. With balanced routing a rank sends and
  // receives tokens x top_k rows; the send and the receive buffer exist at once.
  const double rows = static_cast<double>(s.batch * s.seq) * static_cast<double>(arch.moe.experts_per_token);
  return 2 * rows * static_cast<double>(arch.hidden) * kBf16;
}

std::vector<WorkNote> ExpertParallelNotes(const ModelInput& model, const TrainingSettings& s) {
  std::vector<WorkNote> notes;
  if (s.expert_parallel <= 1 || !model.arch) return notes;
  const int ep = s.expert_parallel;
  const int64_t local = model.arch->moe.experts / ep;
  notes.push_back({"expert_parallel_layout",
                   T(fmt::format("экспертный параллелизм {} (как в torchtitan: группа EP берётся из data parallel): на GPU {} целых маршрутизируемых экспертов из {} в каждом MoE-слое; их веса, градиенты и состояния делятся на {} GPU, "
                                 "всё остальное (внимание, эмбеддинги, общие эксперты, плотные слои, роутер) — по --sharding, как без EP",
                                 ep, local, model.arch->moe.experts, s.ExpertWeightShards()),
                     fmt::format("expert parallelism {} (torchtitan's layout: the EP group is carved out of data parallel): each GPU holds {} whole routed experts of {} in every MoE layer; their weights, gradients and states are split over {} GPUs, "
                                 "everything else (attention, embeddings, shared experts, dense layers, router) by --sharding as without EP",
                                 ep, local, model.arch->moe.experts, s.ExpertWeightShards()))});
  notes.push_back({"expert_parallel_activations",
                   T("активации при EP: маршрутизация считается равномерной — GPU получает столько же строк экспертов, сколько без EP (токены × top_k), так что сохранённые активации те же; "
                     "сверху буферы all-to-all одного MoE-слоя в backward (отправка и приём, токены × top_k × hidden в BF16, torchtitan token_dispatcher.py); перекос маршрутизации даёт отдельной GPU больше",
                     "activations under EP: routing taken as balanced, so a GPU receives as many expert rows as without EP (tokens × top_k) and the saved activations are the same; "
                     "on top, one MoE layer's all-to-all buffers in backward (send and receive, tokens × top_k × hidden in BF16, torchtitan token_dispatcher.py); an imbalanced step gives one GPU more")});
  return notes;
}

}  // namespace labcheck::calc
