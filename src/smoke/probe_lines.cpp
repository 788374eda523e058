#include "smoke/probe_lines.h"

namespace labcheck::smoke {
namespace {

std::string Quote(std::string_view line) {
  constexpr size_t kMax = 200;
  return std::string(line.substr(0, kMax)) + (line.size() > kMax ? "…" : "");
}

std::optional<nlohmann::json> ParseObject(std::string_view payload) {
  nlohmann::json parsed = nlohmann::json::parse(payload, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) return std::nullopt;
  return parsed;
}

}  // namespace

std::optional<std::string> SharedRunLines::Unfinished() const {
  if (begun.empty()) return std::nullopt;
  const std::string& last = begun.back();
  if (results.count(last)) return std::nullopt;
  // The torch stage "finishes" with its FACTS line.
  if (last == kTorchImportStage && facts) return std::nullopt;
  return last;
}

SharedRunLines ParseSharedRunOutput(std::string_view out) {
  SharedRunLines lines;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string_view::npos) end = out.size();
    std::string_view line = out.substr(start, end - start);
    start = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    if (line.rfind(kBeginMarker, 0) == 0) {
      lines.begun.emplace_back(line.substr(kBeginMarker.size()));
    } else if (line.rfind(kFactsMarker, 0) == 0) {
      if (auto facts = ParseObject(line.substr(kFactsMarker.size()))) {
        lines.facts = std::move(*facts);
      } else {
        lines.problems.push_back(Quote(line));
      }
    } else if (line.rfind(kTestMarker, 0) == 0) {
      auto result = ParseObject(line.substr(kTestMarker.size()));
      if (!result || !result->contains("test") || !(*result)["test"].is_string()) {
        lines.problems.push_back(Quote(line));
        continue;
      }
      const std::string name = (*result)["test"].get<std::string>();
      lines.results[name] = std::move(*result);
    }
  }
  return lines;
}

}  // namespace labcheck::smoke
