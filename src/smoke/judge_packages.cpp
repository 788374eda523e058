// Judges of the import-only tests: `vllm` (its version) and `unsloth` (its version and whether
// it supports this GPU).
#include <fmt/format.h>

#include "smoke/judge_common.h"
#include "smoke/judges.h"

namespace labcheck::smoke {

CheckResult JudgeVllm(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const auto version = f.OptionalString("version");
  const double import_s = f.Number("import_s");
  if (!f.ok()) return Incomplete(test, f, result);
  const std::string v = version.value_or("?");
  return Passed(test, T(fmt::format("vLLM {} импортируется ({:.1f} с)", v, import_s),
                        fmt::format("vLLM {} imports ({:.1f} s)", v, import_s)));
}

CheckResult JudgeUnsloth(const SmokeTest& test, const nlohmann::json& result) {
  ProbeFields f(result);
  const auto version = f.OptionalString("version");
  const std::string device = f.String("device_name");
  const std::string cc = f.String("cc");
  const bool supported = f.Bool("gpu_supported");
  if (!f.ok()) return Incomplete(test, f, result);
  const std::string v = version.value_or("?");
  CheckResult out = Passed(test, T(fmt::format("Unsloth {} импортируется; {} (compute capability {}) {}", v, device, cc,
                                               supported ? "поддерживается" : "не поддерживается"),
                                   fmt::format("Unsloth {} imports; {} (compute capability {}) is {}", v, device, cc,
                                               supported ? "supported" : "not supported")));
  if (!supported) {
    out.outcome = Outcome::Warn;
    out.reason = T("Unsloth требует GPU с compute capability 7.0 или выше", "Unsloth needs a GPU of compute capability 7.0 or higher");
  }
  return out;
}

}  // namespace labcheck::smoke
