// AddExpectationSections on whole reports: the three sections, their shape, and the summary for
// the course authors.
#include "expect/expectations.h"

#include <gtest/gtest.h>

#include "report/markdown_writer.h"
#include "report_fixtures.h"

namespace labcheck::expect {
namespace {

const ReportSection& Section(const Report& r, const std::string& id) {
  for (const auto& s : r.sections) {
    if (s.id == id) return s;
  }
  ADD_FAILURE() << "no section " << id;
  static const ReportSection kNone;
  return kNone;
}

bool AnyCellContains(const Table& t, const std::string& text) {
  for (const auto& row : t.rows) {
    for (const auto& cell : row) {
      if (cell.ru.find(text) != std::string::npos || cell.en.find(text) != std::string::npos) return true;
    }
  }
  return false;
}

TEST(Sections, AddsThreeSectionsOnceEvenWhenCalledTwice) {
  Report r = testing::CourseMachineReport();
  AddExpectationSections(r);
  AddExpectationSections(r);
  ASSERT_EQ(r.sections.size(), 3u);
  EXPECT_EQ(r.sections[0].id, "expectations");
  EXPECT_EQ(r.sections[1].id, "recommendations");
  EXPECT_EQ(r.sections[2].id, "send_to_authors");
}

TEST(Sections, ExpectationsTableHasTheIssuesColumnsAndTheModifiedCardNote) {
  Report r = testing::CourseMachineReport();
  AddExpectationSections(r);
  const ReportSection& s = Section(r, "expectations");
  EXPECT_EQ(s.title.ru, "Ожидалось в курсе → у вас");
  EXPECT_EQ(s.title.en, "Expected → measured");
  ASSERT_FALSE(s.tables.empty());
  const Table& t = s.tables[0];
  ASSERT_EQ(t.columns.size(), 6u);
  EXPECT_EQ(t.columns[5].ru, "Расхождение > 2×");
  for (const auto& row : t.rows) EXPECT_EQ(row.size(), 6u);
  EXPECT_TRUE(AnyCellContains(t, "паспорт 97.5; реально 68–83 (70–85% паспорта) *"));
  bool note = false;
  for (const auto& n : t.notes) note = note || n.ru.find("* У модифицированных") != std::string::npos ||
                                       n.ru.find("могут отличаться от штатной RTX 4080") != std::string::npos;
  EXPECT_TRUE(note);
  EXPECT_EQ(s.tables.size(), 1u);  // nothing to advise on a healthy machine
  EXPECT_EQ(s.data["rows"].size(), t.rows.size());
}

TEST(Sections, FlaggedRowsCarryTheirHintAndReachTheSummary) {
  Report r = testing::CourseMachineReport();
  testing::Measure(r, "gpu.host_device_copy", "gpu3.h2d_pinned_gbps", 6.1);  // a x4 riser
  AddExpectationSections(r);
  const ReportSection& s = Section(r, "expectations");
  ASSERT_EQ(s.tables.size(), 2u);
  EXPECT_TRUE(AnyCellContains(s.tables[0], "да: ниже в 3.3 раза (GPU 3)"));
  EXPECT_TRUE(AnyCellContains(s.tables[1], "проверьте слот, райзер и настройки PCIe в BIOS"));
  EXPECT_EQ(s.data["hints"][0]["id"], "pcie_gen3");
  const ReportSection& send = Section(r, "send_to_authors");
  EXPECT_EQ(send.data["flagged_rows"], nlohmann::json::array({"h2d"}));
  EXPECT_NE(send.data["summary"]["ru"].get<std::string>().find("CPU→GPU, ГБ/с: 6.1–24.6 (4)"), std::string::npos)
      << send.data["summary"]["ru"];
  EXPECT_NE(send.paragraphs[0].ru.find("создайте issue"), std::string::npos);
  EXPECT_NE(send.paragraphs[1].ru.find("домашняя папка в путях заменена на ~"), std::string::npos);
}

TEST(Sections, RecommendationsGiveBothFactorsAndTheJournalReminder) {
  Report r = testing::CourseMachineReport();
  AddExpectationSections(r);
  const ReportSection& s = Section(r, "recommendations");
  EXPECT_NEAR(s.data["training_time_factor"]["value"].get<double>(), 30 / 32.5, 1e-12);
  EXPECT_NEAR(s.data["communication_time_factor"]["value"].get<double>(), 10 / 11.2, 1e-12);
  EXPECT_TRUE(AnyCellContains(s.tables[0], "×0.92 (от ×0.62 до ×1.23); из smoke.llama.train_tflops = 32.5 TFLOPS"));
  EXPECT_NE(s.paragraphs[0].ru.find("journal/lab.md"), std::string::npos);
}

TEST(Sections, CpuOnlyReportSaysWhyBothFactorsAreMissing) {
  Report r = testing::CpuOnlyReport();
  AddExpectationSections(r);
  const ReportSection& s = Section(r, "recommendations");
  EXPECT_TRUE(s.data["training_time_factor"]["value"].is_null());
  EXPECT_TRUE(AnyCellContains(s.tables[0], "нет: нет GPU"));
  const ReportSection& send = Section(r, "send_to_authors");
  EXPECT_NE(send.paragraphs[0].ru.find("Расхождений больше чем в 2 раза нет"), std::string::npos);
  EXPECT_NE(send.data["summary"]["en"].get<std::string>().find("GPU: no GPU"), std::string::npos);
}

// The terminal's brief forms: the measured rows only, and without a GPU one line saying so.
TEST(Sections, BriefFormsShowWhatWasMeasured) {
  Report course = testing::CourseMachineReport();
  AddExpectationSections(course);
  const ReportSection& rows = Section(course, "expectations");
  ASSERT_EQ(rows.brief_tables.size(), 1u);
  EXPECT_TRUE(AnyCellContains(rows.brief_tables[0], "W = 10")) << "the all-reduce row";
  for (const auto& row : rows.brief_tables[0].rows) EXPECT_NE(row[2].en, "—") << row[0].en;
  EXPECT_EQ(Section(course, "recommendations").brief_lines.size(), 2u);

  Report cpu = testing::CpuOnlyReport();
  AddExpectationSections(cpu);
  const ReportSection& none = Section(cpu, "expectations");
  EXPECT_TRUE(none.brief_tables.empty());
  ASSERT_FALSE(none.brief_lines.empty());
  EXPECT_EQ(none.brief_lines[0].en.rfind("The GPU rows need a GPU", 0), 0u) << none.brief_lines[0].en;
  EXPECT_NE(Section(cpu, "recommendations").brief_lines[0].en.find("Training time: none"), std::string::npos);
}

TEST(Sections, AnEmptyOrInterruptedReportDoesNotThrow) {
  Report empty;
  empty.meta.interrupted = true;
  EXPECT_NO_THROW(AddExpectationSections(empty));
  EXPECT_EQ(empty.sections.size(), 3u);
  EXPECT_NE(Section(empty, "expectations").paragraphs.back().ru.find("прервана"), std::string::npos);
}

TEST(Sections, GarbageCheckDataIsTolerated) {
  Report r = testing::CourseMachineReport();
  testing::Inventory(r)["gpus"] = {"not an object", 42, nullptr};
  testing::AddCheck(r, "gpu.matmul", Outcome::Pass).data["gpus"] = "oops";
  testing::AddCheck(r, "interconnect.allreduce", Outcome::Pass).data = {{"hung", "yes"}, {"wrong_sum", 1}};
  EXPECT_NO_THROW(AddExpectationSections(r));
  EXPECT_EQ(r.sections.size(), 3u);
}

// The notes under the table speak the report's language: in Russian our descriptions of the sources
// are Russian, while the whitepaper keeps its published English title, its URL stays and the
// course's phrases are quoted as they are; the English report reads as it always did.
TEST(Sections, SourceNotesSpeakTheReportsLanguage) {
  const std::string ada = "NVIDIA Ada GPU Architecture whitepaper v2.1";
  const std::string url = "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf";
  const std::string course_en = "Course lab page «Ваша лаборатория (4×GPU)» of the LLM course, table in section «Как читать отчёт»";
  struct Expected {
    Lang lang;
    std::vector<std::string> lines;  // whole note lines as the Markdown prints them
  };
  const Expected expected[] = {
      {Lang::Ru,
       {"GPU: 4× NVIDIA GeForce RTX 4080 32 GB (модифицированная)",
        "_Источник для NVIDIA GeForce RTX 4080 32 GB (модифицированная): " + ada + ", приложение A (RTX 4090, RTX 4080 16 ГБ, RTX "
        "6000 Ada): " + url + " (цифры штатной RTX 4080); страница курса по LLM «Ваша лаборатория (4×GPU)», таблица в разделе «Как "
        "читать отчёт» (машина курса: 4× RTX 4080 32 ГБ)_",
        "_Доли паспорта: страница курса по LLM «Ваша лаборатория (4×GPU)», таблица в разделе «Как читать отчёт»: 'реально 68–83 "
        "(70–85% паспорта)' для матмула BF16/FP16 8192×8192; "}},
      {Lang::En,
       {"GPU: 4× NVIDIA GeForce RTX 4080 32 GB (modified)",
        "_Source for NVIDIA GeForce RTX 4080 32 GB (modified): " + ada + ", appendix A (RTX 4090, RTX 4080 16 GB, RTX 6000 Ada): " +
            url + " (stock RTX 4080 figures); " + course_en + " (the course machine: 4× RTX 4080 32 GB)_",
        "_Shares of the datasheet: " + course_en + ": 'реально 68–83 (70–85% паспорта)' for BF16/FP16 matmul 8192×8192; " +
            course_en + ": 'реально 570–650 (80–90%)' for a large device-to-device copy_"}},
  };
  Report r = testing::CourseMachineReport();
  AddExpectationSections(r);
  for (const Expected& e : expected) {
    r.lang = e.lang;
    const std::string md = ReportToMarkdown(r);
    for (const std::string& line : e.lines) EXPECT_NE(md.find(line), std::string::npos) << line << "\n---\n" << md;
  }
  r.lang = Lang::Ru;
  const std::string ru = ReportToMarkdown(r);
  for (const char* ours : {"of the LLM course", "table in section", "stock RTX 4080 figures", "for BF16/FP16 matmul",
                           "device-to-device copy", "the course machine:", "(modified)"})
    EXPECT_EQ(ru.find(ours), std::string::npos) << ours;
}

}  // namespace
}  // namespace labcheck::expect
