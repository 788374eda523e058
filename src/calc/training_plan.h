// "What can this machine train": on the GPUs it has, the fewest cards a job fits on (sharded),
// the largest micro-batch at each sequence length, and how long an epoch of D tokens takes.
#pragma once
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/calc_constants.h"
#include "calc/model_input.h"
#include "calc/throughput.h"
#include "calc/training_cost.h"
#include "calc/training_settings.h"

namespace labcheck::calc {

struct PlanRow {
  int64_t seq = 0;
  std::optional<int64_t> max_batch;  // nullopt: not even batch 1 fits
  double peak_bytes = 0;             // per GPU at max_batch (or at batch 1 when it does not fit)
};

struct TrainingPlan {
  int gpu_count = 0;
  double gpu_memory_gib = 0;         // smallest card: every shard must fit on it
  std::optional<int> shard_gpus;     // cards one model copy is sharded over
  int replicas = 0;                  // data-parallel copies: gpu_count / shard_gpus
  int expert_parallel = 1;           // --expert-parallel: routed experts split over this many of a copy's cards
  std::vector<PlanRow> rows;
  std::optional<int64_t> batch_at_seq;  // the largest batch at the requested --seq
  TrainingCost cost;                 // compute time for the epoch on all cards
  double comm_hours = 0;             // gradient/shard traffic, not overlapped (upper bound)
  double tokens = 0;
  // Checkpointing was not asked for, but without it nothing fits; the plan turned it on.
  bool checkpointing_added = false;
};

TrainingPlan PlanTraining(const ModelInput& model, const TrainingSettings& settings, double tokens, int gpu_count,
                          double gpu_memory_gib, const Throughput& throughput, const Bandwidth& bandwidth,
                          const CalcConstants& constants);

nlohmann::json TrainingPlanJson(const TrainingPlan& plan);

}  // namespace labcheck::calc
