// The HTML report and the files of a run: every section, the charts inline and as linked SVG
// files, the >2× rows marked, nothing that points at the network; compare --html side by side.
#include <sstream>

#include <gtest/gtest.h>

#include "core/regex_instances.h"  // <regex>, its code generated once
#include "saved_reports/compare.h"
#include "saved_reports/compare_html.h"
#include "saved_reports/report_commands.h"
#include "full_report_fixture.h"
#include "platform/files.h"
#include "report/format.h"
#include "report/html_page.h"
#include "report/html_writer.h"
#include "report/json_reader.h"
#include "report/json_writer.h"
#include "report/report_charts.h"
#include "report/report_files.h"

namespace labcheck {
namespace {

// Network addresses in anything a browser would fetch or follow: src/href attributes, CSS url()
// and @import. The SVG namespace (xmlns) is a name, never fetched; a source cited as plain text
// is allowed (the course's and NVIDIA's URLs in the notes), a link to it is not.
std::vector<std::string> NetworkReferences(const std::string& text) {
  static const std::regex kRef(R"re(((?:src|href|xlink:href|action|poster|data)\s*=\s*["']?\s*(?:[a-z]+:)?//)|(url\(\s*["']?\s*(?:[a-z]+:)?//)|(@import))re",
                               std::regex::icase);
  std::vector<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kRef); it != std::sregex_iterator(); ++it) found.push_back(it->str());
  return found;
}

TEST(NetworkReferences, CatchesWhatABrowserWouldFetch) {
  EXPECT_EQ(NetworkReferences("<img src=\"https://x/y.png\">").size(), 1u);
  EXPECT_EQ(NetworkReferences("<a href='//cdn/x'>").size(), 1u);
  EXPECT_EQ(NetworkReferences("body { background: url( \"http://x\") }").size(), 1u);
  EXPECT_EQ(NetworkReferences("@import 'x.css';").size(), 1u);
  EXPECT_TRUE(NetworkReferences("<svg xmlns=\"http://www.w3.org/2000/svg\"> source: https://nvidia.com/a.pdf").empty());
}

TEST(HtmlReport, HoldsEverySectionEveryChartAndMarksTheOffRows) {
  const Report report = html_testing::FullCourseReport();
  const std::vector<ReportChart> charts = BuildReportCharts(report);
  const std::string html = ReportToHtml(report, charts);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* section : {"summary", "expectations", "environment", "cpu", "gpu", "interconnect", "smoke", "recommendations", "send_to_authors"}) {
    EXPECT_NE(html.find(std::string("<section id=\"") + section + "\">"), std::string::npos) << section;
  }
  for (const ReportSection& s : report.sections) EXPECT_NE(html.find("<h2>" + HtmlProse(s.title.ru) + "</h2>"), std::string::npos) << s.id;
  for (const ReportChart& c : charts) {
    EXPECT_NE(html.find("<figure id=\"chart-" + c.id + "\""), std::string::npos) << c.id;
  }
  // The GPU 3 matmul row is 2× below its band: its row is marked, in the expectations table only.
  EXPECT_NE(html.find("<tr class=\"off2x\">"), std::string::npos);
  EXPECT_NE(html.find("стабильно"), std::string::npos);  // the trust word in the figures' tables
  EXPECT_NE(html.find("повторов: медиана"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_TRUE(NetworkReferences(html).empty());
}

TEST(HtmlReport, ARunWritesMarkdownLinkingEverySvgAndTheHtml) {
  const Report report = html_testing::FullCourseReport(Lang::En);
  const std::vector<ReportFile> files = ReportFiles(report, "journal/lab-report.md", "");
  ASSERT_GE(files.size(), 3u);
  EXPECT_EQ(files.front().path, "journal/lab-report.md");
  EXPECT_EQ(files.back().path, "journal/lab-report.html");
  const std::string& md = files.front().content;
  size_t svgs = 0;
  for (const ReportFile& f : files) {
    EXPECT_TRUE(NetworkReferences(f.content).empty()) << f.path;
    if (f.path.size() < 4 || f.path.compare(f.path.size() - 4, 4, ".svg") != 0) continue;
    ++svgs;
    const std::string name = f.path.substr(f.path.find_last_of('/') + 1);
    EXPECT_EQ(f.path.rfind("journal/lab-report-", 0), 0u) << f.path;
    EXPECT_NE(md.find("](" + name + ")"), std::string::npos) << name;  // relative link, renders on GitHub
    EXPECT_EQ(f.content.rfind("<?xml", 0), 0u);
  }
  EXPECT_EQ(svgs, BuildReportCharts(report).size());
  EXPECT_NE(md.find("![All-reduce: busbw by message size](lab-report-busbw.svg)"), std::string::npos);
  EXPECT_EQ(ReportFiles(report, "out/x.md", "elsewhere/r.html").back().path, "elsewhere/r.html");
  EXPECT_EQ(HtmlPathBeside("report"), "report.html");
}

// A run leaves no chart of an earlier run beside its report, and never touches the user's SVGs.
TEST(HtmlReport, ChartsAnEarlierRunDrewAndThisOneDoesNotAreStale) {
  Result<std::string> dir = MakePrivateTempDir("labcheck_stale_charts_");
  ASSERT_TRUE(dir.ok());
  const std::string md = *dir + "/lab-report.md";
  const std::vector<ReportFile> files = ReportFiles(html_testing::FullCourseReport(Lang::En), md, "");
  for (const ReportFile& f : files) ASSERT_TRUE(WriteFileAtomically(f.path, f.content).ok());
  const std::string old_chart = *dir + "/lab-report-gpus-matmul_bf16_tflops-gpu7.svg";
  ASSERT_TRUE(WriteFileAtomically(old_chart, files[1].content).ok());  // as an earlier 8-GPU run wrote it
  ASSERT_TRUE(WriteFileAtomically(*dir + "/lab-report-my-notes.svg", "<svg xmlns=\"http://www.w3.org/2000/svg\"/>").ok());
  ASSERT_TRUE(WriteFileAtomically(*dir + "/other-busbw.svg", files[1].content).ok());  // another report's
  EXPECT_EQ(StaleChartFiles(md, files), std::vector<std::string>{old_chart});
  RemoveTree(*dir);
}

TEST(HtmlReport, ASavedReportRendersTheSameCharts) {
  const Report report = html_testing::FullCourseReport();
  const Report back = ReportFromJson(ReportToJson(report));
  const std::vector<ReportChart> a = BuildReportCharts(report), b = BuildReportCharts(back);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].svg.Document(), b[i].svg.Document()) << a[i].id;
}

