// What the course promises for each report row (data/course_expectations.json): the figures of its
// own machine, 4× RTX 4080 32 GB over PCIe 4.0, and what the lessons assume for every machine.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/text.h"
#include "reference/gpu_catalog.h"

namespace labcheck::expect {

struct CourseRow {
  std::string id;       // "matmul_bf16", "memory_copy", "h2d", "d2h", "p2p", "gpu_to_gpu", ...
  Text label;           // the report row: «Матмул BF16, TFLOPS»
  Text what;            // what it measures
  std::string lessons;  // where the course uses the figure: "5.7.1, 5.7.3"
  Text course_text;     // the course machine's reference, verbatim from the page
  std::optional<reference::Band> course_band;  // its practical band, same unit as the label
  std::optional<double> course_datasheet;
  std::optional<double> course_limit;
};

struct CourseReference {
  std::vector<CourseRow> rows;
  std::vector<std::string> course_gpu_ids;  // catalog ids of the course machine's cards
  int course_gpu_count = 0;
  std::vector<std::string> modified_card_ids;  // catalog ids the note below applies to
  Text modified_card_note;  // "modified 32 GB cards may differ from a stock RTX 4080"
  reference::Band train_tflops_assumed;  // per card, what the lessons' 6ND estimates use
  double allreduce_busbw_assumed_gbps = 0;  // the lessons' W
  double normal_within = 0;  // a deviation up to this share is "normal"
  double flag_factor = 0;    // off by this factor or more either way: flagged
  std::string source;

  const CourseRow* Row(std::string_view id) const;
  bool IsCourseGpu(const std::string& catalog_id) const;
  bool IsModifiedCard(const std::string& catalog_id) const;
};

// The reference compiled into the binary.
const CourseReference& Course();
Result<CourseReference> ParseCourseReference(const std::string& json_text);

}  // namespace labcheck::expect
