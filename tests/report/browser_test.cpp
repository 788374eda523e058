// The HTML report in a real browser: Debian's chromium, headless, JavaScript as it comes (the page
// has none). The DOM must hold every section and chart title; the screenshot must not be blank.
// Without chromium the test SKIPs with the reason (CI installs it: scripts/install-deps.sh --with-tests).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "full_report_fixture.h"
#include "png_ink.h"
#include "platform/files.h"
#include "report/html_page.h"
#include "report/html_writer.h"
#include "report/report_charts.h"

namespace labcheck {
namespace {

std::string Chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    if (std::system((std::string("command -v ") + name + " >/dev/null 2>&1").c_str()) == 0) return name;
  }
  return "";
}

// Runs chromium on the page; --no-sandbox because tests run as root in CI, a private profile so
// parallel runs do not share one, a timeout so a stuck browser fails the test instead of hanging it.
int RunChromium(const std::string& chromium, const std::filesystem::path& dir, const std::string& args) {
  const std::string cmd = "timeout 120 " + chromium + " --headless --no-sandbox --disable-gpu --no-first-run "
                          "--disable-dev-shm-usage --user-data-dir=" + (dir / "profile").string() + " " + args +
                          " 2>" + (dir / "chromium.log").string();
  return std::system(cmd.c_str());
}

class Browser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = Chromium();
    if (chromium_.empty()) GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh --with-tests installs it)";
    dir_ = std::filesystem::temp_directory_path() / ("labcheck-browser-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    report_ = html_testing::FullCourseReport();
    charts_ = BuildReportCharts(report_);
    page_ = dir_ / "lab-report.html";
    std::ofstream(page_) << ReportToHtml(report_, charts_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string chromium_;
  std::filesystem::path dir_, page_;
  Report report_;
  std::vector<ReportChart> charts_;
};

std::string DomText(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  return out;
}

TEST_F(Browser, TheDomHoldsEverySectionAndChartTitle) {
  const auto dom_path = dir_ / "dom.html";
  ASSERT_EQ(RunChromium(chromium_, dir_, "--dump-dom file://" + page_.string() + " >" + dom_path.string()), 0);
  Result<std::string> dom = ReadFile(dom_path.string());
  ASSERT_TRUE(dom.ok());
  ASSERT_GT(dom->size(), 10000u);
  for (const ReportSection& s : report_.sections) EXPECT_NE(dom->find(DomText(s.title.ru)), std::string::npos) << s.id;
  for (const char* section : {"Окружение", "Процессор и память", "Каждая карта отдельно", "Связь между картами", "Смоук-тесты курса"}) {
    EXPECT_NE(dom->find(std::string("<h2>") + section + "</h2>"), std::string::npos) << section;
  }
  size_t svgs = 0;
  for (size_t at = dom->find("<svg"); at != std::string::npos; at = dom->find("<svg", at + 1)) ++svgs;
  EXPECT_EQ(svgs, charts_.size());
  for (const ReportChart& c : charts_) EXPECT_NE(dom->find(DomText(c.title)), std::string::npos) << c.id;
  EXPECT_NE(dom->find("class=\"off2x\""), std::string::npos);
}

TEST_F(Browser, TheScreenshotIsNotBlank) {
  const auto png_path = dir_ / "shot.png";
  ASSERT_EQ(RunChromium(chromium_, dir_, "--hide-scrollbars --window-size=1200,2600 --screenshot=" + png_path.string() +
                                             " file://" + page_.string()),
            0);
  Result<std::string> bytes = ReadFile(png_path.string());
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  std::string error;
  std::optional<html_testing::Image> image = html_testing::DecodePng(*bytes, &error);
  ASSERT_TRUE(image.has_value()) << error;
  EXPECT_EQ(image->width, 1200);
  // Text, tables and charts cover a good part of a rendered page; a blank or error page does not.
  EXPECT_GT(html_testing::InkShare(*image), 0.04);
  // The bars' blue is there: the SVG charts were drawn, not only the text.
  EXPECT_GT(html_testing::PixelsNear(*image, 0x4e, 0x79, 0xa7), 500u);
}

}  // namespace
}  // namespace labcheck
