// Runs the real lab_check binary on a simulated machine (tests/sim/machines/*.json) and reads its
// JSON report, for the scenario tests.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/library_search.h"

namespace labcheck::sim {

struct SimRun {
  int exit_code = -1;
  double wall_s = 0;
  nlohmann::json report;  // the JSON report (null when none was written)
  std::string stdout_text, stderr_text;
  std::string markdown;   // the Markdown report, when --out was used
};

struct SimOptions {
  std::string machine;  // file name under tests/sim/machines/, or an absolute path
  std::vector<std::string> args = {"--quick"};             // besides --out and --python
  std::vector<std::pair<std::string, std::string>> env;   // extra environment
  // The interpreter for --python; "": none given and none on PATH (the run finds no Python).
  std::string python = "/bin/false";
};

// build/lab_check with LD_LIBRARY_PATH=build/sim-nvidia and LABCHECK_SIM_MACHINE set, the report
// written into a fresh temp folder.
SimRun RunLabCheck(const SimOptions& options);

// A profile written for one test: `body` (JSON members, without braces) merged over the machine
// `base` (a file name under tests/sim/machines/); removed with the object.
class TempProfile {
 public:
  TempProfile(const std::string& base, const std::string& body);
  ~TempProfile();
  TempProfile(const TempProfile&) = delete;
  TempProfile& operator=(const TempProfile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One child job (`lab_check internal-child JOB [ARGS…]`, e.g. "gpu-inventory") on a simulated
// machine (a file name under tests/sim/machines/ or an absolute path), with this process's
// environment: its result envelope, null when it printed none.
nlohmann::json RunChildJob(const std::string& machine, const std::string& job, const std::vector<std::string>& args = {});

const nlohmann::json* Check(const SimRun& run, const std::string& id);
std::string Verdict(const SimRun& run, const std::string& id);
// A measurement's value by key, from any check.
std::optional<double> Measured(const SimRun& run, const std::string& key);
// A row of the section «Ожидалось в курсе → у вас» by id; null when the report has none.
nlohmann::json ExpectationRow(const SimRun& run, const std::string& id);
// A measurement by key within `tolerance` (a share of `expected`); a failure when it is missing.
void ExpectNear(const SimRun& run, const std::string& key, double expected, double tolerance = 0.05);
// The GPU checks, in the runner's order, for failure messages that list their verdicts.
inline constexpr const char* kGpuChecks[] = {"gpu.inventory", "gpu.matmul", "gpu.memory_bandwidth", "gpu.host_device_copy",
                                             "gpu.p2p", "interconnect.allreduce"};
// `s` in single quotes for sh -c.
std::string Quote(const std::string& s);
// The library search with only the simulator's folder (build/sim-nvidia) on LD_LIBRARY_PATH.
LibrarySearchPaths SimPaths();
// The hint ids the expectations section raised.
std::vector<std::string> HintIds(const SimRun& run);
bool HasHint(const SimRun& run, const std::string& id);
// Everything a check says (summary, reason, hint, error, table notes) in one string.
std::string CheckText(const SimRun& run, const std::string& id);

// A long command interrupted as a terminal's Ctrl-C does: `lab_check ARGS` (already quoted for
// sh, stdout to JSON) runs on `machine` (a file in tests/sim/machines/) in a fresh folder that is
// also its TMPDIR, so the private progress folder it makes there can be watched; once a file that
// `progress_glob` matches holds `word`, SIGINT goes to it. The run's exit code, its JSON report and
// its stderr come back; the folder is removed.
struct InterruptedRun {
  int exit_code = -1;
  nlohmann::json report;
  std::string err;
};
InterruptedRun RunAndInterrupt(const std::string& machine, const std::string& args, const std::string& progress_glob,
                               const std::string& word);

}  // namespace labcheck::sim
