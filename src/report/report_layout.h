// What goes where, shared by the Markdown and terminal writers so that both tell the same story.
#pragma once
#include <string>
#include <vector>

#include "report/report.h"

namespace labcheck {

// Section ids in report order; a check whose section is unknown goes last.
const std::vector<std::string>& SectionOrder();
// Analyser sections shown right after the summary ("expectations"); the rest go at the end.
bool IsLeadingSection(const std::string& section_id);
// The summary table: section, check, status, time, one-line result.
Table StatusTable(const Report& report);
// The terminal's short summary: check, status, its one-line result. Checks in a row that were
// skipped for the same reason (no NVIDIA driver: every GPU check) share one line.
Table BriefStatusTable(const Report& report);
// A check's measurements as a table: figure, value (with the trust word), reference, how counted,
// spread. Empty when none.
Table MeasurementTable(const CheckResult& check);
// "PASS 12 · WARN 1 · FAIL 0 · SKIP 5"
std::string CountsLine(const Report& report);
// "полная проверка, --skip-dist" / "--quick, --only gpu.health": the run's mode, as given.
std::string ModeLine(const Report& report);
// "0.1.0 (commit 1a2b3c4d5e6f)": the version and, where the report carries it, the build's commit,
// so that a report sent on names the build that measured it.
std::string ToolVersionLine(const RunMeta& meta);
std::string ToolVersionLine(const std::string& version, const std::string& commit);

}  // namespace labcheck
