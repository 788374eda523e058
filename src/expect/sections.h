// Internal to src/expect: what the analyser found, and the three report sections built from it.
#pragma once
#include <vector>

#include "expect/coefficients.h"
#include "expect/course_reference.h"
#include "expect/expectation_rows.h"
#include "expect/hint_triggers.h"
#include "expect/report_facts.h"
#include "reference/gpu_catalog.h"
#include "report/report.h"

namespace labcheck::expect {

struct Analysis {
  ReportFacts facts;
  std::vector<ExpectationRow> rows;
  std::vector<TriggeredHint> hints;
  Coefficient training;
  Coefficient communication;
};

Analysis Analyse(const Report& report, const CourseReference& course, const reference::GpuCatalog& catalog);

ReportSection ExpectationsSection(const Analysis& analysis, const CourseReference& course,
                                  const reference::GpuCatalog& catalog);
ReportSection RecommendationsSection(const Analysis& analysis, const CourseReference& course);
ReportSection SendToAuthorsSection(const Report& report, const Analysis& analysis);
// The terminal's brief forms of the two sections (expectations_brief.cpp).
void AddBriefExpectations(const Analysis& analysis, ReportSection& expectations);
void AddBriefRecommendations(const Analysis& analysis, ReportSection& recommendations);

// "4× NVIDIA GeForce RTX 4080 32 GB (modified)", "2× A + 1× B", or «нет GPU».
Text GpuSummary(const ReportFacts& facts);
// The models CUDA saw ("4× RTX 4080"), without why fewer.
Text GpuNames(const ReportFacts& facts);
// A coefficient as one line: «×1.20 (0.80–1.60), из smoke.llama.train_tflops = 25.0 TFLOPS».
Text CoefficientLine(const Coefficient& c);

}  // namespace labcheck::expect
