#include "gpu/memtest/memtest_log.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace labcheck::gpu::memtest {

namespace {

using nlohmann::json;

uint64_t LogHexValue(const json& value) { return value.is_string() ? std::strtoull(value.get<std::string>().c_str(), nullptr, 16) : 0; }

std::vector<TestedRange> LogRanges(const json& memory, const json& chunk_addresses) {
  std::vector<TestedRange> ranges;
  if (!memory.contains("chunks") || !chunk_addresses.is_array()) return ranges;
  uint64_t logical = 0;
  for (size_t i = 0; i < memory["chunks"].size() && i < chunk_addresses.size(); ++i) {
    const uint64_t bytes = memory["chunks"][i].get<uint64_t>();
    ranges.push_back({LogHexValue(chunk_addresses[i]), bytes, logical});
    logical += bytes;
  }
  return ranges;
}

// Every (address, bit) a run's records show wrong.
std::set<std::pair<uint64_t, int>> LoggedWrongBits(const ErrorTally& tally) {
  std::set<std::pair<uint64_t, int>> out;
  for (const WordError& e : tally.records)
    for (int b = 0; b < 64; ++b)
      if ((e.Bits() >> b) & 1) out.insert({e.address, b});
  return out;
}

void AddPatternRun(CardSummary& card, const json& run) {
  const std::string key = run.value("pattern", std::string());
  auto it = std::find_if(card.patterns.begin(), card.patterns.end(), [&](const PatternSummary& p) { return p.key == key; });
  if (it == card.patterns.end()) {
    card.patterns.push_back(PatternSummary{key});
    it = card.patterns.end() - 1;
  }
  PatternSummary& p = *it;
  ++p.runs;
  if (run.value("complete", false)) ++p.complete_runs;
  p.bytes_moved += run.value("bytes_moved", uint64_t{0});
  p.seconds += run.value("seconds", 0.0);
  if (run.contains("gbps") && p.seconds > 0) p.gbps = static_cast<double>(p.bytes_moved) / p.seconds / 1e9;
  const ErrorTally tally = TallyFromJson(run.value("errors", json::object()));
  p.errors.Add(tally);
  if (!run.contains("flips")) return;
  // The self-test: exactly the flipped bits, at the flipped words, and nothing else.
  std::set<std::pair<uint64_t, int>> flipped;
  for (const json& f : run["flips"]) flipped.insert({LogHexValue(f.value("address", json())), f.value("bit", 0)});
  const std::set<std::pair<uint64_t, int>> found = LoggedWrongBits(tally);
  for (const auto& f : flipped) {
    p.flips.push_back(f);
    if (!found.count(f)) p.missed.push_back(f);
  }
  for (const auto& f : found)
    if (!flipped.count(f)) p.extra.push_back(f);
  if (tally.count != flipped.size() && p.extra.empty() && p.missed.empty()) p.extra.push_back({0, -1});  // a count off by itself
}

void ReadCardEnd(CardSummary& card, const json& end) {
  card.ended = true;
  card.passes = end.value("passes", 0);
  card.device_seconds = end.value("device_seconds", 0.0);
  card.context_lost = end.value("context_lost", false);
  if (end.contains("error") && end["error"].is_string()) card.error = end["error"];
  card.ecc_before = end.value("ecc_before", json::object());
  card.ecc_after = end.value("ecc_after", json::object());
}

}  // namespace

uint64_t CardSummary::ErrorCount() const {
  uint64_t n = 0;
  for (const PatternSummary& p : patterns) n += p.errors.count;
  return n;
}

const PatternSummary* CardSummary::Pattern(const std::string& key) const {
  for (const PatternSummary& p : patterns)
    if (p.key == key) return &p;
  return nullptr;
}

MemtestLog ReadMemtestLog(const std::string& text) {
  MemtestLog log;
  std::istringstream in(text);
  std::string line;
  auto card = [&](int index) -> CardSummary& {
    for (CardSummary& c : log.cards)
      if (c.index == index) return c;
    log.cards.push_back(CardSummary{index});
    return log.cards.back();
  };
  while (std::getline(in, line)) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    if (j.value("done", false)) log.complete = true;
    if (!j.contains("gpu") || !j["gpu"].is_number_integer()) continue;
    CardSummary& c = card(j["gpu"].get<int>());
    if (j.contains("name") && j["name"].is_string()) c.name = j["name"];
    if (j.contains("pci_bus_id") && j["pci_bus_id"].is_string()) c.pci_bus_id = j["pci_bus_id"];
    if (j.contains("sm_copy")) {
      if (j["sm_copy"].contains("gbps")) c.sm_copy_gbps = j["sm_copy"]["gbps"].get<double>();
      else c.sm_copy_error = j["sm_copy"].value("error", std::string());
    }
    if (j.contains("memory")) {
      c.memory = j["memory"];
      c.ranges = LogRanges(c.memory, c.memory.value("chunk_addresses", json::array()));
    }
    if (j.contains("run") && j["run"].is_object()) AddPatternRun(c, j["run"]);
    if (j.contains("end") && j["end"].is_object()) ReadCardEnd(c, j["end"]);
    if (j.contains("error") && j["error"].is_string()) c.error = j["error"];
  }
  return log;
}

}  // namespace labcheck::gpu::memtest
