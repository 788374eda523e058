#include "node_check_run.h"

#include "runner/cancel.h"

namespace labcheck::node_check::testing {

Run NodeCheck(const std::string& profile, std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env) {
  ChildSpec spec;
  spec.argv = {LAB_CHECK_BINARY, "node-check", "--lang", "en"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.set_env = {{"LD_LIBRARY_PATH", SimDir()}, {"LABCHECK_SIM_MACHINE", Profile(profile)}};
  spec.set_env.insert(spec.set_env.end(), env.begin(), env.end());
  spec.timeout_s = 120;
  Run run;
  run.outcome = RunChild(spec, CancelToken::Never());
  run.line = run.outcome.out.substr(0, run.outcome.out.find('\n'));
  if (!run.line.empty() && run.line[0] == '{') run.json = nlohmann::json::parse(run.line, nullptr, false);
  return run;
}

}  // namespace labcheck::node_check::testing
