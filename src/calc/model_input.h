// What the user means by MODEL: a catalog name or alias, a bare size ("7B", "0.5B", "70e9"),
// a path to a config.json (or its folder), or a Hugging Face repo id found in the local cache.
// Nothing is downloaded.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "calc/architecture.h"
#include "calc/model_catalog.h"
#include "calc/param_count.h"
#include "core/status.h"
#include "core/text.h"

namespace labcheck::calc {

struct ModelInput {
  std::string display_name;  // "Qwen3-8B", "7B"
  std::string hf_repo;       // what `vllm serve` is given; empty for a bare size
  std::string source;        // config URL, path, or "size given on the command line"
  std::optional<Architecture> arch;  // absent for a bare size
  int64_t bare_params = 0;           // the size, when that is all we know

  bool has_architecture() const { return arch.has_value(); }
  // Total parameters: derived from the architecture when there is one.
  int64_t total_params() const;
  std::optional<ParamCounts> counts() const;
};

// Reads an environment variable; tests pass their own.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup ProcessEnv();

// Parses "7B", "0.5b", "125M", "70e9", "7000000000"; nullopt if it is not a size.
std::optional<int64_t> ParseParamCount(const std::string& text);

// The Hugging Face hub cache folder: $HF_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
std::string HfHubCacheDir(const EnvLookup& env);

// Resolves MODEL. The error, in `lang`, names what was tried and the closest catalog names;
// a broken config.json is named with the field that is wrong.
Result<ModelInput> ResolveModel(const std::string& text, const ModelCatalog& catalog, const EnvLookup& env,
                                Lang lang = Lang::Ru);

}  // namespace labcheck::calc
