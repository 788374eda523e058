// One language per run: --help of the command and of every subcommand, and the error messages,
// in the language --lang names (Russian by default); the report's sources are ones a reader can open.
#include <gtest/gtest.h>

#include "app/cli_language.h"
#include "cli_support.h"
#include "core/regex_instances.h"  // <regex>, its code generated once

namespace labcheck {
namespace {

using cli_testing::RunLabCheck;

class Language : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = *MakePrivateTempDir("lab_check_lang_"); }
  void TearDown() override { RemoveTree(dir_); }
  std::string dir_;
};

bool HasCyrillic(const std::string& s) { return std::regex_search(s, std::regex("\xD0[\x90-\xBF]|\xD1[\x80-\x8F]")); }

// The English words CLI11 prints in a help page, and English prose of ours.
bool HasEnglishProse(const std::string& s) {
  return std::regex_search(s, std::regex(R"(\b(Usage|OPTIONS|Options|Subcommands|REQUIRED|Print this|print|the|and|per)\b)"));
}

const std::vector<std::string> kSubcommands = {"vram", "kv", "serve", "cost", "plan", "journal", "compare", "node-check"};

TEST_F(Language, RussianHelpEverywhereByDefault) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{{"--help"}}) {
    ChildOutcome o = RunLabCheck(dir_, args);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_TRUE(HasCyrillic(o.out));
    EXPECT_FALSE(HasEnglishProse(o.out)) << o.out;
  }
  for (const std::string& sub : kSubcommands) {
    ChildOutcome o = RunLabCheck(dir_, {sub, "--help"});
    EXPECT_EQ(o.exit_code, 0) << sub;
    EXPECT_TRUE(HasCyrillic(o.out)) << sub;
    EXPECT_FALSE(HasEnglishProse(o.out)) << sub << ":\n" << o.out;
  }
}

TEST_F(Language, EnglishHelpEverywhereWithLangEn) {
  for (const std::string& sub : std::vector<std::string>{"", "vram", "kv", "serve", "cost", "plan", "journal", "compare", "node-check"}) {
    std::vector<std::string> args = {"--lang", "en"};
    if (!sub.empty()) args.push_back(sub);
    args.push_back("--help");
    ChildOutcome o = RunLabCheck(dir_, args);
    EXPECT_EQ(o.exit_code, 0) << sub;
    EXPECT_FALSE(HasCyrillic(o.out)) << sub << ":\n" << o.out;
  }
}

TEST_F(Language, ParseErrorsSpeakTheRunsLanguage) {
  ChildOutcome ru = RunLabCheck(dir_, {"--fast"});
  EXPECT_EQ(ru.exit_code, 2);
  EXPECT_NE(ru.err.find("лишний аргумент: --fast"), std::string::npos) << ru.err;
  EXPECT_FALSE(HasEnglishProse(ru.err)) << ru.err;
  ChildOutcome en = RunLabCheck(dir_, {"--lang", "en", "--fast"});
  EXPECT_EQ(en.exit_code, 2);
  EXPECT_NE(en.err.find("--fast"), std::string::npos);
  EXPECT_FALSE(HasCyrillic(en.err)) << en.err;
  ChildOutcome missing = RunLabCheck(dir_, {"cost", "--params", "7B"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("не указан обязательный параметр --tokens"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("lab_check cost --help"), std::string::npos) << missing.err;
}

TEST(RussianParseError, TranslatesCli11sMessages) {
  EXPECT_EQ(RussianParseError("ValidationError", "--lang: de not in {ru,en}"),
            "недопустимое значение параметра --lang: de — не из {ru,en}");
  EXPECT_EQ(RussianParseError("ExtrasError", "The following arguments were not expected: a b"), "лишний аргумент: a b");
  EXPECT_EQ(RussianParseError("ConversionError", "Could not convert: --seq = abc"),
            "не удалось прочитать значение: --seq = abc");
  EXPECT_EQ(RussianParseError("ExcludesError", "--model excludes --params"), "--model и --params нельзя указать вместе");
}

// What a reader sees must cite what a reader can open: never a path of our development files.
// One --quick run serves both: it is the slow part.
TEST_F(Language, ReportsAndCalculatorsCiteNoDevelopmentFilesAndHeadingsComeOnce) {
  ChildOutcome run = RunLabCheck(dir_, {"--quick"});
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.err;
  const std::string heading = "Ожидалось в курсе → у вас\n";
  const size_t first = run.out.find(heading);
  ASSERT_NE(first, std::string::npos) << run.out;
  EXPECT_EQ(run.out.find(heading, first + 1), std::string::npos) << "the heading is printed twice:\n" << run.out;

  std::vector<std::pair<std::string, std::string>> texts = {{"terminal", run.out}};
  for (const char* file : {"/journal/lab-report.md", "/journal/lab-report.json"}) {
    auto text = ReadFile(dir_ + file);
    ASSERT_TRUE(text.ok()) << file;
    texts.push_back({file, *text});
  }
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"vram", "qwen3-8b", "--method", "qlora"}, {"vram", "qwen3-8b", "--json"},
           {"cost", "--params", "7B", "--tokens", "1e9", "--json"}, {"plan", "qwen3-8b", "--json"},
           {"serve", "32B", "--gpus", "4", "--gpu-mem", "32", "--json"}, {"kv", "qwen3-8b", "--json"}}) {
    ChildOutcome o = RunLabCheck(dir_, args);
    texts.push_back({args[0], o.out + o.err});
  }
  for (const auto& [what, text] : texts) {
    EXPECT_EQ(text.find("shared/"), std::string::npos) << what;
    EXPECT_EQ(text.find("seeds/"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace labcheck
