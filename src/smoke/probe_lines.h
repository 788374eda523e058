// The line protocol of smoke_run.py (see smoke_common.py): a BEGIN line when a test starts, a
// TEST line with its result, a FACTS line after `import torch`. Each is flushed at once, so the
// output of a process that crashed or was killed still tells which tests finished and which one
// was running.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace labcheck::smoke {

inline constexpr std::string_view kBeginMarker = "LABCHECK_SMOKE_BEGIN ";
inline constexpr std::string_view kTestMarker = "LABCHECK_SMOKE_TEST ";
inline constexpr std::string_view kFactsMarker = "LABCHECK_SMOKE_FACTS ";
// The stage before any test: a crash there is nobody's test's fault and would repeat.
inline constexpr std::string_view kTorchImportStage = "_torch_import";

struct SharedRunLines {
  std::vector<std::string> begun;                 // in order, stages included
  std::map<std::string, nlohmann::json> results;  // test name -> its result object
  std::optional<nlohmann::json> facts;
  std::vector<std::string> problems;  // marker lines that could not be read, quoted

  // The test (or stage) that began last and has no result: the one running when the process ended.
  std::optional<std::string> Unfinished() const;
};

SharedRunLines ParseSharedRunOutput(std::string_view out);

}  // namespace labcheck::smoke
