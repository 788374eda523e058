// The terminal report at 80, 100 and 120 columns: no line wider than the screen, nothing lost,
// Cyrillic and wide characters counted by the columns they take.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "../expect/report_fixtures.h"
#include "expect/expectations.h"
#include "report/display_width.h"
#include "report/terminal_writer.h"

namespace labcheck {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

size_t Widest(const std::string& text) {
  size_t widest = 0;
  for (const auto& line : Lines(text)) widest = std::max(widest, DisplayWidth(line));
  return widest;
}

// The course machine's report with the analysis sections, and the cells that make tables wide:
// a long Russian reason with a path, a hint with a command, a multi-line reason, CJK text.
Report FullReport(Lang lang) {
  Report r = expect::testing::CourseMachineReport();
  r.lang = lang;
  CheckResult& python = expect::testing::AddCheck(r, "env.python", Outcome::Fail);
  python.title = T("Python и пакеты курса", "Python and course packages");
  python.reason = T("интерпретатор /home/student/venvs/ai-course-2026-very-long-environment-name/bin/python не "
                    "ответил за 30 с: завис `import torch`",
                    "the interpreter /home/student/venvs/ai-course-2026-very-long-environment-name/bin/python did "
                    "not answer within 30 s: `import torch` hangs");
  python.hint = T("Проверьте вручную: timeout 30 ~/venvs/ai/bin/python -c \"import torch\". Частые причины: "
                  "драйвер NVIDIA в плохом состоянии, пакет на недоступном сетевом диске",
                  "Check it by hand: timeout 30 ~/venvs/ai/bin/python -c \"import torch\". Common causes: the "
                  "NVIDIA driver is in a bad state, a package on a network disk that does not answer");
  Table packages;
  packages.title = T("Пакеты курса", "Course packages");
  packages.columns = {T("Пакет", "Package"), T("Версия", "Version"), T("Где", "Where"), T("Комментарий", "Comment")};
  packages.AddRow({Text("torch"), Text("2.5.1+cu124 (CUDA 12.4)"),
                   Text("/home/student/venvs/ai-course-2026-very-long-environment-name/lib/python3.11/site-packages"),
                   T("Многострочная\nзаметка: 日本語のテキスト и длинное пояснение, которое не помещается в колонку",
                     "Multi-line\nnote: 日本語のテキスト and a long explanation that does not fit the column")});
  python.tables.push_back(packages);
  CheckResult& ddp = expect::testing::AddCheck(r, "smoke.ddp", Outcome::Warn);
  ddp.title = Text("DDP");
  ddp.reason = T("ранги разошлись:\nrank 0 ждёт all_reduce\nrank 1 ждёт barrier", "ranks diverged:\nrank 0 waits in "
                 "all_reduce\nrank 1 waits in barrier");
  expect::AddExpectationSections(r);
  return r;
}

class TerminalLayout : public ::testing::TestWithParam<std::tuple<size_t, Lang>> {};

TEST_P(TerminalLayout, NoLineWiderThanTheScreen) {
  const auto [width, lang] = GetParam();
  const std::string out = ReportToTerminal(FullReport(lang), TerminalStyle{false, width});
  for (const auto& line : Lines(out)) {
    EXPECT_LE(DisplayWidth(line), width) << "at " << width << " columns: " << line;
  }
  // Nothing is cut: words that fit a column stay whole on one line, wrapped or folded.
  for (const char* word : {"barrier", "all_reduce", "import", "torch"}) {
    EXPECT_NE(out.find(word), std::string::npos) << word << " at " << width;
  }
  EXPECT_EQ(out.find("…"), std::string::npos) << "a cell was truncated instead of wrapped";
}

INSTANTIATE_TEST_SUITE_P(Widths, TerminalLayout,
                         ::testing::Combine(::testing::Values(size_t{80}, size_t{100}, size_t{120}),
                                            ::testing::Values(Lang::Ru, Lang::En)));

TEST(TerminalLayoutColour, ColourCodesTakeNoColumns) {
  const std::string out = ReportToTerminal(FullReport(Lang::Ru), TerminalStyle{true, 80});
  EXPECT_NE(out.find("\x1b[31mFAIL"), std::string::npos);
  EXPECT_LE(Widest(out), 80u);
}

TEST(TerminalLayoutHeading, ExpectationsHeadingOnce) {
  for (Lang lang : {Lang::Ru, Lang::En}) {
    const std::string out = ReportToTerminal(FullReport(lang), TerminalStyle{false, 100});
    const std::string heading = lang == Lang::Ru ? "Ожидалось в курсе → у вас" : "Expected → measured";
    const auto lines = Lines(out);
    EXPECT_EQ(std::count(lines.begin(), lines.end(), heading), 1) << out;
  }
}

TEST(TerminalLayoutTable, ShortTablesKeepTheirNaturalLayout) {
  Table t;
  t.columns = {Text("Показатель"), Text("Value")};
  t.AddRow({Text("Память"), Text("1")});
  EXPECT_EQ(TableToTerminal(t, Lang::Ru, TerminalStyle{false, 80}), TableToTerminal(t, Lang::Ru, TerminalStyle{false, 0}));
}

TEST(TerminalLayoutTable, LongCellsWrapInsideTheirColumn) {
  Table t;
  t.columns = {Text("Проверка"), Text("Результат")};
  t.AddRow({Text("Память"), Text(std::string(30, 'x') + " " + std::string(30, 'y') + " " + std::string(30, 'z'))});
  const std::string out = TableToTerminal(t, Lang::Ru, TerminalStyle{false, 50});
  const auto lines = Lines(out);
  ASSERT_GE(lines.size(), 5u) << out;  // header, rule, three lines of the one row
  // The continuation lines start under the second column.
  const size_t column = lines[0].find("Результат");
  EXPECT_EQ(DisplayWidth(lines[0].substr(0, column)), DisplayWidth(lines[2].substr(0, lines[2].find('x'))));
  EXPECT_EQ(DisplayWidth(lines[0].substr(0, column)), DisplayWidth(lines[3].substr(0, lines[3].find('y'))));
  EXPECT_LE(Widest(out), 50u);
}

// The memory test's table at 100 columns split "0xffff806105cfffe7" after its 16th character: a
// 64-bit word in hex stays whole in its column, or the column folds under the row.
TEST(TerminalLayoutTable, AHexWordOfSixtyFourBitsStaysWhole) {
  Table t;
  t.columns = {Text("GPU"), Text("Offset, GiB"), Text("Address"), Text("Expected"), Text("Read"), Text("Read again")};
  t.AddRow({Text("GPU1 (0000:41:00.0)"), Text("0.128"), Text("0x7f9efa300018"), Text("0xffff806105cfffe7"),
            Text("0xffff806105cfdfe7"), Text("0xffff806105cfdfe7")});
  for (size_t width : {80u, 100u, 120u}) {
    const std::string out = TableToTerminal(t, Lang::En, TerminalStyle{false, width});
    EXPECT_LE(Widest(out), width) << out;
    for (const char* word : {"0xffff806105cfffe7", "0xffff806105cfdfe7"}) EXPECT_NE(out.find(word), std::string::npos) << out;
  }
}

TEST(TerminalLayoutTable, ColumnsThatCannotFitFoldUnderTheRow) {
  Table t;
  for (int i = 0; i < 8; ++i) t.columns.push_back(Text("Колонка" + std::to_string(i)));
  std::vector<Text> row;
  for (int i = 0; i < 8; ++i) row.push_back(Text("значение номер " + std::to_string(i)));
  t.AddRow(row);
  const std::string out = TableToTerminal(t, Lang::Ru, TerminalStyle{false, 80});
  EXPECT_LE(Widest(out), 80u) << out;
  EXPECT_NE(out.find("Колонка7: значение номер 7"), std::string::npos) << out;
}

TEST(WrapToWidth, BreaksAtSpacesAndCountsColumns) {
  EXPECT_EQ(WrapToWidth("Пропускная способность памяти", 12),
            (std::vector<std::string>{"Пропускная", "способность", "памяти"}));
  EXPECT_EQ(WrapToWidth("日本語 テキスト", 6), (std::vector<std::string>{"日本語", "テキス", "ト"}));
  EXPECT_EQ(WrapToWidth("/a/very/long/path", 6), (std::vector<std::string>{"/a/ver", "y/long", "/path"}));
  EXPECT_EQ(WrapToWidth("one\ntwo", 0), (std::vector<std::string>{"one", "two"}));
}

TEST(WrapToWidth, NoBreakSpaceHoldsWordsTogetherAndPrintsAsASpace) {
  const std::string cards = "RTX\xC2\xA0" "A5000, A10, RTX\xC2\xA0" "A6000";
  EXPECT_EQ(WrapToWidth(cards, 14), (std::vector<std::string>{"RTX A5000,", "A10, RTX A6000"}));
  EXPECT_EQ(WrapToWidth(cards, 0), (std::vector<std::string>{"RTX A5000, A10, RTX A6000"}));
  EXPECT_EQ(WrapToWidth("", 10), (std::vector<std::string>{""}));
  EXPECT_EQ(WrapToWidth("\x1b[31mFAIL\x1b[0m x", 6), (std::vector<std::string>{"\x1b[31mFAIL\x1b[0m x"}));
}

// Issues 52 and 56: a figure is never parted from its unit, its bracket or its phrase.
TEST(WrapToWidth, KeepsAFigureWithItsUnitAndItsPhrase) {
  // A plain greedy fill would end the first line with the figure.
  EXPECT_EQ(WrapToWidth("Matmul 716.8 GB/s", 12), (std::vector<std::string>{"Matmul", "716.8 GB/s"}));
  EXPECT_EQ(WrapToWidth("[1–11/40] SKIP    GPU checks и ещё 10 0.0 s", 36),
            (std::vector<std::string>{"[1–11/40] SKIP GPU checks", "и ещё 10 0.0 s"}));
  EXPECT_EQ(WrapToWidth("Left for cache 12.00 GiB (-10.00 GB)", 33),
            (std::vector<std::string>{"Left for cache 12.00 GiB", "(-10.00 GB)"}));
  // A longer word before a figure is a label, not its phrase: the line may break after it.
  EXPECT_EQ(WrapToWidth("you have 716.8 GB/s", 12), (std::vector<std::string>{"you have", "716.8 GB/s"}));
  EXPECT_EQ(WrapToWidth("skipped: Python and 11 more", 22), (std::vector<std::string>{"skipped: Python", "and 11 more"}));
  EXPECT_EQ(WrapToWidth("Всего 32 GiB — мало", 10), (std::vector<std::string>{"Всего", "32 GiB —", "мало"}));
  EXPECT_EQ(WrapToWidth("карты = в процессе и ещё 10 0.0 s", 24),
            (std::vector<std::string>{"карты = в процессе", "и ещё 10 0.0 s"}));
  EXPECT_EQ(WrapToWidth("29.2 GFLOPS (18%), N = 1024", 20), (std::vector<std::string>{"29.2 GFLOPS (18%),", "N = 1024"}));
  EXPECT_EQ(WrapToWidth("vllm serve --max-model-len 131072", 26),
            (std::vector<std::string>{"vllm serve", "--max-model-len 131072"}));
  // A figure does not bind the option after it: the flags of a command break between each other.
  EXPECT_EQ(WrapToWidth("--tp 4 --utilization 0.92 --max-model-len 131072", 30),
            (std::vector<std::string>{"--tp 4 --utilization 0.92", "--max-model-len 131072"}));
  EXPECT_EQ(WrapToWidth("8192/1024 при ≥ 70 GiB", 16), (std::vector<std::string>{"8192/1024 при", "≥ 70 GiB"}));
  EXPECT_EQ(WrapToWidth("not real GPUs: 4× NVIDIA", 20), (std::vector<std::string>{"not real GPUs:", "4× NVIDIA"}));
  EXPECT_EQ(WrapToWidth("реально 68–83 (70–85% паспорта)", 20), (std::vector<std::string>{"реально 68–83", "(70–85% паспорта)"}));
  // The unit of one figure is not the phrase of the next: the cell breaks between the two.
  EXPECT_EQ(WrapToWidth("-9.32 GiB (-10.00 GB)", 16), (std::vector<std::string>{"-9.32 GiB", "(-10.00 GB)"}));
}

TEST(WrapToWidth, BreaksBeforeAFigureWhereASentenceOrClauseEnds) {
  EXPECT_EQ(WrapToWidth("It fits at 48432. 131072 does not", 17),
            (std::vector<std::string>{"It fits at 48432.", "131072 does not"}));
  EXPECT_EQ(WrapToWidth("TP 2, TP 4", 6), (std::vector<std::string>{"TP 2,", "TP 4"}));
  EXPECT_EQ(WrapToWidth("memory: 32 GiB", 8), (std::vector<std::string>{"memory:", "32 GiB"}));
  // A figure inside a word is no figure: "A10," and "sm_89" break as words do.
  EXPECT_EQ(WrapToWidth("cards A10 sm_89 here", 9), (std::vector<std::string>{"cards A10", "sm_89", "here"}));
}

TEST(WrapToWidth, AGroupWiderThanTheLineBreaksBetweenItsWords) {
  EXPECT_EQ(WrapToWidth("1 2 3 4 5 6 7 8", 5), (std::vector<std::string>{"1 2 3", "4 5 6", "7 8"}));
  const std::string named = "NVIDIA\xC2\xA0" "GeForce\xC2\xA0" "RTX\xC2\xA0" "4080";
  EXPECT_EQ(WrapToWidth(named, 14), (std::vector<std::string>{"NVIDIA GeForce", "RTX 4080"}));
}

// Every width from the widest group of words held together up to 60 columns, over the report's
// own kinds of line: no line ends with a figure that the paragraph continues after (its unit on
// the next line), none starts with a dash.
TEST(WrapToWidth, NoWidthPartsAFigureFromItsUnit) {
  const std::vector<std::string> texts = {
      "[1–11/40] SKIP    Python: interpreter и ещё 10 0.0 s — no Python interpreter",
      "Memory bandwidth, GB/s: expected 570–650 → you have 716.8 GB/s (1.10 × the course)",
      "TP 2: 12.00 GiB (-10.00 GB) left for KV, 48432 tokens; with --max-model-len 48432 it fits",
      "Пропускная способность 716.8 ГБ/с при 32 ГиБ памяти и ещё 11 проверок за 0.0 с"};
  for (const std::string& text : texts) {
    for (size_t width = WidestUnbreakable(text); width <= 60; ++width) {
      const std::vector<std::string> lines = WrapToWidth(text, width);
      for (size_t k = 0; k + 1 < lines.size(); ++k) {
        const std::string& line = lines[k];
        const char last = line.back();
        EXPECT_FALSE(last >= '0' && last <= '9') << "at " << width << ": \"" << line << "\" / \"" << lines[k + 1] << "\"";
        EXPECT_NE(lines[k + 1].rfind("—", 0), 0u) << "at " << width << ": " << lines[k + 1];
      }
    }
  }
}

TEST(TerminalWidth, ColumnsVariableWinsAndIsClampedToTheMinimum) {
  setenv("COLUMNS", "132", 1);
  EXPECT_EQ(TerminalWidth(-1), 132u);
  setenv("COLUMNS", "10", 1);
  EXPECT_EQ(TerminalWidth(-1), kMinWidth);
  setenv("COLUMNS", "wide", 1);
  // Not a number: the terminal's own size, or the piped width when there is no terminal.
  EXPECT_GE(TerminalWidth(-1), kMinWidth);
  unsetenv("COLUMNS");
}

}  // namespace
}  // namespace labcheck
