#include "calc_cli.h"

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace labcheck::calc::testing {

CliRun RunCalc(const std::vector<std::string>& args, Lang lang, std::vector<LiveGpu> gpus, std::string report_path) {
  static Lang current_lang;
  current_lang = lang;
  CLI::App app("lab_check", "lab_check");
  app.require_subcommand(1);
  CliRun run;
  CalcEnvironment env;
  env.lang = &current_lang;
  env.live_gpus = [gpus] { return gpus; };
  env.last_report_path = std::move(report_path);
  AddCalcSubcommands(app, env, &run.exit_code);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    run.exit_code = app.exit(e);
  }
  run.out = ::testing::internal::GetCapturedStdout();
  run.err = ::testing::internal::GetCapturedStderr();
  return run;
}

nlohmann::json LoadCases(const std::string& file_name) {
  std::ifstream in(std::string(LAB_CHECK_SOURCE_DIR) + "/tests/calc/" + file_name);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

}  // namespace labcheck::calc::testing
