// The rows of «Ожидалось в курсе → у вас»: for each figure the course talks about, the reference
// for this machine's GPUs (the course's own figures on its RTX 4080 32 GB machine, the datasheet
// and realistic share elsewhere, derived figures for unknown GPUs) and what was measured.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/text.h"
#include "expect/course_reference.h"
#include "expect/deviation.h"
#include "expect/report_facts.h"
#include "reference/gpu_catalog.h"
#include "report/report.h"

namespace labcheck::expect {

struct Reading {
  std::string where;  // "GPU 0", "GPU 0→1", "" for a machine-wide figure
  int gpu = -1;       // device index, -1 for pairs and machine-wide figures
  std::string key;    // measurement key (docs/measurement-keys.md)
  double value = 0;
  // Its own reference where readings of one row differ (GPU→GPU copies: each pair against its
  // link); else the row's band applies.
  std::optional<reference::Band> band;
};

struct ExpectationRow {
  std::string id;         // course row id ("matmul_bf16", "h2d", "allreduce", ...)
  std::string gpu_model;  // catalog id of the GPUs the row covers ("derived" for unknown ones)
  Text gpu_name;          // shown when the machine has several models
  Text label, what, reference;
  std::optional<reference::Band> band;  // what the ratio is computed against
  std::vector<Reading> readings;
  Text measured;                    // rendered readings, or why there are none
  std::optional<Judgement> worst;   // the reading farthest from the band
  std::string worst_where;
  std::optional<Text> failure;      // a failure that flags the row without a figure (wrong sum)
  bool answered = false;            // a yes/no row (P2P) that was measured: no reading, still an answer
  bool derived = false;             // the reference is estimated, not a datasheet
  bool course_machine = false;      // the reference is the course page's own
  bool modified_card = false;       // the course's modified 32 GB RTX 4080: figures may differ
  Text note;
  // A fault this report found that explains the row's deviation (a link below its rating, a clock
  // limit read during the run, a hang or a wrong sum): then the deviation is this machine's to fix,
  // not the course's estimates to correct (send_to_authors_section.cpp).
  Text local_cause;

  bool flagged() const { return failure.has_value() || (worst && worst->flagged()); }
  Text FlagCell() const;
  Text RatioCell() const;
};

std::vector<ExpectationRow> BuildRows(const Report& report, const ReportFacts& facts,
                                      const CourseReference& course, const reference::GpuCatalog& catalog);

// The check whose figures fill a row ("gpu.matmul" for "matmul_bf16"); "" for an unknown row.
std::string RowCheckId(const std::string& row_id);

// Parts of BuildRows, one file each.
void AddGpuRows(const Report& report, const ReportFacts& facts, const CourseReference& course,
                const reference::GpuCatalog& catalog, std::vector<ExpectationRow>& rows);
void AddMachineRows(const Report& report, const ReportFacts& facts, const CourseReference& course,
                    const reference::GpuCatalog& catalog, std::vector<ExpectationRow>& rows);

// Shared by both: judge the readings against the band and render the measured cell; `missing`
// explains an empty row ("SKIP: no GPU").
void FinishRow(ExpectationRow& row, const CourseReference& course, const Text& missing);
// Why a check produced no figure: «не запускался», «SKIP: <reason>», «FAIL: <reason>».
Text MissingBecause(const Report& report, const ReportFacts& facts, const std::string& check_id);

}  // namespace labcheck::expect
