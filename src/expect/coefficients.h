// The two factors the course asks for at the end of the report: by how much to multiply the
// lessons' training-time estimates (they assume 20–40 TFLOPS per card, 6ND) and their
// communication-time estimates (they assume all-reduce at W = 10 GB/s). Each says which
// measurement it came from, or why it is missing.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "expect/course_reference.h"
#include "expect/report_facts.h"
#include "reference/gpu_catalog.h"
#include "report/report.h"

namespace labcheck::expect {

struct Coefficient {
  std::string id;                        // "training_time_factor", "communication_time_factor"
  std::optional<double> value;           // multiply the lessons' estimate by this
  std::optional<reference::Band> range;  // training: from the lessons' 20–40 band
  std::string from_key;                  // the measurement it is computed from
  std::optional<double> measured;
  std::string measured_unit;
  Text missing_reason;  // set when value is empty
  // Communication: the ring's slowest link, which bounds the measured busbw («GPU 1↔2, без P2P…»);
  // empty when unknown or on the course machine (whose W is the reference).
  Text limited_by;

  nlohmann::json ToJson() const;
};

// assumed TFLOPS / measured smoke.llama.train_tflops: value from the band's middle, range from
// its edges. Missing without a GPU, under --quick, or when the Llama smoke test did not pass.
Coefficient TrainingTimeFactor(const Report& report, const ReportFacts& facts, const CourseReference& course);
// W / measured nccl.allreduce_busbw_gbps. Missing without a GPU, with one GPU, under
// --skip-dist, on a wrong sum, or when the all-reduce test produced no figure.
Coefficient CommunicationTimeFactor(const Report& report, const ReportFacts& facts, const CourseReference& course);

}  // namespace labcheck::expect
