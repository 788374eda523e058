#include "expect/expectations.h"

#include <algorithm>
#include <exception>

#include "expect/sections.h"

namespace labcheck::expect {

Analysis Analyse(const Report& report, const CourseReference& course, const reference::GpuCatalog& catalog) {
  Analysis a;
  a.facts = ReadFacts(report, catalog);
  a.rows = BuildRows(report, a.facts, course, catalog);
  a.hints = FindHints(report, a.facts, course, catalog, a.rows);
  a.training = TrainingTimeFactor(report, a.facts, course);
  a.communication = CommunicationTimeFactor(report, a.facts, course);
  return a;
}

void AddExpectationSections(Report& report) {
  auto& sections = report.sections;
  sections.erase(std::remove_if(sections.begin(), sections.end(),
                                [](const ReportSection& s) {
                                  return s.id == "expectations" || s.id == "recommendations" ||
                                         s.id == "send_to_authors";
                                }),
                 sections.end());
  try {
    const CourseReference& course = Course();
    const reference::GpuCatalog& catalog = reference::GpuCatalog::Builtin();
    const Analysis analysis = Analyse(report, course, catalog);
    sections.push_back(ExpectationsSection(analysis, course, catalog));
    sections.push_back(RecommendationsSection(analysis, course));
    sections.push_back(SendToAuthorsSection(report, analysis));
  } catch (const std::exception& e) {
    // A bug here must not cost the user the report the checks produced.
    ReportSection s;
    s.id = "expectations";
    s.title = T("Ожидалось в курсе → у вас", "Expected → measured");
    s.paragraphs.push_back(T(std::string("Не удалось сравнить с ориентирами курса: ") + e.what(),
                             std::string("Could not compare with the course's reference: ") + e.what()));
    sections.push_back(std::move(s));
  }
}

}  // namespace labcheck::expect
