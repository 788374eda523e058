#include "calc_cli.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace labcheck::calc::testing {

CliRun RunCalc(const std::vector<std::string>& args, Lang lang, std::vector<LiveGpu> gpus, std::string report_path) {
  static Lang current_lang;
  current_lang = lang;
  CliRun run;
  CalcEnvironment env;
  env.lang = &current_lang;
  env.live_gpus = [gpus] { return gpus; };
  env.last_report_path = std::move(report_path);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  run.exit_code = RunCalcCommandLine(args, std::move(env));
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

std::vector<std::string> CaseArgs(const nlohmann::json& c) {
  std::vector<std::string> args = c.at("args").get<std::vector<std::string>>();
  const std::string configs = std::string(LAB_CHECK_SOURCE_DIR) + "/tests/calc/configs";
  for (std::string& a : args) {
    if (a.rfind("{configs}", 0) == 0) a = configs + a.substr(9);
  }
  args.push_back("--json");
  return args;
}

}  // namespace labcheck::calc::testing
