// The real binary on this machine: `lab_check --quick` writes a report whose JSON `journal` and
// `compare` read, and (once the app runs the analyser) which carries the three sections.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "saved_reports/compare.h"
#include "saved_reports/report_commands.h"
#include "report/saved_report_json.h"

namespace labcheck::expect {
namespace {

namespace fs = std::filesystem;
using saved_reports::Compare;
using saved_reports::Comparison;
using saved_reports::RunJournal;

class EndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("lab_check_e2e_" + std::to_string(::getpid())));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    const std::string command = std::string("'") + LAB_CHECK_BINARY + "' --quick --out '" + (*dir_ / "r.md").string() +
                                "' > '" + (*dir_ / "stdout.txt").string() + "' 2>&1";
    const int status = std::system(command.c_str());
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Output() {
    std::ifstream in(*dir_ / "stdout.txt");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static fs::path* dir_;
  static int exit_code_;
};
fs::path* EndToEnd::dir_ = nullptr;
int EndToEnd::exit_code_ = -1;

TEST_F(EndToEnd, QuickRunWritesAReportThatJournalAndCompareRead) {
  // 0: nothing failed; 1: a check failed on this machine. Both still write the report.
  ASSERT_TRUE(exit_code_ == 0 || exit_code_ == 1) << "exit " << exit_code_ << "\n" << Output();
  const std::string json_path = (*dir_ / "r.json").string();
  ASSERT_TRUE(fs::exists(json_path)) << Output();
  auto report = LoadReportJson(json_path, Lang::En);
  ASSERT_TRUE(report.ok()) << report.status().message();

  std::ostringstream out, err;
  const std::string journal = (*dir_ / "journal" / "lab.md").string();
  ASSERT_EQ(RunJournal({json_path, journal}, Lang::Ru, out, err), 0) << err.str();
  std::ifstream in(journal);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str().rfind("## lab_check, ", 0), 0u) << text.str();

  // A report compared with itself: every ratio 1, nothing changed.
  const Comparison c = Compare(*report, *report, "r.json", "r.json");
  for (const auto& row : c.rows) {
    if (row.ratio) {
      EXPECT_DOUBLE_EQ(*row.ratio, 1) << row.key;
    }
  }
  EXPECT_TRUE(c.environment.empty());
  EXPECT_TRUE(c.outcomes.empty());
}

TEST_F(EndToEnd, TheReportCarriesTheExpectationSections) {
  ASSERT_TRUE(fs::exists(*dir_ / "r.json")) << Output();
  auto report = LoadReportJson((*dir_ / "r.json").string(), Lang::En);
  ASSERT_TRUE(report.ok());
  const nlohmann::json* expectations = JsonSection(*report, "expectations");
  if (expectations == nullptr) {
    GTEST_SKIP() << "src/app does not call expect::AddExpectationSections yet";
  }
  EXPECT_FALSE((*expectations)["data"]["rows"].empty());
  const nlohmann::json* recommendations = JsonSection(*report, "recommendations");
  ASSERT_NE(recommendations, nullptr);
  EXPECT_TRUE((*recommendations)["data"].contains("training_time_factor"));
  EXPECT_TRUE((*recommendations)["data"].contains("communication_time_factor"));
  ASSERT_NE(JsonSection(*report, "send_to_authors"), nullptr);
  // Under --quick the smoke tests do not run: the training factor must say so, not invent one.
  EXPECT_TRUE((*recommendations)["data"]["training_time_factor"]["value"].is_null());
}

}  // namespace
}  // namespace labcheck::expect
