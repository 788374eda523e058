// Reading one rank's block of a cluster run (what its all-reduce child reported, as JSON from
// rank_run), tolerant of whatever an older or broken rank sent; shared by the merge and the
// per-rank problems.
#pragma once
#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace labcheck::cluster {

// j[key] when j is an object that has it (and it is not null), else an empty object, so that
// value() and range-for work on whatever an older or broken rank sent.
inline const nlohmann::json& Field(const nlohmann::json& j, const char* key) {
  static const nlohmann::json kEmpty = nlohmann::json::object();
  return j.is_object() && j.contains(key) && !j[key].is_null() ? j[key] : kEmpty;
}

// A message size as the report prints it: "256 MiB", or bytes below one MiB.
inline std::string MiB(uint64_t bytes) {
  return bytes >= (1u << 20) ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} B", bytes);
}

}  // namespace labcheck::cluster
