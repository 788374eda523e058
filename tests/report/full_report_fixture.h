// A full report of the course machine (4× RTX 4080 32 GB) as the HTML writer meets it: spreads on
// every benchmark figure, the all-reduce sweep of a first attempt that hung and the
// NCCL_P2P_DISABLE=1 retry that worked, one card 2× slow, the CPU figures with their peaks, a
// burn timeline, and the analyser's sections. No GPU needed.
#pragma once
#include "report/report.h"

namespace labcheck::html_testing {

Report FullCourseReport(Lang lang = Lang::Ru);
// The gpu.burn check as `lab_check burn` writes it (the contract in docs/html-report.md).
CheckResult BurnCheck();

}  // namespace labcheck::html_testing
