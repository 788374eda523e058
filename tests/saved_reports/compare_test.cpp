// `lab_check compare`: side by side with B/A, environment changes, other schema versions, and a
// clear error for a damaged file.
#include "saved_reports/compare.h"

#include <sstream>

#include <gtest/gtest.h>

#include "saved_reports/report_commands.h"
#include "report/saved_report_json.h"
#include "report_fixture.h"

namespace labcheck::saved_reports {
namespace {

using testing::Fixture;

nlohmann::json Load(const std::string& name) {
  auto r = LoadReportJson(Fixture(name), Lang::En);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : nlohmann::json();
}

const CompareRow* RowFor(const Comparison& c, const std::string& key) {
  for (const auto& r : c.rows) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

const EnvChange* Change(const std::vector<EnvChange>& list, const std::string& what) {
  for (const auto& e : list) {
    if (e.what == what) return &e;
  }
  return nullptr;
}

TEST(Compare, BeforeAndAfterAFixShowsRatiosAndWhatChanged) {
  const Comparison c = Compare(Load("rtx4080x4_before.json"), Load("rtx4080x4.json"), "before.json", "after.json");
  const CompareRow* h2d = RowFor(c, "gpu3.h2d_pinned_gbps");
  ASSERT_NE(h2d, nullptr);
  EXPECT_NEAR(*h2d->ratio, 24.5 / 12.6, 1e-9);
  EXPECT_FALSE(h2d->off_2x);  // 1.94×
  const CompareRow* same = RowFor(c, "gpu0.matmul_bf16_tflops");
  ASSERT_NE(same, nullptr);
  EXPECT_DOUBLE_EQ(*same->ratio, 1);
  ASSERT_NE(Change(c.environment, "driver_version"), nullptr);
  EXPECT_EQ(Change(c.environment, "driver_version")->a, "550.54.14");
  EXPECT_EQ(Change(c.environment, "GPU 3 PCIe")->b, "4.0 x16");
  EXPECT_EQ(Change(c.environment, "GPU 0 PCIe"), nullptr);  // unchanged facts are not listed
  EXPECT_EQ(Change(c.outcomes, "gpu.host_device_copy")->a, "WARN");
  EXPECT_EQ(c.a_schema, c.b_schema);
}

TEST(Compare, TwoMachinesOfDifferentSchemaVersions) {
  const Comparison c = Compare(Load("rtx4080x4.json"), Load("h100_schema2.json"), "a.json", "b.json");
  EXPECT_EQ(*c.a_schema, 1);
  EXPECT_EQ(*c.b_schema, 2);
  const CompareRow* llama = RowFor(c, "smoke.llama.train_tflops");
  ASSERT_NE(llama, nullptr);
  EXPECT_TRUE(llama->off_2x);
  EXPECT_NEAR(*llama->ratio, 280 / 32.5, 1e-9);
  // Keys only one side has stay, with no ratio: a new check in B shows at the end.
  const CompareRow* only_b = RowFor(c, "gpu0.new_figure_gbps");
  ASSERT_NE(only_b, nullptr);
  EXPECT_FALSE(only_b->a.has_value());
  EXPECT_FALSE(only_b->ratio.has_value());
  const std::string md = CompareMarkdown(c, Lang::Ru);
  EXPECT_NE(md.find("Версии схемы разные (A: 1, B: 2)"), std::string::npos);
  EXPECT_NE(md.find("| Матмул BF16 (`gpu4.matmul_bf16_tflops`), TFLOPS | — | 720 | — |"), std::string::npos) << md;
  EXPECT_EQ(Change(c.environment, "packages.torch")->b, "2.6.0");
  EXPECT_EQ(Change(c.environment, "gpu_count")->a, "4");
}

TEST(Compare, OddlyShapedReportsCompareWithoutThrowing) {
  const auto odd = nlohmann::json::parse(R"({"schema_version": "one", "meta": {"quick": "yes"},
    "checks": [1, {"id": 2}, {"measurements": "x"}, {"measurements": [{"key": "k", "value": "7"}, {"key": "k2", "value": 7}]},
               {"id": "gpu.inventory", "data": {"gpus": [1, {"index": "a"}, {"index": 0, "pcie_gen_max": "4"}]}},
               {"id": "env.python", "data": {"packages": {"torch": 2}}}]})");
  Comparison c;
  ASSERT_NO_THROW(c = Compare(odd, Load("cpu_only.json"), "odd", "cpu"));
  EXPECT_FALSE(c.a_schema.has_value());
  ASSERT_NE(RowFor(c, "k2"), nullptr);
  EXPECT_EQ(RowFor(c, "k"), nullptr);  // a value that is not a number is not a measurement
  EXPECT_NO_THROW(CompareMarkdown(c, Lang::En));
}

TEST(Compare, JsonOutputIsParseableAndComplete) {
  const Comparison c = Compare(Load("cpu_only.json"), Load("rtx4080x4.json"), "a", "b");
  const nlohmann::json j = nlohmann::json::parse(CompareJson(c).dump());
  EXPECT_EQ(j["a"], "a");
  EXPECT_EQ(j["rows"].size(), c.rows.size());
  EXPECT_TRUE(j["rows"][0].contains("ratio"));
  EXPECT_FALSE(j["environment"].empty());
}

TEST(CompareCommand, CorruptFileIsExitCodeTwoWithAClearMessage) {
  std::ostringstream out, err;
  const CompareOptions options{Fixture("rtx4080x4.json"), Fixture("corrupt.json"), false};
  EXPECT_EQ(RunCompare(options, Lang::En, out, err), 2);
  EXPECT_NE(err.str().find(Fixture("corrupt.json")), std::string::npos);
  EXPECT_NE(err.str().find("damaged"), std::string::npos);
  EXPECT_NE(err.str().find("Run lab_check again"), std::string::npos);
  EXPECT_TRUE(out.str().empty());
}

TEST(CompareCommand, BothBadFilesAreReportedAtOnce) {
  std::ostringstream out, err;
  EXPECT_EQ(RunCompare({"/nonexistent/a.json", Fixture("not_a_report.json"), false}, Lang::Ru, out, err), 2);
  EXPECT_NE(err.str().find("/nonexistent/a.json"), std::string::npos);
  EXPECT_NE(err.str().find("не отчёт lab_check"), std::string::npos);
}

TEST(CompareCommand, MarkdownReportGivenByMistakeGetsAPointer) {
  auto r = LoadReportJson(std::string(LAB_CHECK_SOURCE_DIR) + "/docs/report-schema.md", Lang::En);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("give lab-report.json instead"), std::string::npos);
}

TEST(CompareCommand, ThroughTheCommandLine) {
  const Lang lang = Lang::En;
  const std::string a = Fixture("rtx4080x4_before.json"), b = Fixture("rtx4080x4.json");
  ::testing::internal::CaptureStdout();
  const int exit_code = RunReportCommandLine({"compare", a, b, "--json"}, &lang);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(exit_code, 0);
  const auto j = nlohmann::json::parse(printed);  // --json: nothing but JSON on stdout
  EXPECT_EQ(j["b"], b);

  ::testing::internal::CaptureStderr();
  EXPECT_EQ(RunReportCommandLine({"compare", a, Fixture("corrupt.json")}, &lang), 2);
  ::testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace labcheck::saved_reports
