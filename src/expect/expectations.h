// The analyser behind «Ожидалось в курсе → у вас» ("Expected → measured"): after all checks ran,
// it compares every figure with what the course promises, flags what is off by 2× or more with
// the course's advice, computes the two factors for the lessons' estimates and prepares the
// summary to send to the course authors.
#pragma once

#include "report/report.h"

namespace labcheck::expect {

// Adds ReportSections "expectations", "recommendations" (the two coefficients) and
// "send_to_authors" to a finished (possibly partial or interrupted) report, replacing earlier ones
// with these ids. Reads measurements by key (docs/measurement-keys.md) and check data
// (docs/report-schema.md: gpu.inventory for the GPU names/memory/PCIe link, gpu.matmul for
// clock_event_reasons, interconnect.allreduce for hung/nccl_error/wrong_sum, smoke checks'
// outcomes). Never throws.
void AddExpectationSections(Report& report);

}  // namespace labcheck::expect
