// Runs a calculator command line in-process, as the app would, and captures what it prints.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/calc_commands.h"

namespace labcheck::calc::testing {

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// `args` without the program name, e.g. {"vram", "7B", "--json"}. No live GPUs unless given.
CliRun RunCalc(const std::vector<std::string>& args, Lang lang, std::vector<LiveGpu> gpus = {},
               std::string report_path = "/nonexistent/lab-report.json");

// A JSON file of cases under tests/calc/ (published_cases.json, vllm_startup_cases.json), parsed.
nlohmann::json LoadCases(const std::string& file_name);

// A case's "args" with "{configs}" expanded to tests/calc/configs (the published config.json copies)
// and "--json" appended.
std::vector<std::string> CaseArgs(const nlohmann::json& c);

}  // namespace labcheck::calc::testing
