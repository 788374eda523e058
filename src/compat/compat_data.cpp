#include "compat/compat_data.h"

#include <nlohmann/json.hpp>

#include "reference/reference_data.h"

namespace labcheck::compat {

using nlohmann::json;

namespace {

Source ReadSource(const json& j) {
  if (!j.is_object()) return {};
  return {j.value("url", ""), j.value("checked", "")};
}

Text ReadText(const json& j) { return j.is_object() ? Text(j.value("ru", ""), j.value("en", "")) : Text(); }

}  // namespace

const Rule* CompatData::FindRule(const std::string& id) const {
  for (const Rule& r : rules)
    if (r.id == id) return &r;
  return nullptr;
}

const Feature* CompatData::FindFeature(const std::string& id) const {
  for (const Feature& f : features)
    if (f.id == id) return &f;
  return nullptr;
}

Result<CompatData> ParseCompatData(const std::string& text) {
  json root = json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object()) return Status::Error("compat.json is not a JSON object");
  CompatData d;
  try {
    const json& cuda = root.at("cuda_driver");
    for (const json& f : cuda.at("minor_version_floor")) d.floors.push_back({f.at("cuda_major").get<int>(), f.at("driver").get<std::string>(), ReadSource(f.value("source", json()))});
    for (const json& t : cuda.at("toolkit_ga_driver")) d.toolkit_drivers.push_back({t.at("cuda").get<std::string>(), t.at("driver").get<std::string>(), ReadSource(t.value("source", json()))});
    d.forward_compat = ReadSource(cuda.at("forward_compat").value("source", json()));
    for (const json& w : root.at("torch_wheels").at("indexes"))
      d.wheels.push_back({w.at("cuda").get<std::string>(), w.at("index").get<std::string>(), w.at("sm_max").get<int>(), ReadSource(w.value("source", json()))});
    for (const json& f : root.at("features")) {
      Feature feature{f.at("id").get<std::string>(), f.at("name").get<std::string>(), f.at("min_cc").get<int>(), std::nullopt,
                      f.value("package", ""), ReadSource(f.value("source", json()))};
      if (f.contains("max_cc")) feature.max_cc = f["max_cc"].get<int>();
      d.features.push_back(feature);
    }
    for (const json& r : root.at("rules")) {
      Rule rule{r.at("id").get<std::string>(), ReadText(r.value("breaks", json())), {}};
      for (const json& s : r.value("sources", json::array())) rule.sources.push_back(ReadSource(s));
      d.rules.push_back(rule);
    }
  } catch (const json::exception& e) {
    return Status::Error(std::string("compat.json: ") + e.what());
  }
  return d;
}

Status Validate(const CompatData& d) {
  auto sourced = [](const Source& s) { return s.url.rfind("https://", 0) == 0 && s.checked.size() == 10; };
  for (const DriverFloor& f : d.floors)
    if (!sourced(f.source)) return Status::Error("minor_version_floor for CUDA " + std::to_string(f.cuda_major) + " has no source");
  for (const ToolkitDriver& t : d.toolkit_drivers)
    if (!sourced(t.source)) return Status::Error("toolkit_ga_driver " + t.cuda + " has no source");
  if (!sourced(d.forward_compat)) return Status::Error("forward_compat has no source");
  for (const WheelIndex& w : d.wheels)
    if (!sourced(w.source)) return Status::Error("torch wheel index " + w.index + " has no source");
  for (const Feature& f : d.features)
    if (!sourced(f.source)) return Status::Error("feature " + f.id + " has no source");
  for (const Rule& r : d.rules) {
    if (r.sources.empty()) return Status::Error("rule " + r.id + " has no source");
    for (const Source& s : r.sources)
      if (!sourced(s)) return Status::Error("rule " + r.id + " has a source without a URL or date");
    if (r.breaks.ru.empty() || r.breaks.en.empty()) return Status::Error("rule " + r.id + " does not say what breaks");
  }
  return Status::Ok();
}

const CompatData& EmbeddedCompatData() {
  static const CompatData data = [] {
    Result<CompatData> parsed = ParseCompatData(std::string(reference::ReferenceFile("compat.json")));
    return parsed.ok() ? *parsed : CompatData{};  // tests parse the embedded file, so it cannot ship broken
  }();
  return data;
}

}  // namespace labcheck::compat
