// vLLM versions, the profile rule each follows, and the hybrid KV cache manager's layer groups.
#include "calc/vllm_profile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <nlohmann/json.hpp>

#include "calc/model_catalog.h"
#include "calc_cli.h"

namespace labcheck::calc {
namespace {

TEST(VllmProfileTest, VersionsParseWithTheirTags) {
  const auto v = ParseVllmVersion("v0.8.5.post1");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->major, 0);
  EXPECT_EQ(v->minor, 8);
  EXPECT_EQ(v->patch, 5);
  EXPECT_TRUE(ParseVllmVersion("0.11.0rc2").has_value());
  EXPECT_TRUE(ParseVllmVersion("0.10.1+cu128").has_value());
  EXPECT_EQ(ParseVllmVersion("0.19")->patch, 0);
  // vLLM 0.10.1.1 was released with four numbers; the fourth does not pick a rule.
  ASSERT_TRUE(ParseVllmVersion("0.10.1.1").has_value());
  EXPECT_EQ(ParseVllmVersion("0.10.1.1")->patch, 1);
  EXPECT_FALSE(ParseVllmVersion("latest").has_value());
  EXPECT_FALSE(ParseVllmVersion("0").has_value());
  EXPECT_FALSE(ParseVllmVersion("0.19/0").has_value());
  EXPECT_FALSE(ParseVllmVersion("").has_value());
}

TEST(VllmProfileTest, EachVersionGetsTheRuleOfItsLogs) {
  EXPECT_EQ(ChooseVllmProfile(*ParseVllmVersion("0.11.0")).rule.id, "v1-sorting-sampler");
  EXPECT_EQ(ChooseVllmProfile(*ParseVllmVersion("0.16.0")).rule.sampler_bytes_per_vocab_entry, 39);
  EXPECT_EQ(ChooseVllmProfile(*ParseVllmVersion("0.17.1")).rule.id, "v1-0.17");
  EXPECT_EQ(ChooseVllmProfile(*ParseVllmVersion("0.19.0")).rule.id, "v1-0.18");
  EXPECT_TRUE(ChooseVllmProfile(*ParseVllmVersion("0.19.1")).checked);
  // Outside the logged versions the nearest rule is used and said to be an assumption.
  EXPECT_FALSE(ChooseVllmProfile(*ParseVllmVersion("0.8.5")).checked);
  EXPECT_EQ(ChooseVllmProfile(*ParseVllmVersion("0.8.5")).rule.id, "v1-sorting-sampler");
  EXPECT_FALSE(ChooseVllmProfile(*ParseVllmVersion("0.25.0")).checked);
}

// Without --vllm-version and an installed vLLM, serve takes the newest version whose logs were
// checked (someone who has not installed vLLM will install the newest release), and that version's
// rule counts as checked.
TEST(VllmProfileTest, TheDefaultVersionIsTheNewestChecked) {
  VllmVersion newest = CheckedVllmLogs().front().version;
  for (const CheckedVllmLog& log : CheckedVllmLogs()) newest = std::max(newest, log.version);
  EXPECT_EQ(DefaultVllmVersion().text, newest.text);
  EXPECT_EQ(DefaultVllmVersion().text, "0.29.0");
  EXPECT_TRUE(ChooseVllmProfile(DefaultVllmVersion()).checked);
  const testing::CliRun run = testing::RunCalc({"serve", "qwen3-4b", "--gpus", "1", "--gpu-mem", "22.03", "--json"}, Lang::En);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json profile = nlohmann::json::parse(run.out).at("serve").at("vllm_profile");
  EXPECT_EQ(profile.at("vllm_version"), "0.29.0");
  EXPECT_EQ(profile.at("version_source"), "default");
}

TEST(VllmProfileTest, HybridManagerPadsTheWindowGroups) {
  const ModelCatalog& catalog = ModelCatalog::Builtin();
  // Gemma 3 27B: 10 full-attention and 52 window layers; groups of 10, 6 + 1 of them: 70 slots
  // (vLLM 0.19 prints "Add 8 padding layers").
  const KvLayerSlots g27 = HybridKvLayerSlots(catalog.Find("gemma-3-27b")->arch, true);
  EXPECT_EQ(g27.attention_layers, 62);
  EXPECT_EQ(g27.group_size, 10);
  EXPECT_EQ(g27.groups, 7);
  EXPECT_EQ(g27.slots, 70);
  // Gemma 3 12B: 8 and 40, no padding.
  EXPECT_EQ(HybridKvLayerSlots(catalog.Find("gemma-3-12b")->arch, true).slots, 48);
  // Without the hybrid manager every layer is one slot; a model with one attention type too.
  EXPECT_EQ(HybridKvLayerSlots(catalog.Find("gemma-3-27b")->arch, false).slots, 62);
  EXPECT_EQ(HybridKvLayerSlots(catalog.Find("llama-3.1-8b")->arch, true).slots, 32);
}

// A version before 0.8 runs the V0 engine by default; its profile step is not modelled, and the
// answer says so instead of passing the V1 rule off as V0's.
TEST(VllmProfileTest, AV0VersionSaysItsProfileIsNotModelled) {
  const std::string v0_note = "before 0.8 the default engine is V0";
  const testing::CliRun old = testing::RunCalc({"serve", "llama-3.1-8b", "--gpus", "1", "--gpu-mem", "24", "--vllm-version", "0.6.3"}, Lang::En);
  ASSERT_EQ(old.exit_code, 0) << old.err;
  EXPECT_NE(old.out.find(v0_note), std::string::npos) << old.out;
  const testing::CliRun v1 = testing::RunCalc({"serve", "llama-3.1-8b", "--gpus", "1", "--gpu-mem", "24", "--vllm-version", "0.8.0"}, Lang::En);
  ASSERT_EQ(v1.exit_code, 0) << v1.err;
  EXPECT_EQ(v1.out.find("engine is V0"), std::string::npos) << v1.out;
  const testing::CliRun ru = testing::RunCalc({"serve", "llama-3.1-8b", "--gpus", "1", "--gpu-mem", "24", "--vllm-version", "0.7.3"}, Lang::Ru);
  EXPECT_NE(ru.out.find("движок V0"), std::string::npos) << ru.out;
}

// --flashinfer-sampler charges the profile's sampler pass at FlashInfer's bytes (no sorted copy of
// the vocabulary), so the same card holds more KV tokens than under the sorting path, and the
// report says which sampler it assumed.
TEST(VllmProfileTest, FlashInferSamplerChargesLessThanTheSortingPath) {
  const VllmProfileChoice sorting = ChooseVllmProfile(*ParseVllmVersion("0.10.1.1"));
  const VllmProfileChoice flashinfer = WithFlashInferSampler(sorting);
  EXPECT_TRUE(flashinfer.flashinfer_sampler);
  EXPECT_FALSE(sorting.flashinfer_sampler);
  EXPECT_EQ(flashinfer.rule.id, sorting.rule.id);
  EXPECT_LT(flashinfer.rule.sampler_bytes_per_vocab_entry, sorting.rule.sampler_bytes_per_vocab_entry);
  const std::vector<std::string> args = {"serve", "llama-3.1-8b", "--gpus", "1", "--gpu-mem", "23.58", "--vllm-version", "0.10.1.1",
                                         "--max-num-seqs", "256", "--json"};
  std::vector<std::string> with_flag = args;
  with_flag.push_back("--flashinfer-sampler");
  const testing::CliRun plain = testing::RunCalc(args, Lang::En);
  const testing::CliRun fi = testing::RunCalc(with_flag, Lang::En);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(fi.exit_code, 0) << fi.err;
  const nlohmann::json a = nlohmann::json::parse(plain.out).at("serve");
  const nlohmann::json b = nlohmann::json::parse(fi.out).at("serve");
  EXPECT_EQ(a.at("vllm_profile").at("sampler"), "pytorch");
  EXPECT_EQ(b.at("vllm_profile").at("sampler"), "flashinfer");
  EXPECT_GT(b.at("options").at(0).at("kv_tokens").get<int64_t>(), a.at("options").at(0).at("kv_tokens").get<int64_t>());
  // The printed command makes vLLM take the sampler the plan assumed.
  EXPECT_EQ(b.at("vllm_command").get<std::string>().rfind("VLLM_USE_FLASHINFER_SAMPLER=1 vllm serve", 0), 0u) << b.at("vllm_command");
  EXPECT_EQ(a.at("vllm_command").get<std::string>().find("FLASHINFER"), std::string::npos) << a.at("vllm_command");
  const testing::CliRun text = testing::RunCalc({"serve", "llama-3.1-8b", "--gpus", "1", "--gpu-mem", "24", "--flashinfer-sampler"}, Lang::En);
  EXPECT_NE(text.out.find("FlashInfer's sampler"), std::string::npos) << text.out;
}

// The batch note names only what vLLM chose: a user who gave --max-num-seqs is not told it is
// vLLM's default.
TEST(VllmProfileTest, BatchDefaultsNoteNamesOnlyTheFlagsLeftToVllm) {
  const std::string both = "--max-num-seqs and --max-num-batched-tokens are vLLM's defaults";
  const testing::CliRun neither = testing::RunCalc({"serve", "llama-3.1-8b", "--gpus", "1", "--gpu-mem", "24"}, Lang::En);
  EXPECT_NE(neither.out.find(both), std::string::npos) << neither.out;
  const testing::CliRun seqs = testing::RunCalc({"serve", "llama-3.1-8b", "--gpus", "1", "--gpu-mem", "24", "--max-num-seqs", "128"}, Lang::En);
  EXPECT_EQ(seqs.out.find(both), std::string::npos) << seqs.out;
  EXPECT_NE(seqs.out.find("--max-num-batched-tokens is vLLM's default for this card"), std::string::npos) << seqs.out;
  const testing::CliRun given = testing::RunCalc(
      {"serve", "llama-3.1-8b", "--gpus", "1", "--gpu-mem", "24", "--max-num-seqs", "128", "--max-num-batched-tokens", "4096"}, Lang::En);
  EXPECT_EQ(given.out.find("for this card"), std::string::npos) << given.out;
}

// From vLLM 0.21 the memory profile captures the CUDA graphs and takes their memory from the budget
// before the KV cache is sized ("CUDA graph memory profiling is enabled (default since v0.21.0)");
// before, they came from the card's remaining share. 0.19 and 0.21 have the same sampler and
// non-torch figures, so the KV room differs by exactly the graphs, and not at all without graphs.
TEST(VllmProfileTest, From021TheCudaGraphsComeOutOfTheBudget) {
  EXPECT_FALSE(ChooseVllmProfile(*ParseVllmVersion("0.19.0")).rule.cuda_graphs_in_budget);
  EXPECT_FALSE(ChooseVllmProfile(*ParseVllmVersion("0.20.2")).rule.cuda_graphs_in_budget);
  EXPECT_TRUE(ChooseVllmProfile(*ParseVllmVersion("0.21.0")).rule.cuda_graphs_in_budget);
  EXPECT_TRUE(ChooseVllmProfile(*ParseVllmVersion("0.29.0")).checked);
  const auto room = [](const std::string& version, bool eager) {
    // One utilization for both versions (their defaults differ: 0.9 and 0.92), so only the graphs move.
    std::vector<std::string> args = {"serve", "qwen3-4b", "--gpus", "1", "--gpu-mem", "22.03", "--utilization", "0.9", "--vllm-version", version, "--json"};
    if (eager) args.push_back("--enforce-eager");
    const testing::CliRun run = testing::RunCalc(args, Lang::En);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const nlohmann::json serve = nlohmann::json::parse(run.out).at("serve");
    return std::make_pair(serve.at("options").at(0).at("kv_room_per_gpu").at("bytes").get<double>(),
                          serve.at("cuda_graphs_per_gpu").at("bytes").get<double>());
  };
  const auto [before, graphs] = room("0.19.0", false);
  const auto [after, graphs_after] = room("0.21.0", false);
  EXPECT_GT(graphs, 0);
  EXPECT_DOUBLE_EQ(graphs_after, graphs);
  EXPECT_DOUBLE_EQ(before - after, graphs);
  EXPECT_DOUBLE_EQ(room("0.19.0", true).first, room("0.21.0", true).first);
  const testing::CliRun text = testing::RunCalc({"serve", "qwen3-4b", "--gpus", "1", "--gpu-mem", "22.03", "--vllm-version", "0.29.0"}, Lang::En);
  EXPECT_NE(text.out.find("captures them while profiling"), std::string::npos) << text.out;
  const testing::CliRun ru = testing::RunCalc({"serve", "qwen3-4b", "--gpus", "1", "--gpu-mem", "22.03", "--vllm-version", "0.19.0"}, Lang::Ru);
  EXPECT_NE(ru.out.find("записываются после KV-кэша"), std::string::npos) << ru.out;
}

// vLLM's own --gpu-memory-utilization: 0.9 until 0.20, 0.92 from 0.21 (PR #38284, with the CUDA
// graphs in the budget). Without --utilization serve plans with the version's, says which it took,
// and the vllm serve line repeats it; a given --utilization wins.
TEST(VllmProfileTest, TheDefaultUtilizationFollowsTheVersion) {
  EXPECT_DOUBLE_EQ(ChooseVllmProfile(*ParseVllmVersion("0.10.1.1")).rule.default_utilization, 0.9);
  EXPECT_DOUBLE_EQ(ChooseVllmProfile(*ParseVllmVersion("0.20.2")).rule.default_utilization, 0.9);
  EXPECT_DOUBLE_EQ(ChooseVllmProfile(*ParseVllmVersion("0.21.0")).rule.default_utilization, 0.92);
  EXPECT_DOUBLE_EQ(ChooseVllmProfile(*ParseVllmVersion("0.29.0")).rule.default_utilization, 0.92);
  for (const VllmProfileRule& rule : VllmProfileRules()) {
    EXPECT_GT(rule.default_utilization, 0) << rule.id;
    EXPECT_LE(rule.default_utilization, 1) << rule.id;
    EXPECT_FALSE(rule.default_utilization_source.empty()) << rule.id;
  }
  const auto plan = [](const std::string& version, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"serve", "qwen3-4b", "--gpus", "1", "--gpu-mem", "22.03", "--vllm-version", version, "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const testing::CliRun run = testing::RunCalc(args, Lang::En);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return nlohmann::json::parse(run.out);
  };
  const nlohmann::json v20 = plan("0.20.0", {});
  EXPECT_DOUBLE_EQ(v20.at("serve").at("utilization").get<double>(), 0.9);
  EXPECT_EQ(v20.at("serve").at("utilization_source"), "vllm_default");
  const nlohmann::json v21 = plan("0.21.0", {});
  EXPECT_DOUBLE_EQ(v21.at("serve").at("utilization").get<double>(), 0.92);
  EXPECT_NE(v21.at("serve").at("vllm_command").get<std::string>().find("--gpu-memory-utilization 0.92"), std::string::npos) << v21.dump();
  const nlohmann::json given = plan("0.29.0", {"--utilization", "0.8"});
  EXPECT_DOUBLE_EQ(given.at("serve").at("utilization").get<double>(), 0.8);
  EXPECT_EQ(given.at("serve").at("utilization_source"), "flag");
  EXPECT_EQ(given.dump().find("default_utilization"), std::string::npos) << "a given --utilization needs no note";
  // The same card and version hold more KV at vLLM's 0.92 than at a given 0.9.
  const nlohmann::json at_09 = plan("0.29.0", {"--utilization", "0.9"});
  const nlohmann::json at_default = plan("0.29.0", {});
  EXPECT_GT(at_default.at("serve").at("options").at(0).at("kv_tokens").get<int64_t>(), at_09.at("serve").at("options").at(0).at("kv_tokens").get<int64_t>());
}

TEST(VllmProfileTest, TheNoteNamesTheDefaultUtilizationItTook) {
  const testing::CliRun en = testing::RunCalc({"serve", "qwen3-4b", "--gpus", "1", "--gpu-mem", "22.03", "--vllm-version", "0.29.0"}, Lang::En);
  ASSERT_EQ(en.exit_code, 0) << en.err;
  const std::string en_out = std::regex_replace(en.out, std::regex("\\s+"), " ");  // notes wrap on a terminal
  EXPECT_NE(en_out.find("no --utilization: 0.92, vLLM 0.29.0's default --gpu-memory-utilization (rule v1-0.21: 0.9 before 0.21, 0.92 from 0.21)"),
            std::string::npos) << en.out;
  const testing::CliRun ru = testing::RunCalc({"serve", "qwen3-4b", "--gpus", "1", "--gpu-mem", "22.03", "--vllm-version", "0.19.0"}, Lang::Ru);
  ASSERT_EQ(ru.exit_code, 0) << ru.err;
  const std::string ru_out = std::regex_replace(ru.out, std::regex("\\s+"), " ");
  EXPECT_NE(ru_out.find("--utilization не задан: 0.9, умолчание --gpu-memory-utilization в vLLM 0.19.0 (правило v1-0.18: 0.9 до 0.21, 0.92 с 0.21)"),
            std::string::npos) << ru.out;
  const testing::CliRun given = testing::RunCalc({"serve", "qwen3-4b", "--gpus", "1", "--gpu-mem", "22.03", "--utilization", "0.85"}, Lang::En);
  EXPECT_EQ(given.out.find("no --utilization"), std::string::npos) << given.out;
}

}  // namespace
}  // namespace labcheck::calc
