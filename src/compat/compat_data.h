// data/compat.json as plain values (compiled into the binary). Every fact and rule has a source
// with a URL and the date it was checked; Validate() names the first one that lacks either.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/text.h"

namespace labcheck::compat {

struct Source {
  std::string url;
  std::string checked;  // "2026-12-03"
};

struct Rule {
  std::string id;
  Text breaks;
  std::vector<Source> sources;
};

struct DriverFloor {
  int cuda_major = 0;
  std::string driver;
  Source source;
};

struct ToolkitDriver {
  std::string cuda;  // "12.8"
  std::string driver;
  Source source;
};

struct WheelIndex {
  std::string cuda;   // "12.8"
  std::string index;  // "cu128"
  int sm_max = 0;     // the newest architecture its wheels carry code for (120 = sm_120)
  Source source;
};

struct Feature {
  std::string id;  // "bf16", "fp8", "flash_attn_2", "flash_attn_3"
  std::string name;
  int min_cc = 0;
  std::optional<int> max_cc;
  std::string package;  // the distribution that needs it, if any
  Source source;
};

struct CompatData {
  std::vector<DriverFloor> floors;
  std::vector<ToolkitDriver> toolkit_drivers;
  Source forward_compat;
  std::vector<WheelIndex> wheels;  // newest first
  std::vector<Feature> features;
  std::vector<Rule> rules;

  const Rule* FindRule(const std::string& id) const;
  const Feature* FindFeature(const std::string& id) const;
};

Result<CompatData> ParseCompatData(const std::string& text);
// Every fact and rule has a URL and a date; the error names the first that does not.
Status Validate(const CompatData& data);
// The embedded data/compat.json, parsed once.
const CompatData& EmbeddedCompatData();

}  // namespace labcheck::compat
