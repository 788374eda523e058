#include "calc/training_settings.h"

#include <algorithm>
#include <array>
#include <utility>

namespace labcheck::calc {
namespace {

// One table per enum: the spelling on the command line and in --json, both ways.
template <typename E, size_t N>
std::optional<E> Parse(const std::array<std::pair<E, const char*>, N>& names, const std::string& text) {
  for (const auto& [value, name] : names) {
    if (text == name) return value;
  }
  return std::nullopt;
}

template <typename E, size_t N>
const char* Name(const std::array<std::pair<E, const char*>, N>& names, E value) {
  for (const auto& [v, name] : names) {
    if (v == value) return name;
  }
  return "?";
}

constexpr std::array<std::pair<Method, const char*>, 3> kMethods{{{Method::Full, "full"}, {Method::Lora, "lora"}, {Method::Qlora, "qlora"}}};
constexpr std::array<std::pair<Optimizer, const char*>, 6> kOptimizers{{{Optimizer::AdamW, "adamw"},
                                                                        {Optimizer::AdamWFused, "adamw-fused"},
                                                                        {Optimizer::AdamW8bit, "adamw8bit"},
                                                                        {Optimizer::PagedAdamW, "paged-adamw"},
                                                                        {Optimizer::PagedAdamW8bit, "paged-adamw8bit"},
                                                                        {Optimizer::Sgd, "sgd"}}};
constexpr std::array<std::pair<Precision, const char*>, 2> kPrecisions{{{Precision::Bf16, "bf16"}, {Precision::Mixed, "mixed"}}};
constexpr std::array<std::pair<LossKind, const char*>, 3> kLosses{{{LossKind::Full, "full"}, {LossKind::Chunked, "chunked"}, {LossKind::Fused, "fused"}}};
constexpr std::array<std::pair<Attention, const char*>, 3> kAttention{{{Attention::Sdpa, "sdpa"}, {Attention::Flash, "flash"}, {Attention::Eager, "eager"}}};
constexpr std::array<std::pair<MoeKernel, const char*>, 2> kMoeKernel{{{MoeKernel::Transformers, "transformers"}, {MoeKernel::MegaBlocks, "megablocks"}}};
constexpr std::array<std::pair<Sharding, const char*>, 6> kSharding{{{Sharding::Ddp, "ddp"},
                                                                    {Sharding::Zero1, "zero1"},
                                                                    {Sharding::Zero2, "zero2"},
                                                                    {Sharding::Fsdp, "fsdp"},
                                                                    {Sharding::Zero3, "zero3"},
                                                                    {Sharding::Hybrid, "hybrid"}}};

}  // namespace

int TrainingSettings::WeightShards() const {
  if (gpus <= 1) return 1;
  if (sharding == Sharding::Fsdp || sharding == Sharding::Zero3) return gpus;
  if (sharding == Sharding::Hybrid) return shard_size > 0 ? std::min(shard_size, gpus) : std::min(gpus, 8);
  return 1;
}

int TrainingSettings::ExpertWeightShards() const { return std::max(expert_parallel, WeightShards()); }
int TrainingSettings::ExpertGradientShards() const { return std::max(expert_parallel, GradientShards()); }
int TrainingSettings::ExpertStateShards() const { return std::max(expert_parallel, StateShards()); }

bool TrainingSettings::GathersLayers() const { return WeightShards() > 1 || offload.params; }

bool TrainingSettings::ReplicatesNf4QuantState() const {
  const bool torch_fsdp = sharding == Sharding::Fsdp || sharding == Sharding::Hybrid || offload.params;
  return method == Method::Qlora && torch_fsdp && GathersLayers();
}

int TrainingSettings::GradientShards() const {
  if (gpus <= 1) return 1;
  if (sharding == Sharding::Zero2) return gpus;
  return WeightShards();
}

int TrainingSettings::StateShards() const {
  if (gpus <= 1) return 1;
  if (sharding == Sharding::Zero1 || sharding == Sharding::Zero2) return gpus;
  return WeightShards();
}

std::optional<Method> ParseMethod(const std::string& text) { return Parse(kMethods, text); }
std::optional<Optimizer> ParseOptimizer(const std::string& text) { return Parse(kOptimizers, text); }
std::optional<Precision> ParsePrecision(const std::string& text) { return Parse(kPrecisions, text); }
std::optional<LossKind> ParseLoss(const std::string& text) { return Parse(kLosses, text); }
std::optional<Attention> ParseAttention(const std::string& text) { return Parse(kAttention, text); }
std::optional<Sharding> ParseSharding(const std::string& text) { return Parse(kSharding, text); }
std::optional<MoeKernel> ParseMoeKernel(const std::string& text) { return Parse(kMoeKernel, text); }
std::optional<LoraTargets> ParseLoraTargets(const std::string& text) {
  if (text == "all-linear" || text == "all") return LoraTargets::AllLinear();
  if (text == "attention") return LoraTargets::Attention();
  if (text == "qv") return LoraTargets::Qv();
  LoraTargets t{false, false, false, false, false, false, false};
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    std::string part = text.substr(start, comma - start);
    // PEFT / torchtune module names are accepted too: q_proj, output_proj, gate_proj, w1...
    if (part.size() > 5 && part.compare(part.size() - 5, 5, "_proj") == 0) part.resize(part.size() - 5);
    if (part == "q") t.q = true;
    else if (part == "k") t.k = true;
    else if (part == "v") t.v = true;
    else if (part == "o" || part == "output") t.o = true;
    else if (part == "gate" || part == "w1") t.gate = true;
    else if (part == "up" || part == "w3") t.up = true;
    else if (part == "down" || part == "w2") t.down = true;
    else return std::nullopt;
    start = comma + 1;
  }
  if (!t.q && !t.k && !t.v && !t.o && !t.mlp()) return std::nullopt;
  return t;
}
const char* MethodName(Method method) { return Name(kMethods, method); }
const char* OptimizerName(Optimizer optimizer) { return Name(kOptimizers, optimizer); }
const char* PrecisionName(Precision precision) { return Name(kPrecisions, precision); }
const char* LossName(LossKind loss) { return Name(kLosses, loss); }
const char* AttentionName(Attention attention) { return Name(kAttention, attention); }
const char* ShardingName(Sharding sharding) { return Name(kSharding, sharding); }
const char* MoeKernelName(MoeKernel kernel) { return Name(kMoeKernel, kernel); }
std::string LoraTargetsName(const LoraTargets& t) {
  if (t == LoraTargets::AllLinear()) return "all-linear";
  if (t == LoraTargets::Attention()) return "attention";
  if (t == LoraTargets::Qv()) return "qv";
  std::string out;
  const std::pair<bool, const char*> parts[] = {{t.q, "q"}, {t.k, "k"}, {t.v, "v"}, {t.o, "o"}, {t.gate, "gate"}, {t.up, "up"}, {t.down, "down"}};
  for (const auto& [on, name] : parts) {
    if (on) out += (out.empty() ? "" : ",") + std::string(name);
  }
  return out;
}
bool IsPaged(Optimizer optimizer) { return optimizer == Optimizer::PagedAdamW || optimizer == Optimizer::PagedAdamW8bit; }

}  // namespace labcheck::calc
