// The chart layer (escaping, scales, ticks) and which charts a report gets.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "full_report_fixture.h"
#include "report/chart_axes.h"
#include "report/report_charts.h"
#include "report/svg_canvas.h"

namespace labcheck {
namespace {

const ReportChart* Chart(const std::vector<ReportChart>& charts, const std::string& id) {
  for (const ReportChart& c : charts) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

TEST(Svg, EscapesEverythingThatEntersIt) {
  EXPECT_EQ(XmlEscape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(XmlEscape(std::string("x\x01y")), "x y");  // not allowed in XML 1.0
  Svg svg(100, 50, "<title>");
  svg.Text(1, 2, "GPU 0 & 1 <fast>");
  const std::string doc = svg.Document();
  EXPECT_NE(doc.find("GPU 0 &amp; 1 &lt;fast&gt;"), std::string::npos);
  EXPECT_NE(doc.find("<title>&lt;title&gt;</title>"), std::string::npos);
}

TEST(Axes, ScalesAndTicks) {
  const Scale lin{0, 100, 10, 210};
  EXPECT_DOUBLE_EQ(lin(50), 110);
  const Scale log{1024, 1048576, 0, 100, true};
  EXPECT_DOUBLE_EQ(log(32768), 50);  // 2^15 is halfway between 2^10 and 2^20
  EXPECT_EQ(NiceTicks(0, 80, 4), (std::vector<double>{0, 20, 40, 60, 80}));
  EXPECT_DOUBLE_EQ(NiceMax(73), 80);
  EXPECT_EQ(Log2Ticks(1 << 20, 1 << 30, 6).size(), 6u);
  EXPECT_EQ(BytesTick(1 << 20), "1 MiB");
  EXPECT_EQ(BytesTick(256.0 * 1024 * 1024), "256 MiB");
  EXPECT_EQ(BytesTick(1ull << 30), "1 GiB");
}

TEST(ReportCharts, TheCourseMachineGetsEveryChart) {
  const std::vector<ReportChart> charts = BuildReportCharts(html_testing::FullCourseReport());
  for (const char* id : {"expected-matmul_bf16-rtx-4080-32gb", "expected-matmul_fp16-rtx-4080-32gb", "expected-memory_copy",
                         "expected-h2d", "expected-d2h", "expected-gpu_to_gpu", "expected-allreduce", "expected-llama_train",
                         "busbw", "cpu-gb-s", "cpu-gflops", "burn-tflops", "burn-sm-clock", "burn-temperature", "burn-power"}) {
    EXPECT_NE(Chart(charts, id), nullptr) << id;
  }
  std::string ids;
  for (const ReportChart& c : charts) ids += c.id + " ";
  SCOPED_TRACE(ids);
  // busbw: both runs, the course's W and the PCIe ceiling.
  const ReportChart* busbw = Chart(charts, "busbw");
  ASSERT_NE(busbw, nullptr);
  const std::string svg = busbw->svg.Document();
  EXPECT_NE(svg.find("без NCCL_P2P_DISABLE — завис"), std::string::npos);
  EXPECT_NE(svg.find("NCCL_P2P_DISABLE=1 (повтор)"), std::string::npos);
  EXPECT_NE(svg.find("W = 10 GB/s"), std::string::npos);
  EXPECT_NE(svg.find("предел канала PCIe 4.0 x16: 31.5 GB/s"), std::string::npos);
  EXPECT_NE(svg.find("1 GiB"), std::string::npos);  // log₂ axis in message sizes
  // The slow card's bar is drawn in the warning colour, the others are not.
  const std::string bf16 = Chart(charts, "expected-matmul_bf16-rtx-4080-32gb")->svg.Document();
  EXPECT_NE(bf16.find("#e15759"), std::string::npos);
  EXPECT_NE(bf16.find("GPU 3"), std::string::npos);
  EXPECT_NE(bf16.find("×0.45"), std::string::npos) << bf16;  // 30.5 / 68
}

TEST(ReportCharts, NoGpuNoGpuCharts) {
  Report r = html_testing::FullCourseReport();
  std::erase_if(r.checks, [](const CheckResult& c) { return c.section != "cpu"; });
  r.sections.clear();
  const std::vector<ReportChart> charts = BuildReportCharts(r);
  ASSERT_EQ(charts.size(), 2u);
  EXPECT_EQ(charts[0].section, "cpu");
}

TEST(ReportCharts, OddlyShapedDataLeavesTheChartOutNotTheReport) {
  Report r = html_testing::FullCourseReport();
  for (CheckResult& c : r.checks) {
    if (c.id == "gpu.burn") c.data["gpus"][0]["index"] = "zero";
    if (c.id == "interconnect.allreduce") c.data["ranks"] = "four";
  }
  std::vector<ReportChart> charts;
  EXPECT_NO_THROW(charts = BuildReportCharts(r));
  EXPECT_EQ(Chart(charts, "busbw"), nullptr);
  EXPECT_NE(Chart(charts, "expected-h2d"), nullptr);
}

// gpu.memtest's wrong bits: a dot per recorded word and bit, one colour per card; no chart for a
// clean run (the records here are made up for the test).
TEST(ReportCharts, MemtestErrorsAreDotsByOffsetAndBitOnlyWhenThereAreAny) {
  Report r;
  r.lang = Lang::En;
  CheckResult memtest;
  memtest.id = "gpu.memtest";
  memtest.section = "gpu";
  const nlohmann::json record = {{"offset_gib", 3.0}, {"bits", {13, 40}}};
  memtest.data = {{"cards", {{{"index", 0}, {"patterns", {{{"errors", {{"records", nlohmann::json::array()}}}}}}},
                             {{"index", 1}, {"patterns", {{{"errors", {{"records", {record, record}}}}}}}}}}};
  r.checks.push_back(memtest);
  const std::vector<ReportChart> charts = BuildReportCharts(r);
  const ReportChart* chart = Chart(charts, "memtest-errors");
  ASSERT_NE(chart, nullptr);
  const std::string svg = chart->svg.Document();
  EXPECT_NE(svg.find("Memory test: wrong bits by offset"), std::string::npos);
  EXPECT_NE(svg.find("GPU 1"), std::string::npos);
  EXPECT_EQ(svg.find("GPU 0"), std::string::npos);  // a clean card has no dots and no legend entry
  size_t circles = 0;
  for (size_t at = 0; (at = svg.find("<circle", at)) != std::string::npos; ++at) ++circles;
  EXPECT_EQ(circles, 1u + 4u);  // the legend's, then 2 records × 2 bits
  r.checks[0].data["cards"][1]["patterns"][0]["errors"]["records"] = nlohmann::json::array();
  EXPECT_EQ(Chart(BuildReportCharts(r), "memtest-errors"), nullptr);
}

// Every chart is well-formed XML, by libxml2's parser (xmllint, Debian's libxml2-utils).
TEST(ReportCharts, EverySvgIsValidXml) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) GTEST_SKIP() << "xmllint not installed (libxml2-utils)";
  const auto dir = std::filesystem::temp_directory_path() / ("labcheck-svg-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string files;
  for (Lang lang : {Lang::Ru, Lang::En}) {
    for (const ReportChart& c : BuildReportCharts(html_testing::FullCourseReport(lang))) {
      const auto path = dir / (c.id + (lang == Lang::Ru ? "-ru" : "-en") + ".svg");
      std::ofstream(path) << c.svg.Document();
      files += " " + path.string();
    }
  }
  EXPECT_EQ(std::system(("xmllint --noout" + files + " 2>&1").c_str()), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace labcheck
