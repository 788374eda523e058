#include "calc/training_plan.h"

#include <algorithm>

#include "calc/byte_units.h"
#include "calc/param_count.h"
#include "calc/reserved_replay.h"
#include "calc/training_memory.h"

namespace labcheck::calc {
namespace {

constexpr int64_t kMaxBatch = 256;
constexpr int64_t kSeqLengths[] = {512, 1024, 2048, 4096, 8192, 16384, 32768};

// Whether the job fits one card of `limit` bytes: decided as the
// allocator does where a step trace is modelled (the replay completes within the card less the CUDA
// context and NCCL, the cache freed and retried where it would fail; reserved_replay.h), else by the
// flat estimate (or the rule-free lower bound when the architecture is unknown).
bool FitsOnCard(const ModelInput& model, const TrainingSettings& s, double limit, const CalcConstants& k) {
  const TrainingReplayer replayer(model, s, k, AllocConfFrom(s.alloc_conf).value());
  if (const auto on = replayer.OnCard(CardFor("", limit / kBytesPerGiB, s.gpus, k))) return on->fits;
  const TrainingMemory m = EstimateTrainingMemory(model, s, k);
  return m.peak_total_bytes.value_or(m.known_bytes) <= limit;
}

// What one card needs: the least the replay completes in, with the CUDA context and NCCL, or the
// flat estimate.
double NeedPerGpu(const ModelInput& model, const TrainingSettings& s, const CalcConstants& k) {
  const TrainingMemory m = EstimateTrainingMemory(model, s, k);
  return NeedFromReplay(TrainingReplayer(model, s, k, AllocConfFrom(s.alloc_conf).value()).Replay(), m);
}

std::optional<int64_t> LargestBatch(const ModelInput& model, TrainingSettings s, double limit, const CalcConstants& k) {
  std::optional<int64_t> best;
  for (int64_t batch = 1; batch <= kMaxBatch; batch *= 2) {
    s.batch = batch;
    if (!FitsOnCard(model, s, limit, k)) break;
    best = batch;
  }
  return best;
}

// The largest batch at each sequence length up to the model's context, on the sharded layout.
std::vector<PlanRow> BatchRows(const ModelInput& model, const TrainingSettings& sharded, double limit, const CalcConstants& k) {
  std::vector<PlanRow> rows;
  const int64_t max_seq = model.arch && model.arch->max_context > 0 ? model.arch->max_context : kSeqLengths[std::size(kSeqLengths) - 1];
  for (int64_t seq : kSeqLengths) {
    if (seq > max_seq) break;
    TrainingSettings s = sharded;
    s.seq = seq;
    PlanRow row{seq, LargestBatch(model, s, limit, k), 0};
    s.batch = row.max_batch.value_or(1);
    row.peak_bytes = NeedPerGpu(model, s, k);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

TrainingPlan PlanTraining(const ModelInput& model, const TrainingSettings& requested, double tokens, int gpu_count,
                          double gpu_memory_gib, const Throughput& throughput, const Bandwidth& bandwidth,
                          const CalcConstants& k) {
  TrainingPlan plan;
  TrainingSettings settings = requested;
  plan.gpu_count = gpu_count;
  plan.gpu_memory_gib = gpu_memory_gib;
  plan.tokens = tokens;
  plan.expert_parallel = settings.expert_parallel;
  if (gpu_count <= 0) return plan;
  const double limit = gpu_memory_gib * kBytesPerGiB;
  // With --expert-parallel N one copy spans a multiple of N cards: the EP group lives inside it
  // (expert_parallel.h), so the candidates are N, 2N, 4N, ...
  const int first = std::max(1, settings.expert_parallel);
  auto fewest_shards = [&]() -> std::optional<int> {
    for (int shards = first; shards <= gpu_count; shards *= 2) {
      TrainingSettings s = settings;
      s.gpus = shards;
      s.batch = 1;
      if (FitsOnCard(model, s, limit, k)) return shards;
    }
    return std::nullopt;
  };
  plan.shard_gpus = fewest_shards();
  if (!plan.shard_gpus && !settings.checkpointing) {
    settings.checkpointing = true;
    plan.shard_gpus = fewest_shards();
    plan.checkpointing_added = plan.shard_gpus.has_value();
    if (!plan.checkpointing_added) settings.checkpointing = false;
  }
  TrainingSettings sharded = settings;
  int widest = first;
  while (widest * 2 <= gpu_count) widest *= 2;
  // When nothing fits, show the rows for the widest sharding: the closest it gets.
  sharded.gpus = plan.shard_gpus.value_or(widest);
  plan.rows = BatchRows(model, sharded, limit, k);
  TrainingSettings at_seq = sharded;
  plan.batch_at_seq = LargestBatch(model, at_seq, limit, k);
  if (!plan.shard_gpus) return plan;

  plan.replicas = gpu_count / *plan.shard_gpus;
  const int used = plan.replicas * *plan.shard_gpus;
  const std::optional<ParamCounts> counts = model.counts();
  CostInput cost{counts ? static_cast<double>(counts->matmul_active(*model.arch)) : static_cast<double>(model.total_params()),
                 tokens, settings.method, settings.checkpointing, used, std::nullopt};
  plan.cost = ComputeTrainingCost(cost, throughput);

  // Communication per optimizer step, counted as if not overlapped with compute.
  const TrainingMemory memory = EstimateTrainingMemory(model, sharded, k);
  const MemoryComponent* gradients = memory.Find("gradients");
  const double gradient_bytes = gradients && gradients->bytes ? *gradients->bytes * sharded.gpus : 0;
  const double tokens_per_step = static_cast<double>(plan.batch_at_seq.value_or(1) * settings.seq) * used;
  const double steps = tokens / tokens_per_step;
  double bytes_per_step = 0;
  if (plan.replicas > 1) {
    // Ring all-reduce moves 2(n-1)/n of the buffer per GPU; bus bandwidth is defined on that.
    bytes_per_step += gradient_bytes * 2.0 * (plan.replicas - 1) / plan.replicas;
  }
  if (*plan.shard_gpus > 1) {
    // FSDP: all-gather weights for forward and for backward, reduce-scatter gradients.
    const MemoryComponent* weights = memory.Find("weights");
    const double full_weights = weights && weights->bytes ? *weights->bytes * sharded.gpus : 0;
    const double n = *plan.shard_gpus;
    bytes_per_step += (2 * full_weights + gradient_bytes) * (n - 1) / n;
  }
  plan.comm_hours = bytes_per_step * steps / (bandwidth.busbw_gbps * kBytesPerGB) / 3600;
  return plan;
}

nlohmann::json TrainingPlanJson(const TrainingPlan& plan) {
  nlohmann::json rows = nlohmann::json::array();
  for (const PlanRow& row : plan.rows) {
    rows.push_back({{"seq", row.seq},
                    {"max_batch", row.max_batch ? nlohmann::json(*row.max_batch) : nlohmann::json(nullptr)},
                    {"peak_per_gpu", BytesJson(row.peak_bytes)}});
  }
  return {{"gpu_count", plan.gpu_count},
          {"gpu_memory_gib", plan.gpu_memory_gib},
          {"shard_gpus", plan.shard_gpus ? nlohmann::json(*plan.shard_gpus) : nlohmann::json(nullptr)},
          {"replicas", plan.replicas},
          {"batch_at_seq", plan.batch_at_seq ? nlohmann::json(*plan.batch_at_seq) : nlohmann::json(nullptr)},
          {"rows", rows},
          {"tokens", plan.tokens},
          {"flops", plan.cost.flops},
          {"compute_hours", {{"low", plan.cost.hours_low}, {"high", plan.cost.hours_high}}},
          {"communication_hours", plan.comm_hours},
          {"checkpointing_added", plan.checkpointing_added}};
}

}  // namespace labcheck::calc
