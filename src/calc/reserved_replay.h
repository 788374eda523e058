// The reserved figure and the fit from the caching allocator's own rules (issue 55): the training
// step's allocations (allocator/training_trace.h) replayed through the allocator model
// (allocator/replay.h). Where no trace is modelled for the settings, the estimate keeps its flat
// allocator-cache fraction, and these results say so and why.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "calc/allocator/alloc_conf.h"
#include "calc/allocator/replay.h"
#include "calc/allocator/snapshot_compare.h"
#include "calc/allocator/step_trace.h"
#include "calc/calc_constants.h"
#include "calc/model_input.h"
#include "calc/training_memory.h"
#include "calc/training_settings.h"
#include "core/status.h"
#include "core/text.h"

namespace labcheck::calc {

// A card the run is placed on: what the driver reports as its memory, and what that leaves
// cudaMalloc once the CUDA context and (over several GPUs) NCCL's buffers are taken.
struct CardMemory {
  std::string id;           // catalog id, or "" for a size given in GiB
  double total_bytes = 0;   // totalGlobalMem
  bool total_from_source = false;  // a cited driver figure (calculator_constants.json), not the nominal size
  double limit_bytes = 0;   // what the allocator can get
};
CardMemory CardFor(const std::string& id, double nominal_gib, int gpus, const CalcConstants& constants);

struct CardReplay {
  CardMemory card;
  bool fits = false;             // the replay completed: no OutOfMemoryError after the free-and-retry
  std::string oom_stage;
  double reserved_peak = 0;      // max_memory_reserved on this card
  int64_t cache_flushes = 0;     // times the allocator freed its cache to retry a cudaMalloc
};

struct ReservedReplay {
  bool modelled = false;
  std::string not_modelled;      // why the flat fraction stays (English)
  std::string framework;
  double reserved_peak = 0;      // max_memory_reserved from the loop's start, with room to spare
  double allocated_peak = 0;     // the replay's own max_memory_allocated (the estimate's stays the figure)
  double reserved_after_load = 0;
  // The least the allocator must be able to get for the replay to complete (cache freed and retried
  // where it would fail): between the allocated and the reserved peak.
  double need = 0;
  std::string reserved_stage;
  std::string allocated_stage;
  std::string alloc_conf;
  std::optional<CardReplay> on_card;
  std::optional<allocator::SnapshotComparison> snapshot;  // --compare-snapshot

  // What a card needs beside the reserved peak: the CUDA context and (several GPUs) NCCL's buffers.
  double outside_allocator = 0;
};

// A trace built once and replayed on several cards (the rent table, plan's batch search).
class TrainingReplayer {
 public:
  TrainingReplayer(const ModelInput& model, const TrainingSettings& settings, const CalcConstants& constants,
                   const allocator::AllocatorConfig& config);
  bool modelled() const { return trace_.ok(); }
  // Unconstrained (room to spare) with the least it needs, and on `card` when given.
  ReservedReplay Replay(const std::optional<CardMemory>& card = std::nullopt) const;
  // Whether the replay completes with `limit` bytes for the allocator; nullopt where no trace is modelled.
  std::optional<bool> CompletesWithin(double limit) const;
  // One replay on `card` alone (plan's batch search); nullopt where no trace is modelled.
  std::optional<CardReplay> OnCard(const CardMemory& card) const;
  // The replay's segments after the last step and its peaks against a real run's snapshot.
  std::optional<allocator::SnapshotComparison> Compare(const allocator::SnapshotFigures& measured) const;
  // What a card needs beside the allocator's share: the CUDA context and (several GPUs) NCCL.
  double outside_allocator() const { return outside_allocator_; }

 private:
  double LeastLimit(const allocator::ReplayResult& free_run) const;

  Result<allocator::Trace> trace_;
  allocator::AllocatorConfig config_;
  double outside_allocator_ = 0;
};

// --alloc-conf (PYTORCH_CUDA_ALLOC_CONF syntax) or the defaults for an empty text.
Result<allocator::AllocatorConfig> AllocConfFrom(const std::string& text);

// The per-card need to print and plan with: the replay's reserved peak plus the context and NCCL,
// or the estimate's flat total where no trace is modelled.
double NeedFromReplay(const ReservedReplay& replay, const TrainingMemory& memory);

// Where a trace is modelled, the estimate's flat allocator cache gives way to the replay: its row
// becomes what the allocator needs beyond the allocated peak, the copy streams' rows (inside the
// replay) go, NCCL's buffers get a row over several GPUs, and the total is the replay's need.
void ApplyReplay(TrainingMemory& memory, const ReservedReplay& replay, int gpus, const CalcConstants& constants);

nlohmann::json ReservedReplayJson(const ReservedReplay& replay);
// A stage of the trace ("step 2: backward, layer 0") as each report language says it.
Text StageText(const std::string& stage);
// One line for vram: the reserved peak and its stage, or why the flat fraction is used.
Text ReservedReplayLine(const ReservedReplay& replay);

}  // namespace labcheck::calc
