#include "calc/model_catalog.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "calc/embedded_data.h"
#include "calc/hf_config.h"

namespace labcheck::calc {
namespace {

using nlohmann::json;

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

Result<CatalogModel> ParseEntry(const std::string& file, const std::string& text) {
  json entry = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!entry.is_object()) return Status::Error(fmt::format("{}: not a JSON object", file));
  CatalogModel model;
  for (const char* field : {"id", "name", "hf_repo", "config_source"}) {
    if (!entry.contains(field) || !entry[field].is_string()) {
      return Status::Error(fmt::format("{}: missing string field \"{}\"", file, field));
    }
  }
  model.id = entry["id"];
  model.name = entry["name"];
  model.hf_repo = entry["hf_repo"];
  model.config_source = entry["config_source"];
  if (entry.contains("aliases") && entry["aliases"].is_array()) {
    for (const json& alias : entry["aliases"]) {
      if (alias.is_string()) model.aliases.push_back(alias.get<std::string>());
    }
  }
  model.published_params = entry.value("published_params", json::object());
  if (!entry.contains("config")) return Status::Error(fmt::format("{}: missing \"config\"", file));
  auto arch = ParseHfConfig(entry["config"], file);
  if (!arch.ok()) return arch.status();
  model.arch = std::move(arch).value();
  return model;
}

}  // namespace

std::string NormalizeModelName(const std::string& name) {
  std::string result;
  for (char c : name) {
    if (c == '/') {
      result.clear();  // drop the organisation: "Qwen/Qwen3-8B" -> "Qwen3-8B"
    } else if (c != '-' && c != '_' && c != ' ') {
      result.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return result;
}

Result<ModelCatalog> ModelCatalog::Parse(const std::vector<std::pair<std::string, std::string>>& files) {
  ModelCatalog catalog;
  for (const auto& [path, text] : files) {
    auto model = ParseEntry(path, text);
    if (!model.ok()) return model.status();
    catalog.models_.push_back(std::move(model).value());
  }
  std::sort(catalog.models_.begin(), catalog.models_.end(),
            [](const CatalogModel& a, const CatalogModel& b) { return a.id < b.id; });
  return catalog;
}

const ModelCatalog& ModelCatalog::Builtin() {
  static const ModelCatalog catalog = [] {
    std::vector<std::pair<std::string, std::string>> entries;
    for (auto& [path, text] : EmbeddedDataFiles()) {
      // Every file in models/ but the constants is one model.
      if (path.rfind("models/", 0) == 0 && path != "models/calculator_constants.json") {
        entries.emplace_back(path, text);
      }
    }
    auto parsed = Parse(entries);
    if (!parsed.ok()) {
      // The catalog is compiled in and parsed by the tests; reaching this is a build defect.
      fmt::print(stderr, "lab_check: built-in model catalog is broken: {}\n", parsed.status().message());
      std::abort();
    }
    return std::move(parsed).value();
  }();
  return catalog;
}

const CatalogModel* ModelCatalog::Find(const std::string& name) const {
  const std::string key = NormalizeModelName(name);
  if (key.empty()) return nullptr;
  for (const CatalogModel& model : models_) {
    if (NormalizeModelName(model.id) == key || NormalizeModelName(model.hf_repo) == key ||
        NormalizeModelName(model.name) == key) {
      return &model;
    }
    for (const std::string& alias : model.aliases) {
      if (NormalizeModelName(alias) == key) return &model;
    }
  }
  return nullptr;
}

std::vector<std::string> ModelCatalog::Closest(const std::string& name, size_t count) const {
  const std::string key = NormalizeModelName(name);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const CatalogModel& model : models_) {
    size_t best = EditDistance(key, NormalizeModelName(model.id));
    for (const std::string& alias : model.aliases) best = std::min(best, EditDistance(key, NormalizeModelName(alias)));
    scored.emplace_back(best, model.id);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> ids;
  for (size_t i = 0; i < scored.size() && i < count; ++i) ids.push_back(scored[i].second);
  return ids;
}

}  // namespace labcheck::calc
