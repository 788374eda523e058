// `serve` says how many published vLLM start-up logs of the user's card and version stand behind
// its figures (src/calc/vllm_log_coverage.h), and --gpu names the card.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calc/vllm_log_coverage.h"
#include "calc_cli.h"

namespace labcheck::calc {
namespace {

const VllmVersion k019 = *ParseVllmVersion("0.19.1");

// The logs checked are from an H100 80GB HBM3, A100 80GB and 40GB cards (vLLM 0.10, and one 0.19 log
// of an A100 80GB), a Tesla T4 (0.18) and an L4 (0.11 and 0.29): an RTX 4090 has none, the 0.19 logs are the
// H100's and one A100's, the A100s have all 0.10 logs, the 0.11 logs are the H100's and the L4's, and
// a release without logs has none.
TEST(VllmLogCoverageTest, CountsTheLogsOfTheCardAndTheRelease) {
  const VllmLogCoverage h100 = CountCheckedVllmLogs("h100-sxm", k019);
  EXPECT_GT(h100.this_card_this_version, 0);
  const VllmLogCoverage a100_019 = CountCheckedVllmLogs("a100-sxm-80gb", k019);
  EXPECT_EQ(a100_019.this_card_this_version, 1);
  EXPECT_EQ(h100.this_card_this_version + a100_019.this_card_this_version, h100.this_version);
  const VllmLogCoverage a100 = CountCheckedVllmLogs("a100-sxm-80gb", *ParseVllmVersion("0.10.1"));
  EXPECT_GT(a100.this_card_this_version, 0);
  const VllmLogCoverage a100_40 = CountCheckedVllmLogs("a100-sxm-40gb", *ParseVllmVersion("0.10.1"));
  EXPECT_GT(a100_40.this_card_this_version, 0);
  EXPECT_EQ(a100.this_card_this_version + a100_40.this_card_this_version, a100.this_version);
  EXPECT_EQ(a100.this_card, a100.this_card_this_version + a100_019.this_card_this_version);
  const VllmLogCoverage t4 = CountCheckedVllmLogs("t4", *ParseVllmVersion("0.18.0"));
  EXPECT_EQ(t4.this_card_this_version, 1);
  const VllmLogCoverage l4 = CountCheckedVllmLogs("l4", *ParseVllmVersion("0.11.0"));
  EXPECT_EQ(l4.this_card_this_version, 1);
  EXPECT_EQ(l4.this_card, 6);  // and five of 0.29
  EXPECT_EQ(CountCheckedVllmLogs("l4", *ParseVllmVersion("0.29.0")).this_card_this_version, 5);
  EXPECT_EQ(CountCheckedVllmLogs("h100-sxm", *ParseVllmVersion("0.11.0")).this_card_this_version + 1, l4.this_version);
  EXPECT_EQ(h100.this_card + a100.this_card + a100_40.this_card + t4.this_card + l4.this_card, h100.total);
  const VllmLogCoverage rtx = CountCheckedVllmLogs("rtx-4090", k019);
  EXPECT_EQ(rtx.this_card, 0);
  EXPECT_EQ(rtx.this_card_this_version, 0);
  EXPECT_EQ(rtx.this_version, h100.this_version);
  const VllmLogCoverage unnamed = CountCheckedVllmLogs("", k019);
  EXPECT_EQ(unnamed.this_card, 0);
  EXPECT_EQ(unnamed.total, h100.total);
  const VllmLogCoverage no_logs = CountCheckedVllmLogs("h100-sxm", *ParseVllmVersion("0.12.0"));
  EXPECT_EQ(no_logs.this_card_this_version, 0);
  EXPECT_EQ(no_logs.this_card, h100.this_card);
  EXPECT_EQ(h100.cards, (std::vector<std::string>{"h100-sxm", "a100-sxm-80gb", "a100-sxm-40gb", "t4", "l4"}));
}

nlohmann::json ServeJson(const std::vector<std::string>& args, std::vector<LiveGpu> gpus = {}) {
  std::vector<std::string> full = {"serve", "llama-3.1-8b"};
  full.insert(full.end(), args.begin(), args.end());
  full.push_back("--json");
  const testing::CliRun run = testing::RunCalc(full, Lang::En, std::move(gpus));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return nlohmann::json::parse(run.out);
}

std::string NoteText(const nlohmann::json& out, const std::string& key) {
  for (const nlohmann::json& n : out.at("assumptions")) {
    if (n.at("key") == key) return n.at("text").get<std::string>();
  }
  return "";
}

TEST(VllmLogCoverageTest, ServeSaysHowManyLogsOfTheCardItWasCheckedAgainst) {
  const nlohmann::json rtx = ServeJson({"--gpu", "rtx-4090", "--gpu-mem", "23.5", "--vllm-version", "0.19.0"});
  const nlohmann::json& rtx_logs = rtx.at("serve").at("vllm_profile").at("checked_logs");
  EXPECT_EQ(rtx_logs.at("gpu_id"), "rtx-4090");
  EXPECT_EQ(rtx_logs.at("this_card"), 0);
  EXPECT_NE(NoteText(rtx, "checked_logs").find("no vLLM start-up log from NVIDIA GeForce RTX 4090 was checked"), std::string::npos)
      << NoteText(rtx, "checked_logs");

  const nlohmann::json h100 = ServeJson({"--gpu", "h100-sxm", "--gpu-mem", "79.19", "--vllm-version", "0.19.0"});
  const int logs = h100.at("serve").at("vllm_profile").at("checked_logs").at("this_card_this_version").get<int>();
  EXPECT_GT(logs, 0);
  EXPECT_NE(NoteText(h100, "checked_logs").find(fmt::format("checked against {} vLLM 0.19.x start-up logs from NVIDIA H100", logs)),
            std::string::npos)
      << NoteText(h100, "checked_logs");

  // Only the memory given: the card is not known, and the note says which cards the logs are from.
  const nlohmann::json unnamed = ServeJson({"--gpu-mem", "24"});
  EXPECT_TRUE(unnamed.at("serve").at("vllm_profile").at("checked_logs").at("gpu_id").is_null());
  EXPECT_NE(NoteText(unnamed, "checked_logs").find("card not named (--gpu)"), std::string::npos) << NoteText(unnamed, "checked_logs");
}

// The card named or found on the machine picks vLLM's batch defaults (the A100 gets the small ones
// at 80 GB) and, without --gpu-mem, the memory it is sold with.
TEST(VllmLogCoverageTest, TheCardPicksVllmsDefaultsAndItsMemory) {
  const nlohmann::json a100 = ServeJson({"--gpu", "a100-sxm-80gb"});
  EXPECT_EQ(a100.at("serve").at("max_num_seqs"), 256);
  EXPECT_EQ(a100.at("serve").at("gpu_memory_gib"), 80);
  const nlohmann::json h100 = ServeJson({"--gpu", "h100-sxm"});
  EXPECT_EQ(h100.at("serve").at("max_num_seqs"), 1024);
  const nlohmann::json live = ServeJson({}, {{"NVIDIA GeForce RTX 4090", 23.99}});
  EXPECT_EQ(live.at("serve").at("vllm_profile").at("checked_logs").at("gpu_id"), "rtx-4090");
}

TEST(VllmLogCoverageTest, AnUnknownCardIsRefusedWithTheKnownIds) {
  const testing::CliRun run = testing::RunCalc({"serve", "llama-3.1-8b", "--gpu", "rtx-9999"}, Lang::En);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--gpu \"rtx-9999\" is not a card of data/gpus.json"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("rtx-4090"), std::string::npos) << run.err;
}

// The note names the card in the report's language: the course's modified card is «модифицированная»
// in Russian, as the catalog's name_ru has it.
TEST(VllmLogCoverageTest, TheNoteNamesTheCardInTheReportsLanguage) {
  const WorkNote note = CheckedLogsNote("rtx-4080-32gb", k019);
  EXPECT_NE(note.text.ru.find("RTX 4080 32 GB (модифицированная)"), std::string::npos) << note.text.ru;
  EXPECT_EQ(note.text.ru.find("(modified)"), std::string::npos) << note.text.ru;
  EXPECT_NE(note.text.en.find("RTX 4080 32 GB (modified)"), std::string::npos) << note.text.en;
}

}  // namespace
}  // namespace labcheck::calc
