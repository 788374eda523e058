// The front pages' commands run (issue 52): every `build/lab_check …` example in README.md and
// README.ru.md is parsed by lab_check's real command line (`internal-parse-only`: flags, values,
// subcommands, --only against the checks; nothing run), and the English page stays short.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "readme_commands.h"
#include "runner/child_process.h"

namespace labcheck::docs {
namespace {

std::string ReadPage(const std::string& name) {
  std::ifstream in(std::string(LAB_CHECK_SOURCE_DIR) + "/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Empty when lab_check's parser accepts the arguments; else its exit code and message.
std::string ParseProblem(const ShownCommand& command) {
  ChildSpec spec;
  spec.argv = {LAB_CHECK_BINARY, "internal-parse-only"};
  spec.argv.insert(spec.argv.end(), command.args.begin(), command.args.end());
  spec.timeout_s = 30;
  const ChildOutcome outcome = RunChild(spec, CancelToken::Never());
  if (outcome.exit_code == 0) return "";
  return "line " + std::to_string(command.line) + ": " + command.text + "\n  exit " +
         std::to_string(outcome.exit_code) + ": " + outcome.err;
}

TEST(ReadmeCommandsTest, TheSplitterReadsCommentsQuotesAndRefusesWhatItCannot) {
  const auto shown = ShownLabCheckCommands(
      "text build/lab_check --outside-a-fence\n```sh\nbuild/lab_check --only 'gpu.health,gpu.memtest'   # two checks\n"
      "source ~/venvs/ai/bin/activate\nscripts/setup-and-check.sh --quick --lang en\nbuild/lab_check | tee log\n```\n");
  ASSERT_EQ(shown.size(), 3u);
  EXPECT_EQ(shown[0].line, 3);
  EXPECT_EQ(shown[0].args, (std::vector<std::string>{"--only", "gpu.health,gpu.memtest"}));
  EXPECT_EQ(shown[1].args, (std::vector<std::string>{"--quick", "--lang", "en"}));
  EXPECT_TRUE(shown[2].args.empty());
  EXPECT_NE(shown[2].text.find("unreadable"), std::string::npos);
}

TEST(ReadmeCommandsTest, AMistypedExampleIsCaught) {
  const auto shown = ShownLabCheckCommands("```sh\nbuild/lab_check --quik\nbuild/lab_check vram qwen3-8b --method qlroa\n```\n");
  ASSERT_EQ(shown.size(), 2u);
  EXPECT_NE(ParseProblem(shown[0]), "");
  EXPECT_NE(ParseProblem(shown[1]), "");
}

TEST(ReadmeCommandsTest, EveryExampleOnTheFrontPagesParses) {
  for (const char* page : {"README.md", "README.ru.md"}) {
    const auto shown = ShownLabCheckCommands(ReadPage(page));
    // Both pages show the two commands' first and at least five lab_check examples.
    EXPECT_GE(shown.size(), 6u) << page;
    for (const ShownCommand& command : shown) {
      if (command.args.empty() && command.text.rfind("unreadable", 0) == 0) {
        ADD_FAILURE() << page << ": " << command.text;
        continue;
      }
      EXPECT_EQ(ParseProblem(command), "") << page;
    }
  }
}

TEST(ReadmeCommandsTest, TheEnglishFrontPageIsReadInTwoMinutes) {
  const std::string readme = ReadPage("README.md");
  std::istringstream in(readme);
  int lines = 0, words = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    std::istringstream split(line);
    for (std::string word; split >> word;) ++words;
  }
  // Issue 52: at most 150 lines and 900 words (wc -l, wc -w).
  EXPECT_LE(lines, 150);
  EXPECT_LE(words, 900);
  EXPECT_GE(lines, 30);  // a README read from the wrong folder is empty, not short
}

}  // namespace
}  // namespace labcheck::docs
