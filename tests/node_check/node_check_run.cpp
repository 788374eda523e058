#include "node_check_run.h"

#include "runner/cancel.h"

namespace labcheck::node_check::testing {

Run NodeCheck(const std::string& profile, std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env,
              bool empty_environment) {
  ChildSpec spec;
  spec.argv = {LAB_CHECK_BINARY, "node-check", "--lang", "en"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.set_env = {{"LD_LIBRARY_PATH", SimDir()}, {"LABCHECK_SIM_MACHINE", Profile(profile)}};
  spec.set_env.insert(spec.set_env.end(), env.begin(), env.end());
  if (empty_environment) {
    std::vector<std::string> argv = {"/usr/bin/env", "-i"};
    for (const auto& [name, value] : spec.set_env) argv.push_back(name + "=" + value);
    argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
    spec.argv = argv;
    spec.set_env.clear();
  }
  spec.timeout_s = 120;
  Run run;
  run.outcome = RunChild(spec, CancelToken::Never());
  run.line = run.outcome.out.substr(0, run.outcome.out.find('\n'));
  if (!run.line.empty() && run.line[0] == '{') run.json = nlohmann::json::parse(run.line, nullptr, false);
  return run;
}

}  // namespace labcheck::node_check::testing
