#include "calc/allocator/allocator_constants.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>

#include "calc/embedded_data.h"

namespace labcheck::calc::allocator {
namespace {

// Byte counts and the like: whole numbers not below zero (calc/embedded_data.h says why it aborts).
uint64_t Field(const nlohmann::json& root, const char* section, const char* field) {
  const nlohmann::json& value = NumberOrAbort(root, "caching_allocator.json", section, field);
  if (!value.is_number_unsigned()) {
    fmt::print(stderr, "lab_check: caching_allocator.json: {}.{} is not a whole number >= 0\n", section, field);
    std::abort();
  }
  return value.get<uint64_t>();
}

AllocatorConstants Load() {
  const nlohmann::json root = EmbeddedJsonOrAbort("caching_allocator.json");
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
