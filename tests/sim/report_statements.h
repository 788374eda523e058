// Every statement a lab_check report makes, as the truth test (truth_test.cpp) reads them: each
// check's summary, reason and hint and its tables' cells and notes; each section's paragraphs,
// tables, rows (reference, measured, note), hints and factors; and the terminal's lines. In the
// report's language; raw errors (tracebacks, a child's stderr) are data, not statements.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario_support.h"

namespace labcheck::sim {

struct Statement {
  std::string where;  // "gpu.inventory reason", "expectations row p2p reference", "terminal"
  std::string text;
};

std::vector<Statement> Statements(const SimRun& run);
// The statements whose `where` names advice (a hint, a fix, the course's "what to do", a
// finding's action) or the terminal, for the commands they name.
std::vector<Statement> Advice(const std::vector<Statement>& statements);

}  // namespace labcheck::sim
