#include "calc/allocator/allocator_constants.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

#include "calc/embedded_data.h"

namespace labcheck::calc::allocator {
namespace {

// The file is compiled in: a missing field is a build defect, so it aborts with the field's name.
uint64_t Field(const nlohmann::json& root, const char* section, const char* field) {
  if (!root.contains(section) || !root[section].contains(field) || !root[section][field].is_number_unsigned()) {
    fmt::print(stderr, "lab_check: caching_allocator.json lacks {}.{}\n", section, field);
    std::abort();
  }
  return root[section][field].get<uint64_t>();
}

AllocatorConstants Load() {
  const nlohmann::json root = nlohmann::json::parse(EmbeddedDataFile("caching_allocator.json"), nullptr, false);
  if (!root.is_object()) {
    fmt::print(stderr, "lab_check: caching_allocator.json is not valid JSON\n");
    std::abort();
  }
  AllocatorConstants c;
  c.min_block_size = Field(root, "min_block_size", "value");
  c.small_size = Field(root, "small_size", "value");
  c.small_buffer = Field(root, "small_buffer", "value");
  c.large_buffer = Field(root, "large_buffer", "value");
  c.min_large_alloc = Field(root, "min_large_alloc", "value");
  c.round_large = Field(root, "round_large", "value");
  c.roundup_power2_intervals = static_cast<int>(Field(root, "roundup_power2_intervals", "value"));
  c.expandable_address_numerator = Field(root, "expandable_address_space", "numerator");
  c.expandable_address_denominator = Field(root, "expandable_address_space", "denominator");
  return c;
}

}  // namespace

const AllocatorConstants& AllocatorConstants::Builtin() {
  static const AllocatorConstants constants = Load();
  return constants;
}

}  // namespace labcheck::calc::allocator
