// A model from the built-in catalog (data/models/), for tests that compute on a known architecture.
#pragma once
#include <optional>
#include <string>

#include "calc/model_catalog.h"
#include "calc/model_input.h"

namespace labcheck::calc::testing {

inline ModelInput CatalogModel(const std::string& name) {
  return ResolveModel(name, ModelCatalog::Builtin(), [](const std::string&) { return std::nullopt; }).value();
}

}  // namespace labcheck::calc::testing