TEST(HtmlReport, BurnTimelineFromAFixtureFile) {
  Result<std::string> text = ReadFile(std::string(LAB_CHECK_SOURCE_DIR) + "/tests/report/data/burn_report.json");
  ASSERT_TRUE(text.ok());
  const Report report = ReportFromJson(nlohmann::json::parse(*text));
  const std::vector<ReportChart> charts = BuildReportCharts(report);
  std::vector<std::string> ids;
  for (const ReportChart& c : charts) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"burn-tflops", "burn-sm-clock", "burn-temperature", "burn-power"}));
  const std::string svg = charts[0].svg.Document();
  EXPECT_NE(svg.find("GPU 0"), std::string::npos);
  EXPECT_NE(svg.find("GPU 1"), std::string::npos);
  EXPECT_NE(svg.find("Burn: TFLOPS"), std::string::npos);
  // A null sample breaks the line: GPU 0's power has two polylines around its missing second.
  const std::string power = charts[3].svg.Document();
  size_t lines = 0;
  for (size_t at = power.find("<polyline"); at != std::string::npos; at = power.find("<polyline", at + 1)) ++lines;
  EXPECT_EQ(lines, 3u);
}

TEST(CompareHtml, DrawsBothReportsSideBySide) {
  Report before = html_testing::FullCourseReport(Lang::En);
  Report after = before;
  for (CheckResult& c : after.checks) {
    for (Measurement& m : c.measurements) {
      if (m.key == "gpu3.matmul_bf16_tflops") m.value = 74.0;  // the card was fixed
    }
  }
  const nlohmann::json a = ReportToJson(before), b = ReportToJson(after);
  const saved_reports::Comparison c = saved_reports::Compare(a, b, "before.json", "after.json");
  const std::string html = saved_reports::CompareHtml(c, a, b, Lang::En);
  EXPECT_NE(html.find("<figure id=\"chart-a-busbw\""), std::string::npos);
  EXPECT_NE(html.find("<figure id=\"chart-b-busbw\""), std::string::npos);
  EXPECT_NE(html.find("class=\"side-by-side\""), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"off2x\"><td>GPU3: matmul BF16 (<code>gpu3.matmul_bf16_tflops</code>), TFLOPS"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_TRUE(NetworkReferences(html).empty());
}

TEST(CompareHtml, TheCommandWritesThePage) {
  const std::string dir = ::testing::TempDir() + "/labcheck-compare-html";
  const nlohmann::json a = ReportToJson(html_testing::FullCourseReport(Lang::En));
  ASSERT_TRUE(WriteFileAtomically(dir + "/a.json", a.dump()).ok());
  saved_reports::CompareOptions options{dir + "/a.json", dir + "/a.json", false, dir + "/out/compare.html"};
  std::ostringstream out, err;
  EXPECT_EQ(saved_reports::RunCompare(options, Lang::En, out, err), 0) << err.str();
  Result<std::string> page = ReadFile(dir + "/out/compare.html");
  ASSERT_TRUE(page.ok());
  EXPECT_NE(page->find("Charts: A left, B right"), std::string::npos);
  EXPECT_NE(err.str().find("Written: " + dir + "/out/compare.html"), std::string::npos);
  // An unwritable place is exit 3 with the path, like the main report.
  options.html = "/proc/no/compare.html";
  EXPECT_EQ(saved_reports::RunCompare(options, Lang::En, out, err), 3);
  EXPECT_NE(err.str().find("--html PATH"), std::string::npos);
}

}  // namespace
}  // namespace labcheck
