// The built-in catalog of model architectures: data/models/<id>.json, each a published
// config.json with its source URL and the parameter totals its authors published.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calc/architecture.h"
#include "core/status.h"

namespace labcheck::calc {

struct CatalogModel {
  std::string id;             // "qwen3-8b"
  std::string name;           // "Qwen3-8B"
  std::string hf_repo;        // "Qwen/Qwen3-8B": also what `vllm serve` is given
  std::vector<std::string> aliases;
  std::string config_source;  // URL of the published config.json
  nlohmann::json published_params;  // {"total": "8.2B", "source": ...} as the authors print them
  Architecture arch;
};

class ModelCatalog {
 public:
  static const ModelCatalog& Builtin();
  // Parses catalog entries given as (file name, JSON text); used by Builtin() and tests.
  static Result<ModelCatalog> Parse(const std::vector<std::pair<std::string, std::string>>& files);

  const std::vector<CatalogModel>& models() const { return models_; }
  // Case-insensitive, ignores '-', '_', ' ' and an "org/" prefix: "Qwen/Qwen3-8B" = "qwen3 8b".
  const CatalogModel* Find(const std::string& name) const;
  // Up to `count` catalog ids nearest to `name` (edit distance), for "did you mean".
  std::vector<std::string> Closest(const std::string& name, size_t count) const;

 private:
  std::vector<CatalogModel> models_;
};

// "Qwen/Qwen3-8B" -> "qwen38b"; "Qwen3-0.6B" -> "qwen30.6b".
std::string NormalizeModelName(const std::string& name);

}  // namespace labcheck::calc
