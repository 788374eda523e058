#include "smoke/probe_lines.h"

#include <gtest/gtest.h>

namespace labcheck::smoke {
namespace {

TEST(ProbeLines, ReadsBeginsResultsAndFactsAmongNoise) {
  const std::string out =
      "some library banner\n"
      "LABCHECK_SMOKE_BEGIN _torch_import\n"
      "LABCHECK_SMOKE_FACTS {\"torch_version\": \"2.5.1\", \"devices\": []}\n"
      "LABCHECK_SMOKE_BEGIN llama_train\n"
      "warning: something\n"
      "LABCHECK_SMOKE_TEST {\"test\": \"llama_train\", \"status\": \"ran\"}\r\n"
      "LABCHECK_SMOKE_BEGIN hf_llama\n";
  SharedRunLines lines = ParseSharedRunOutput(out);
  EXPECT_EQ(lines.begun, (std::vector<std::string>{"_torch_import", "llama_train", "hf_llama"}));
  ASSERT_TRUE(lines.facts);
  EXPECT_EQ((*lines.facts)["torch_version"], "2.5.1");
  ASSERT_EQ(lines.results.count("llama_train"), 1u);
  EXPECT_EQ(lines.results["llama_train"]["status"], "ran");
  EXPECT_EQ(lines.Unfinished(), "hf_llama");
  EXPECT_TRUE(lines.problems.empty());
}

TEST(ProbeLines, TheTorchImportStageIsUnfinishedUntilItsFacts) {
  EXPECT_EQ(ParseSharedRunOutput("LABCHECK_SMOKE_BEGIN _torch_import\n").Unfinished(), "_torch_import");
  EXPECT_EQ(ParseSharedRunOutput("LABCHECK_SMOKE_BEGIN _torch_import\nLABCHECK_SMOKE_FACTS {}\n").Unfinished(),
            std::nullopt);
  EXPECT_EQ(ParseSharedRunOutput("nothing at all").Unfinished(), std::nullopt);
}

TEST(ProbeLines, BrokenMarkerLinesAreProblemsNotResults) {
  SharedRunLines lines = ParseSharedRunOutput(
      "LABCHECK_SMOKE_TEST {\"status\": \"ran\"}\n"   // no test name
      "LABCHECK_SMOKE_TEST {truncated\n"
      "LABCHECK_SMOKE_TEST [1, 2]\n");
  EXPECT_TRUE(lines.results.empty());
  EXPECT_EQ(lines.problems.size(), 3u);
}

}  // namespace
}  // namespace labcheck::smoke
