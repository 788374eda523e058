// The memory test's result as a person reads it: the outcome and its one-line summary, the tables
// (cards, patterns with their GB/s beside the card's SM copy, the words that differed, the bits),
// the measurements and the JSON data the report's chart draws. Called by JudgeMemtest only.
#pragma once
#include <vector>

#include "core/check_result.h"
#include "gpu/memtest/memtest_log.h"
#include "gpu/memtest/memtest_verdicts.h"

namespace labcheck::gpu::memtest {

void FillOutcome(CheckResult& result, const MemtestLog& log, const std::vector<CardFacts>& facts, const JudgeOptions& options);
void AddTables(CheckResult& result, const MemtestLog& log, const std::vector<CardFacts>& facts, const JudgeOptions& options);

}  // namespace labcheck::gpu::memtest
