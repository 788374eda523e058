// Expert parallelism in training (`vram`/`plan --expert-parallel N`). The layout followed is
// torchtitan's (torchtitan/distributed/parallel_dims.py, torchtitan/distributed/fsdp.py): the EP
// group is carved out of the data-parallel GPUs; each GPU holds experts / N whole routed experts
// of every MoE layer; everything else (attention, embeddings, shared experts, dense layers, the
// router) is placed by --sharding as without EP; FSDP then shards each GPU's experts further over
// dp_shard / N GPUs ("efsdp"), so a routed expert's weights, gradients and optimizer states are cut
// max(N, the sharding's shards) ways (TrainingSettings::Expert*Shards). Megatron-Core (DDP or its
// distributed optimizer over the expert-data-parallel group) and DeepSpeed-MoE (ep_size with ZeRO-1/2)
// place them the same way; DeepSpeed refuses MoE under ZeRO-3.
#pragma once
#include <optional>
#include <vector>

#include "calc/model_features.h"
#include "calc/model_input.h"
#include "calc/training_settings.h"
#include "core/text.h"

namespace labcheck::calc {

// The model's side of --expert-parallel: a model without routed experts, or an expert count N does
// not divide (each GPU holds whole experts), is an error that says what to do. nullopt: fine.
std::optional<Text> ExpertParallelModelError(const ModelInput& model, const TrainingSettings& settings);
// --moe-kernel megablocks on a model without routed experts: nothing would use it, an error that
// says so (it sits here beside --expert-parallel's, the other flag that needs routed experts).
std::optional<Text> MoeKernelModelError(const ModelInput& model, const TrainingSettings& settings);
// The cards' side: N must divide --gpus (and a hybrid group), and DeepSpeed refuses MoE under ZeRO-3.
// `gpus_given`: vram takes --gpus; plan picks the cards itself (training_plan.cpp). nullopt: fine.
std::optional<Text> ExpertParallelLayoutError(const TrainingSettings& settings, bool gpus_given);

// Routed experts' parameters (0 for a dense model or a bare size), and their LoRA adapters.
double RoutedExpertParams(const ModelInput& model);
double RoutedExpertAdapterParams(const ModelInput& model, const TrainingSettings& settings);

// Per GPU, a part split the usual way and its routed experts split over the expert shards.
double SplitWithExperts(double all, double experts, double shards, double expert_shards);

// The all-to-all buffers of one MoE layer's backward per GPU (bytes, for batch x seq tokens): the
// gradients of the routed rows sent and received, tokens x top_k x hidden each in BF16. 0 without EP.
double ExpertAllToAllBytes(const Architecture& arch, const TrainingSettings& settings);

// What the estimate assumes about EP (printed under "Assumptions", in --json "assumptions").
std::vector<WorkNote> ExpertParallelNotes(const ModelInput& model, const TrainingSettings& settings);

}  // namespace labcheck::calc
