// The version of a Python distribution installed in an interpreter's site-packages, read from its
// `<name>-<version>.dist-info` folder (the installed-package layout of PyPA's "Recording installed
// projects" spec), without importing it: importing vLLM takes seconds and may need a GPU.
#pragma once
#include <optional>
#include <string>

namespace labcheck::probes {

class Interpreter;

// nullopt when the interpreter does not answer or has no such distribution. `distribution` as the
// folder names it (normalised: underscores for dashes, e.g. "vllm", "flash_attn").
std::optional<std::string> InstalledDistributionVersion(Interpreter& interpreter, const std::string& distribution);

}  // namespace labcheck::probes
