// Not a test: how long one replay of a training step through the allocator model takes, on one
// core (the replay is single-threaded), for the 70B models the published cases hold. Issue 55 asks
// for under a second, since plan replays every batch size it tries. Run it as
//   build/tests/calc/replay_benchmark
// and it prints, per case, the events of the trace and the best and median of several runs of
// building the trace and of replaying it.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "calc/allocator/replay.h"
#include "calc/allocator/training_trace.h"
#include "calc/calc_constants.h"
#include "calc/model_catalog.h"
#include "calc/model_input.h"

namespace {

using labcheck::calc::CalcConstants;
using labcheck::calc::ModelCatalog;
using labcheck::calc::ModelInput;
using labcheck::calc::TrainingSettings;
namespace allocator = labcheck::calc::allocator;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void Bench(const char* name, const ModelInput& model, const TrainingSettings& s) {
  constexpr int kRuns = 7;
  const auto config = allocator::AllocatorConfig::Defaults(allocator::AllocatorConstants::Builtin());
  std::vector<double> build, replay;
  size_t events = 0;
  for (int i = 0; i < kRuns; ++i) {
    auto start = std::chrono::steady_clock::now();
    const auto trace = allocator::TrainingTrace(model, s, CalcConstants::Builtin());
    build.push_back(Seconds(start));
    if (!trace.ok()) return (void)fmt::print("{}: no trace ({})\n", name, trace.status().message());
    events = trace->events.size();
    start = std::chrono::steady_clock::now();
    allocator::Replay(*trace, config, {});
    replay.push_back(Seconds(start));
  }
  std::sort(build.begin(), build.end());
  std::sort(replay.begin(), replay.end());
  fmt::print("{}: {} events (load and 3 steps); trace {:.3f} s best, {:.3f} s median; replay {:.3f} s best, {:.3f} s median\n", name,
             events, build.front(), build[kRuns / 2], replay.front(), replay[kRuns / 2]);
}

}  // namespace

int main() {
  const auto none = [](const std::string&) { return std::optional<std::string>(); };
  const ModelInput llama70 = labcheck::calc::ResolveModel("llama-3.1-70b", ModelCatalog::Builtin(), none).value();
  TrainingSettings full;
  full.method = labcheck::calc::Method::Full;
  full.gpus = 8;
  full.sharding = labcheck::calc::Sharding::Fsdp;
  full.checkpointing = true;
  Bench("Llama 3.1 70B full fine-tuning, FSDP1 over 8 GPUs, 2048 tokens", llama70, full);
  TrainingSettings qlora = full;
  qlora.method = labcheck::calc::Method::Qlora;
  qlora.gpus = 2;
  qlora.offload.params = true;
  qlora.keep_logits = true;
  qlora.batch = 2;
  qlora.lora_rank = 64;
  qlora.lora_dropout = 0.1;
  Bench("Llama 3.1 70B QLoRA, FSDP1 with CPU offload over 2 GPUs (fsdp_qlora), batch 2 x 2048", llama70, qlora);
  TrainingSettings fsdp2 = full;
  fsdp2.fsdp_version = 2;
  fsdp2.offload.params = true;
  fsdp2.shard_embeddings = true;
  fsdp2.loss = labcheck::calc::LossKind::Chunked;
  Bench("Llama 3.1 70B full fine-tuning, FSDP2 with CPU offload over 8 GPUs (torchtune)", llama70, fsdp2);
  TrainingSettings one;
  one.method = labcheck::calc::Method::Qlora;
  one.checkpointing = true;
  one.batch = 8;
  Bench("Llama 3.1 70B QLoRA on one GPU, batch 8 x 2048", llama70, one);
  return 0;
}
