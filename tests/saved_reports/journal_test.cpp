// `lab_check journal`: appends dated key figures, never overwrites, clear errors on bad input.
#include "saved_reports/journal.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "saved_reports/report_commands.h"
#include "report_fixture.h"

namespace labcheck::saved_reports {
namespace {

namespace fs = std::filesystem;

using testing::Fixture;

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("lab_check_journal_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(JournalTest, AppendingTwiceKeepsWhatWasThereAndAddsTwoEntries) {
  const fs::path journal = dir_ / "journal" / "lab.md";
  fs::create_directories(journal.parent_path());
  std::ofstream(journal) << "# Мой журнал\n\nСтупень 4: GPT на 10M параметров, loss 3.1";  // no final newline
  std::ostringstream out, err;
  const JournalOptions options{Fixture("rtx4080x4.json"), journal.string()};
  ASSERT_EQ(RunJournal(options, Lang::Ru, out, err), 0) << err.str();
  ASSERT_EQ(RunJournal(options, Lang::Ru, out, err), 0) << err.str();
  const std::string text = ReadAll(journal);
  EXPECT_EQ(text.rfind("# Мой журнал\n\nСтупень 4: GPT на 10M параметров, loss 3.1\n\n## lab_check, ", 0), 0u) << text;
  EXPECT_EQ(Count(text, "## lab_check, 2026-12-02 14:00 UTC"), 2u);
  EXPECT_EQ(Count(text, "- Матмул BF16, TFLOPS: 74.1 (GPU 0), 75.3 (GPU 1), 73.8 (GPU 2), 74.9 (GPU 3)"), 2u);
  EXPECT_NE(text.find("- all-reduce, bus bandwidth, ГБ/с: 11.2"), std::string::npos);
  EXPECT_NE(text.find("- Обучение Llama, токенов/с: 31000"), std::string::npos);
  EXPECT_NE(text.find("- Коэффициент времени обучения: ×0.92 (×0.62–×1.23), из smoke.llama.train_tflops"), std::string::npos);
  EXPECT_NE(text.find("- Коэффициент времени обмена: ×0.89"), std::string::npos);
  EXPECT_NE(out.str().find("Дописано в"), std::string::npos);
}

TEST_F(JournalTest, CreatesTheJournalAndItsFolder) {
  const fs::path journal = dir_ / "new" / "lab.md";
  std::ostringstream out, err;
  ASSERT_EQ(RunJournal({Fixture("cpu_only.json"), journal.string()}, Lang::En, out, err), 0) << err.str();
  const std::string text = ReadAll(journal);
  EXPECT_EQ(text.rfind("## lab_check, 2026-12-02 10:15 UTC\n", 0), 0u) << text;
  EXPECT_NE(text.find("- Matmul BF16, TFLOPS: —"), std::string::npos);
  EXPECT_NE(text.find("- CPU memory (copy), GB/s: 18.2"), std::string::npos);
  EXPECT_NE(text.find("- Training-time factor: — no GPU"), std::string::npos);
}

TEST_F(JournalTest, MissingOrCorruptReportIsExitCodeTwoNamingThePath) {
  const fs::path journal = dir_ / "lab.md";
  std::ofstream(journal) << "keep me\n";
  for (const std::string& report : {(dir_ / "absent.json").string(), Fixture("corrupt.json"), Fixture("not_a_report.json")}) {
    std::ostringstream out, err;
    EXPECT_EQ(RunJournal({report, journal.string()}, Lang::Ru, out, err), 2);
    EXPECT_NE(err.str().find(report), std::string::npos) << err.str();
  }
  EXPECT_EQ(ReadAll(journal), "keep me\n");
}

TEST_F(JournalTest, UnwritableJournalIsAClearError) {
  std::ostringstream out, err;
  // A directory where the file should be: opening it for append fails on every system.
  fs::create_directories(dir_ / "lab.md");
  EXPECT_EQ(RunJournal({Fixture("cpu_only.json"), (dir_ / "lab.md").string()}, Lang::En, out, err), 2);
  EXPECT_NE(err.str().find("--journal"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace labcheck::saved_reports
