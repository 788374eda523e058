#include <gtest/gtest.h>

#include "report/json_reader.h"
#include "report/json_writer.h"
#include "report/markdown_writer.h"
#include "report/report.h"
#include "report/terminal_writer.h"

namespace labcheck {
namespace {

Report SampleReport(Lang lang) {
  Report r;
  r.lang = lang;
  r.meta.tool_version = "9.9";
  r.meta.started_at = "2026-12-02T10:00:00Z";
  CheckResult cpu;
  cpu.id = "cpu.memory_bandwidth";
  cpu.section = "cpu";
  cpu.title = T("Пропускная способность памяти", "Memory bandwidth");
  cpu.outcome = Outcome::Pass;
  cpu.summary = T("копирование 18 ГБ/с", "copy 18 GB/s");
  Measurement m;
  m.key = "cpu.mem_copy_gbps";
  m.label = T("Копирование", "Copy");
  m.value = 18.25;
  m.unit = "GB/s";
  m.method = T("байты чтения + записи", "bytes read + bytes written");
  m.reference = 25.6;
  m.reference_label = T("2 канала DDR4-3200", "2 channels DDR4-3200");
  cpu.Add(m);
  CheckResult gpu = Skipped("gpu.matmul", T("нет драйвера NVIDIA", "no NVIDIA driver"), T("установите драйвер", "install the driver"));
  gpu.section = "gpu";
  gpu.title = T("Умножение матриц", "Matrix multiply");
  CheckResult smoke = Failed("smoke.ddp", T("ранги | разошлись", "ranks | diverged"), {}, "Traceback\nline 2");
  smoke.section = "smoke";
  smoke.title = Text("DDP");
  r.checks = {cpu, gpu, smoke};
  ReportSection expectations;
  expectations.id = "expectations";
  expectations.title = T("Ожидалось в курсе → у вас", "Expected → measured");
  r.sections.push_back(expectations);
  return r;
}

TEST(JsonWriter, HoldsSchemaChecksAndMeasurements) {
  nlohmann::json j = ReportToJson(SampleReport(Lang::Ru));
  EXPECT_EQ(j["schema_version"], kReportSchemaVersion);
  EXPECT_EQ(j["lang"], "ru");
  ASSERT_EQ(j["checks"].size(), 3u);
  EXPECT_EQ(j["checks"][0]["status"], "PASS");
  EXPECT_EQ(j["checks"][0]["measurements"][0]["key"], "cpu.mem_copy_gbps");
  EXPECT_DOUBLE_EQ(j["checks"][0]["measurements"][0]["value"].get<double>(), 18.25);
  EXPECT_EQ(j["checks"][0]["measurements"][0]["unit"], "GB/s");
  EXPECT_EQ(j["checks"][0]["measurements"][0]["method"], "байты чтения + записи");
  EXPECT_DOUBLE_EQ(j["checks"][0]["measurements"][0]["reference"]["value"].get<double>(), 25.6);
  EXPECT_EQ(j["checks"][1]["status"], "SKIP");
  EXPECT_EQ(j["checks"][1]["reason"], "нет драйвера NVIDIA");
  EXPECT_EQ(j["summary"]["PASS"], 1);
  EXPECT_EQ(j["summary"]["FAIL"], 1);
  EXPECT_EQ(j["sections"][0]["id"], "expectations");
}

TEST(JsonWriter, SpeaksTheChosenLanguage) {
  nlohmann::json j = ReportToJson(SampleReport(Lang::En));
  EXPECT_EQ(j["lang"], "en");
  EXPECT_EQ(j["checks"][1]["reason"], "no NVIDIA driver");
}

TEST(MarkdownWriter, RendersSectionsFiguresAndEscapesTables) {
  const std::string md = ReportToMarkdown(SampleReport(Lang::Ru));
  EXPECT_NE(md.find("# Отчёт lab_check"), std::string::npos);
  EXPECT_NE(md.find("## Процессор и память"), std::string::npos);
  EXPECT_NE(md.find("18.2 GB/s"), std::string::npos);
  EXPECT_NE(md.find("25.6 GB/s (71%)"), std::string::npos);
  EXPECT_NE(md.find("**Что делать:** установите драйвер"), std::string::npos);
  // The expectations section comes before the per-section details.
  EXPECT_LT(md.find("## Ожидалось в курсе → у вас"), md.find("## Процессор и память"));
  // '|' inside a cell cannot break the table.
  EXPECT_NE(md.find("ранги \\| разошлись"), std::string::npos);
  EXPECT_NE(md.find("```\nTraceback\nline 2\n```"), std::string::npos);
}

TEST(MarkdownWriter, AYesNoFactReadsAsAWord) {
  Report r = SampleReport(Lang::En);
  Measurement sum;
  sum.key = "nccl.allreduce_ok";
  sum.label = Text("all-reduce: the sum is right");
  sum.value = 1;
  sum.unit = "0/1";
  r.checks[0].Add(sum);
  const std::string md = ReportToMarkdown(r);
  EXPECT_NE(md.find("| all-reduce: the sum is right | yes |"), std::string::npos) << md;
  EXPECT_EQ(md.find("1 0/1"), std::string::npos);
  r.lang = Lang::Ru;
  r.checks[0].measurements.back().value = 0;
  EXPECT_NE(ReportToMarkdown(r).find("| all-reduce: the sum is right | нет |"), std::string::npos);
}

TEST(MarkdownWriter, ACountReadsAsTheNumber) {
  Report r = SampleReport(Lang::Ru);
  Measurement gpus;
  gpus.key = "gpu.count";
  gpus.label = T("Число GPU", "GPU count");
  gpus.value = 4;
  gpus.unit = "count";
  r.checks[0].Add(gpus);
  const std::string md = ReportToMarkdown(r);
  EXPECT_NE(md.find("| Число GPU | 4 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("4 count"), std::string::npos);
}

// A report sent on names the build that measured it; one without a commit (made by hand, or read
// from an older file) prints the version alone.
TEST(ReportWriters, TheBuildsCommitFollowsTheVersion) {
  Report r = SampleReport(Lang::En);
  r.meta.tool_commit = "1a2b3c4d5e6f-dirty";
  EXPECT_NE(ReportToMarkdown(r).find("- lab_check 9.9 (commit 1a2b3c4d5e6f-dirty)\n"), std::string::npos);
  const nlohmann::json j = ReportToJson(r);
  EXPECT_EQ(j["tool"]["commit"], "1a2b3c4d5e6f-dirty");
  EXPECT_EQ(ReportFromJson(j).meta.tool_commit, "1a2b3c4d5e6f-dirty");
  r.meta.tool_commit.clear();
  EXPECT_NE(ReportToMarkdown(r).find("- lab_check 9.9\n"), std::string::npos);
  EXPECT_FALSE(ReportToJson(r)["tool"].contains("commit"));
}

TEST(MarkdownWriter, EnglishReport) {
  const std::string md = ReportToMarkdown(SampleReport(Lang::En));
  EXPECT_NE(md.find("# lab_check report"), std::string::npos);
  EXPECT_NE(md.find("## CPU and memory"), std::string::npos);
  EXPECT_EQ(md.find("Память"), std::string::npos);
}

TEST(MarkdownWriter, SaysWhenInterrupted) {
  Report r = SampleReport(Lang::Ru);
  r.meta.interrupted = true;
  EXPECT_NE(ReportToMarkdown(r).find("Проверка прервана"), std::string::npos);
}

TEST(TerminalWriter, NoColourCodesWhenStyleIsPlain) {
  const std::string out = ReportToTerminal(SampleReport(Lang::Ru), TerminalStyle{false});
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_NE(out.find("FAIL"), std::string::npos);
  const std::string colored = ReportToTerminal(SampleReport(Lang::Ru), TerminalStyle{true});
  EXPECT_NE(colored.find("\x1b[31mFAIL"), std::string::npos);
}

}  // namespace
}  // namespace labcheck
