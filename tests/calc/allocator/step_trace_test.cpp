// The step trace (calc/allocator/training_trace.h): every kind of event names its framework source,
// a layer saves what vram's estimate counts, and the replay's figures behave as the allocator's do
// (the least limit completes, less does not; a card too small runs out of memory and says where).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../catalog_model.h"
#include "calc/activation_memory.h"
#include "calc/allocator/replay.h"
#include "calc/allocator/training_trace.h"
#include "calc/calc_constants.h"
#include "calc/reserved_replay.h"
#include "calc/training_memory.h"

namespace labcheck::calc::allocator {
namespace {

const CalcConstants& CalcK() { return CalcConstants::Builtin(); }

TrainingSettings Settings(Method method, int gpus = 1) {
  TrainingSettings s;
  s.method = method;
  s.gpus = gpus;
  s.sharding = gpus > 1 ? Sharding::Fsdp : Sharding::Ddp;
  s.checkpointing = method == Method::Qlora;
  return s;
}

// One of each path the trace takes: one GPU (full, LoRA, QLoRA, the three losses, compile,
// optimizer in backward, 8-bit states), FSDP1 (fsdp_qlora's loop with and without offload,
// accelerate's, full),
// FSDP2 (LoRA, full with offload and embeddings as units).
std::vector<std::pair<std::string, TrainingSettings>> Variety() {
  std::vector<std::pair<std::string, TrainingSettings>> v;
  v.emplace_back("full", Settings(Method::Full));
  TrainingSettings lora = Settings(Method::Lora);
  lora.lora_dropout = 0.1;
  lora.loss = LossKind::Chunked;
  v.emplace_back("lora chunked dropout", lora);
  TrainingSettings qlora = Settings(Method::Qlora);
  qlora.loss = LossKind::Fused;
  qlora.optimizer = Optimizer::AdamW8bit;
  v.emplace_back("qlora fused 8-bit", qlora);
  TrainingSettings compiled = Settings(Method::Full);
  compiled.compile = true;
  compiled.optimizer_in_backward = true;
  compiled.optimizer = Optimizer::AdamWFused;
  compiled.checkpointing = true;
  v.emplace_back("full compile in-backward", compiled);
  TrainingSettings fsdp_qlora = Settings(Method::Qlora, 2);
  fsdp_qlora.keep_logits = true;
  fsdp_qlora.offload.params = true;
  fsdp_qlora.adapter_bytes = 2;
  v.emplace_back("fsdp1 qlora offload keep-logits", fsdp_qlora);
  TrainingSettings fsdp_lora = Settings(Method::Lora, 2);
  fsdp_lora.keep_logits = true;  // fsdp_qlora's loop with the gradients on the GPU (its zero_grad)
  v.emplace_back("fsdp1 lora keep-logits", fsdp_lora);
  TrainingSettings fsdp_full = Settings(Method::Full, 4);
  fsdp_full.checkpointing = true;
  v.emplace_back("fsdp1 full", fsdp_full);
  TrainingSettings fsdp2 = Settings(Method::Lora, 8);
  fsdp2.fsdp_version = 2;
  fsdp2.checkpointing = true;
  v.emplace_back("fsdp2 lora", fsdp2);
  TrainingSettings fsdp2_offload = Settings(Method::Full, 8);
  fsdp2_offload.fsdp_version = 2;
  fsdp2_offload.offload.params = true;
  fsdp2_offload.shard_embeddings = true;
  fsdp2_offload.checkpointing = true;
  v.emplace_back("fsdp2 full offload", fsdp2_offload);
  return v;
}

nlohmann::json Sources() {
  std::ifstream in(std::string(LAB_CHECK_SOURCE_DIR) + "/data/step_trace_sources.json");
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str()).at("sources");
}

// Issue 55: "every kind of event cites the framework line that issues it (file and commit)".
TEST(StepTraceSourcesTest, EveryEventNamesAFrameworkFileAndCommit) {
  const nlohmann::json sources = Sources();
  const std::regex commit("^[0-9a-f]{40}$");
  std::set<std::string> used;
  ModelInput ungated = testing::CatalogModel("llama-3.1-8b");  // a GELU MLP (fc1, fc2) for that path
  ungated.arch->gated_mlp = false;
  auto variety = Variety();
  variety.emplace_back("ungated mlp", Settings(Method::Full));
  for (size_t i = 0; i < variety.size(); ++i) {
    const auto& [name, s] = variety[i];
    const auto trace = TrainingTrace(i + 1 == variety.size() ? ungated : testing::CatalogModel("llama-3.1-8b"), s, CalcK());
    ASSERT_TRUE(trace.ok()) << name << ": " << trace.status().message();
    for (const TraceEvent& e : trace->events) {
      if (e.op == TraceOp::Stage) continue;
      used.insert(trace->sources.at(e.source));
    }
  }
  for (const std::string& key : used) {
    SCOPED_TRACE(key);
    ASSERT_TRUE(sources.contains(key));
    const nlohmann::json& s = sources.at(key);
    EXPECT_FALSE(s.at("repository").get<std::string>().empty());
    EXPECT_FALSE(s.at("file").get<std::string>().empty());
    EXPECT_FALSE(s.at("where").get<std::string>().empty());
    const bool pinned = s.contains("commit") && std::regex_match(s.at("commit").get<std::string>(), commit);
    EXPECT_TRUE(pinned || s.contains("version")) << "a commit (40 hex digits) or the version the behaviour belongs to";
  }
  EXPECT_GE(used.size(), 60u);
  // And nothing in the file that no trace uses: a key there documents an event that happens.
  for (const auto& [key, value] : sources.items()) EXPECT_TRUE(used.count(key) > 0) << key << " is in the file but no trace uses it";
}

// What is allocated when the loss stage begins, less what was when the forward began, is every
// layer's saved activations as LayerActivationsPerToken counts them, and the last layer's output.
TEST(StepTraceTest, ALayerSavesWhatTheEstimateCounts) {
  const ModelInput model = testing::CatalogModel("llama-3.1-8b");
  for (Method method : {Method::Full, Method::Lora, Method::Qlora}) {
    TrainingSettings s = Settings(method);
    s.checkpointing = false;
    s.lora_dropout = 0.1;
    s.seq = 1024;
    SCOPED_TRACE(MethodName(method));
    const auto trace = TrainingTrace(model, s, CalcK());
    ASSERT_TRUE(trace.ok());
    ReplayLimits limits;
    limits.record_stages = true;
    const ReplayResult r = Replay(*trace, AllocatorConfig::Defaults(AllocatorConstants::Builtin()), limits);
    uint64_t at_forward = 0, at_loss = 0;
    for (const auto& [stage, allocated] : r.allocated_at_stages) {
      if (stage == "step 2: forward") at_forward = allocated;
      if (stage == "step 2: final norm and loss") at_loss = allocated;
    }
    const Architecture& a = *model.arch;
    const double tokens = static_cast<double>(s.seq);
    const double expected = static_cast<double>(a.layers) * LayerActivationsPerToken(a, s).total() * tokens + 2.0 * a.hidden * tokens;
    EXPECT_NEAR(static_cast<double>(at_loss - at_forward), expected, expected * 0.001);
  }
}

TEST(StepTraceTest, TheLeastLimitCompletesAndLessDoesNot) {
  const TrainingSettings s = Settings(Method::Lora);
  const TrainingReplayer replayer(testing::CatalogModel("qwen3-1.7b"), s, CalcK(), AllocatorConfig::Defaults(AllocatorConstants::Builtin()));
  const ReservedReplay r = replayer.Replay();
  ASSERT_TRUE(r.modelled);
  EXPECT_GE(r.reserved_peak, r.allocated_peak);
  EXPECT_GE(r.need, r.allocated_peak);
  EXPECT_LE(r.need, r.reserved_peak);
  EXPECT_TRUE(*replayer.CompletesWithin(r.need));
  EXPECT_FALSE(*replayer.CompletesWithin(r.allocated_peak * 0.98));
}

TEST(StepTraceTest, ACardTooSmallRunsOutOfMemoryAndSaysWhere) {
  const TrainingSettings s = Settings(Method::Full);
  const TrainingReplayer replayer(testing::CatalogModel("llama-3.1-8b"), s, CalcK(), AllocatorConfig::Defaults(AllocatorConstants::Builtin()));
  const auto on = replayer.OnCard(CardFor("rtx-4090", 24, 1, CalcK()));
  ASSERT_TRUE(on.has_value());
  EXPECT_FALSE(on->fits);
  EXPECT_FALSE(on->oom_stage.empty());
  EXPECT_TRUE(on->card.total_from_source);  // the 4090's driver total is cited
  EXPECT_NEAR(on->card.total_bytes / (1 << 30), 23.64, 1e-9);
}

TEST(StepTraceTest, SettingsWithoutATraceSayWhy) {
  TrainingSettings s = Settings(Method::Lora);
  s.offload.activations = true;
  const auto trace = TrainingTrace(testing::CatalogModel("llama-3.1-8b"), s, CalcK());
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.status().message(), "activation offload");
  EXPECT_EQ(TrainingTrace(testing::CatalogModel("qwen3-30b-a3b"), Settings(Method::Lora), CalcK()).status().message(),
            "MoE layers (routed experts)");
}

// expandable_segments:True (the setting PyTorch's OOM message suggests against fragmentation) never
// reserves more than the default segments do for a step whose requests vary in size.
TEST(StepTraceTest, ExpandableSegmentsReserveNoMoreThanFixedOnes) {
  TrainingSettings s = Settings(Method::Qlora, 2);
  s.keep_logits = true;
  s.batch = 8;
  const ModelInput model = testing::CatalogModel("llama-3.1-8b");
  const auto fixed = TrainingReplayer(model, s, CalcK(), AllocatorConfig::Defaults(AllocatorConstants::Builtin())).Replay();
  const auto expandable = TrainingReplayer(model, s, CalcK(), AllocConfFrom("expandable_segments:True").value()).Replay();
  EXPECT_LE(expandable.reserved_peak, fixed.reserved_peak);
  EXPECT_GE(expandable.reserved_peak, expandable.allocated_peak);
}

}  // namespace
}  // namespace labcheck::calc::allocator
