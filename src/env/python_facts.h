// What the env_packages.py probe reports about the chosen Python, validated into plain values.
// The probe prints {"python": {...}, "packages": {name: version|null}, "torch": {...}|null,
// "metadata_error": str|null}; anything else is a malformed result, not a guess.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace labcheck::env {

// Distribution names the course uses (the lab page, stages 4–10, and the VRAM lesson), in the
// order the report lists them.
const std::vector<std::string>& CoursePackages();

struct PythonFacts {
  std::string executable;
  std::string version;         // "3.11.7"
  std::string implementation;  // "CPython"
  bool venv = false;
  bool conda = false;
  std::vector<std::string> site_packages;  // import order
  // In the order asked; empty version = not installed.
  std::vector<std::pair<std::string, std::optional<std::string>>> packages;
  // torch/version.py, read without importing torch: present when torch's files are there.
  bool torch_files_found = false;
  std::optional<std::string> torch_cuda;  // "12.1"; empty for CPU-only (and ROCm) builds
  std::optional<std::string> torch_hip;   // ROCm builds
  std::string torch_version_error;        // version.py present but unreadable
  std::string metadata_error;             // importlib.metadata missing (Python < 3.8)

  const std::optional<std::string>* Version(const std::string& package) const;
};

// Validates the probe's result object. `wanted` are the names it was asked about: each must be
// answered (null is an answer).
Result<PythonFacts> ParsePythonProbe(const nlohmann::json& result, const std::vector<std::string>& wanted);

}  // namespace labcheck::env
