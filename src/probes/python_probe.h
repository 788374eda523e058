// Python probes: small .py files from src/probes/py/, embedded in the binary, run under the user's
// own interpreter in a child process, each printing one result line that the C++ side validates.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "runner/cancel.h"
#include "runner/child_process.h"

namespace labcheck::probes {

// The line prefix a probe prints before its JSON result (see py/_labcheck.py: emit()).
inline constexpr std::string_view kResultMarker = "LABCHECK_RESULT ";
// The handshake: a probe prints this line once its imports are done (py/_labcheck.py: alive()).
inline constexpr std::string_view kAliveMarker = "LABCHECK_ALIVE";
// What a probe is about to do that may hang ("LABCHECK_STAGE import torch"; _labcheck.stage()).
inline constexpr std::string_view kStageMarker = "LABCHECK_STAGE ";

// Picks the interpreter: `requested` (--python) when given, else $VIRTUAL_ENV/bin/python, else
// $CONDA_PREFIX/bin/python, else python3 on PATH. Returns an absolute path, or why there is none.
Result<std::string> ResolvePython(const std::string& requested);

// The probe's source as embedded ("env_packages.py"); empty when there is no such probe.
std::string_view EmbeddedProbe(std::string_view name);
std::vector<std::string> EmbeddedProbeNames();

struct ProbeRun {
  ChildOutcome process;
  // The parsed result object, or why there is none: the interpreter could not start, the probe
  // crashed, timed out, or printed no valid result line (the message quotes what it printed).
  Result<nlohmann::json> result = Status::Error("not run");
};

struct ProbeSpec {
  std::string python;  // interpreter path (ResolvePython)
  std::string probe;   // file name under py/
  std::vector<std::string> args;
  double timeout_s = 60;
  // When above 0: the probe must print its alive line within this many seconds, or it is killed
  // then and the run counts as unresponsive (probes/unresponsive.h). 0: no handshake.
  double startup_budget_s = 0;
  std::vector<std::pair<std::string, std::string>> set_env;
  // Run through another launcher instead of plain `python probe.py`, e.g. {"-m",
  // "torch.distributed.run", "--nproc-per-node=2"}: inserted between python and the script.
  std::vector<std::string> launcher_args;
};

// Writes every embedded probe into a private (0700) temporary directory, runs the probe there and
// removes the directory afterwards. The result must be a JSON object.
ProbeRun RunProbe(const ProbeSpec& spec, const CancelToken& cancel);

}  // namespace labcheck::probes
