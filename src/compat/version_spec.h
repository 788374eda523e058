// Just enough of PEP 440 for the compatibility rules: release numbers compared numerically
// ("2.10" > "2.9"), a pre-release ("2.5.0a0", "2.5.0rc1", "2.5.0.dev2024") below its release, the
// local part ("+cu121") ignored, and specifiers "==", "!=", ">=", "<=", ">", "<", "~=", "==2.4.*"
// joined by commas. https://packaging.python.org/en/latest/specifications/version-specifiers/
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace labcheck::compat {

struct Version {
  std::vector<int> release;
  bool pre = false;  // a, b, rc, dev
  static std::optional<Version> Parse(const std::string& text);
};

int Compare(const Version& a, const Version& b);  // <0, 0, >0

// Whether `version` satisfies every clause of `specifier` (">=2.2,<3"); nullopt when unparseable.
std::optional<bool> Satisfies(const std::string& version, const std::string& specifier);

// "torch==2.4.0" → {"torch", "==2.4.0"}; "torch (>=1.10)" → {"torch", ">=1.10"}.
struct Requirement {
  std::string name;  // normalised: lower case, runs of -_. as "-"
  std::string specifier;
};
std::optional<Requirement> ParseRequirement(const std::string& text);

// "12.1" → 121 (major*10 + minor); nullopt when not "X.Y".
std::optional<int> CudaNumber(const std::string& text);

}  // namespace labcheck::compat
