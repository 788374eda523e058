// `lab_check journal`: the course asks to write the key figures into journal/lab.md (TFLOPS,
// memory GB/s, all-reduce bus bandwidth, tokens/s) and both factors. This appends them, dated,
// and never overwrites what the user already wrote there.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/text.h"

namespace labcheck::saved_reports {

// A Markdown block for one report: a dated heading and one line per key figure ("—" if absent).
std::string JournalEntry(const nlohmann::json& report, const std::string& report_path, Lang lang);

// Appends `entry` to the file, creating it and its folder if needed, separated from what is
// there by a blank line. Opens in append mode only: existing text cannot be lost.
Status AppendToJournal(const std::string& journal_path, const std::string& entry, Lang lang);

}  // namespace labcheck::saved_reports
