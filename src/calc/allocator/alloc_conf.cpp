#include "calc/allocator/alloc_conf.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <optional>

namespace labcheck::calc::allocator {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

// AllocatorConfig::lexArgs: ',', ':', '[' and ']' are tokens of their own, spaces are dropped.
std::vector<std::string> Tokens(std::string_view text) {
  std::vector<std::string> tokens;
  std::string word;
  for (char c : text) {
    if (c == ',' || c == ':' || c == '[' || c == ']') {
      if (!word.empty()) tokens.push_back(std::move(word)), word.clear();
      tokens.emplace_back(1, c);
    } else if (c != ' ') {
      word += c;
    }
  }
  if (!word.empty()) tokens.push_back(std::move(word));
  return tokens;
}

std::optional<uint64_t> Unsigned(const std::string& token) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (error != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

// A parse position over the tokens; every step that fails leaves a message.
struct Parser {
  std::vector<std::string> tokens;
  size_t i = 0;
  Text error;  // the first failure, in both languages
  bool failed = false;

  bool Fail(Text message) {
    if (!failed) error = std::move(message), failed = true;
    return false;
  }
  bool At(const char* token) const { return i < tokens.size() && tokens[i] == token; }
  bool Expect(const char* token, const std::string& option) {
    if (At(token)) return ++i, true;
    return Fail(T(fmt::format("{}: после имени параметра нужно '{}'", option, token),
                  fmt::format("{}: expected '{}' after the option name", option, token)));
  }
  std::optional<std::string> Value(const std::string& option) {
    if (i >= tokens.size()) return Fail(T(fmt::format("{}: нет значения", option), fmt::format("{}: the value is missing", option))), std::nullopt;
    return tokens[i++];
  }
};

// max_split_size_mb and max_non_split_rounding_mb: whole MiB, at least kLargeBuffer's.
bool ParseMiB(Parser& p, const std::string& option, uint64_t large_buffer, uint64_t& out) {
  if (!p.Expect(":", option)) return false;
  const auto value = p.Value(option);
  if (!value) return false;
  const auto mb = Unsigned(*value);
  if (!mb) return p.Fail(T(fmt::format("{}:{}: нужно целое число МиБ", option, *value),
                          fmt::format("{}:{}: not a whole number of MiB", option, *value)));
  if (*mb < large_buffer / kMiB) {
    return p.Fail(T(fmt::format("{}:{}: слишком мало, PyTorch требует не меньше {} (МиБ)", option, *mb, large_buffer / kMiB),
                    fmt::format("{}:{}: too small, PyTorch requires at least {} (MiB)", option, *mb, large_buffer / kMiB)));
  }
  out = std::min(*mb, UINT64_MAX / kMiB) * kMiB;
  return true;
}

bool ParseBool(Parser& p, const std::string& option, bool& out) {
  if (!p.Expect(":", option)) return false;
  const auto value = p.Value(option);
  if (!value) return false;
  if (*value != "True" && *value != "False") return p.Fail(T(fmt::format("{}:{}: пишите True или False", option, *value),
                                                                                fmt::format("{}:{}: write True or False", option, *value)));
  out = *value == "True";
  return true;
}

bool ParseThreshold(Parser& p, const std::string& option, double& out) {
  if (!p.Expect(":", option)) return false;
  const auto value = p.Value(option);
  if (!value) return false;
  char* end = nullptr;
  const double v = std::strtod(value->c_str(), &end);
  if (end != value->c_str() + value->size() || !(v > 0 && v < 1)) {
    return p.Fail(T(fmt::format("{}:{}: нужно число больше 0 и меньше 1", option, *value),
                    fmt::format("{}:{}: must be a number between 0 and 1 (exclusive)", option, *value)));
  }
  out = v;
  return true;
}

// One "size_mb:divisions" (or ">:divisions") of the list form, as parseRoundUpPower2Divisions
// applies it: the first entry also fills every interval below it, ">" fills from the last entry on.
bool ParseDivisionEntry(Parser& p, std::vector<uint64_t>& divisions, bool& first, size_t& last_index) {
  const std::string option = "roundup_power2_divisions";
  const std::string key = p.tokens[p.i++];
  if (!p.Expect(":", option)) return false;
  const auto value = p.Value(option);
  const auto count = value ? Unsigned(*value) : std::nullopt;
  if (!count) {
    return p.Fail(T(fmt::format("{}: для '{}' нужно целое число делений", option, key),
                    fmt::format("{}: '{}' needs a whole number of divisions", option, key)));
  }
  if (*count != 0 && !std::has_single_bit(*count)) {
    return p.Fail(T(fmt::format("{}: {} делений: нужна степень двойки или 0", option, *count),
                    fmt::format("{}: {} divisions: must be a power of 2 or 0", option, *count)));
  }
  if (key == ">") {
    std::fill(divisions.begin() + static_cast<std::ptrdiff_t>(last_index), divisions.end(), *count);
    return true;
  }
  const auto size_mb = Unsigned(key);
  if (!size_mb || !std::has_single_bit(*size_mb)) {
    return p.Fail(T(fmt::format("{}: интервал '{}': нужна степень двойки (МиБ)", option, key),
                    fmt::format("{}: interval '{}': must be a power of 2 (MiB)", option, key)));
  }
  const size_t index = std::min<size_t>(std::bit_width(*size_mb) - 1, divisions.size() - 1);
  if (first) std::fill(divisions.begin(), divisions.begin() + static_cast<std::ptrdiff_t>(index), *count), first = false;
  divisions[index] = *count;
  last_index = index;
  return true;
}

bool ParseDivisions(Parser& p, std::vector<uint64_t>& divisions) {
  const std::string option = "roundup_power2_divisions";
  if (!p.Expect(":", option)) return false;
  if (!p.At("[")) {  // the single-value form: one count for every interval
    const auto value = p.Value(option);
    const auto count = value ? Unsigned(*value) : std::nullopt;
    if (!count || !std::has_single_bit(*count)) {
      return p.Fail(T(fmt::format("{}:{}: нужна степень двойки", option, value.value_or("")),
                      fmt::format("{}:{}: must be a power of 2", option, value.value_or(""))));
    }
    std::fill(divisions.begin(), divisions.end(), *count);
    return true;
  }
  ++p.i;
  bool first = true;
  size_t last_index = 0;
  while (p.i < p.tokens.size() && !p.At("]")) {
    if (!ParseDivisionEntry(p, divisions, first, last_index)) return false;
    if (p.At(",")) ++p.i;
  }
  return p.Expect("]", option);
}

// Options that change nothing the replay models: the lock around cudaMalloc and the pinned host
// allocator's settings.
bool IgnoredOption(const std::string& name) {
  return name == "release_lock_on_cudamalloc" || name == "pinned_use_cuda_host_register" ||
         name == "pinned_num_register_threads" || name == "pinned_use_background_threads";
}

bool ParseOption(Parser& p, AllocatorConfig& c, const AllocatorConstants& k) {
  const std::string name = p.tokens[p.i++];
  if (name == "max_split_size_mb") return ParseMiB(p, name, k.large_buffer, c.max_split_size);
  if (name == "max_non_split_rounding_mb") return ParseMiB(p, name, k.large_buffer, c.max_non_split_rounding_size);
  if (name == "garbage_collection_threshold") return ParseThreshold(p, name, c.garbage_collection_threshold);
  if (name == "roundup_power2_divisions") return ParseDivisions(p, c.roundup_power2_divisions);
  if (name == "expandable_segments") return ParseBool(p, name, c.expandable_segments);
  if (name == "backend") {
    if (!p.Expect(":", name)) return false;
    const auto value = p.Value(name);
    if (value && *value == "native") return true;
    return p.Fail(T(fmt::format("backend:{}: моделируется только родной кэширующий аллокатор (cudaMallocAsync отдаёт пулы драйверу)",
                                value.value_or("")),
                    fmt::format("backend:{}: only the native caching allocator is modelled (cudaMallocAsync leaves the pools to the driver)",
                                value.value_or(""))));
  }
  if (IgnoredOption(name)) {
    if (!p.Expect(":", name)) return false;
    return p.Value(name).has_value();
  }
  return p.Fail(T(fmt::format("неизвестный параметр '{}' (PyTorch: «Unrecognized CachingAllocator option»)", name),
                  fmt::format("unknown option '{}' (PyTorch: \"Unrecognized CachingAllocator option\")", name)));
}

}  // namespace

AllocatorConfig AllocatorConfig::Defaults(const AllocatorConstants& k) {
  AllocatorConfig c;
  c.max_non_split_rounding_size = k.large_buffer;
  c.roundup_power2_divisions.assign(static_cast<size_t>(k.roundup_power2_intervals), 0);
  return c;
}

uint64_t AllocatorConfig::DivisionsFor(uint64_t size) const {
  if (roundup_power2_divisions.empty()) return 0;
  // Interval 0 starts at 1 MiB (2^20): index = log2(size) - 20, clamped to the table.
  const int index = std::clamp(static_cast<int>(std::bit_width(size)) - 1 - 20, 0, static_cast<int>(roundup_power2_divisions.size()) - 1);
  return roundup_power2_divisions[static_cast<size_t>(index)];
}

Result<AllocatorConfig> ParseAllocConf(std::string_view text, const AllocatorConstants& k, Lang lang) {
  AllocatorConfig config = AllocatorConfig::Defaults(k);
  config.text = std::string(text);
  Parser p;
  p.tokens = Tokens(text);
  while (p.i < p.tokens.size()) {
    if (!ParseOption(p, config, k)) break;
    if (p.i < p.tokens.size() && !p.Expect(",", "PYTORCH_CUDA_ALLOC_CONF")) break;
  }
  if (p.failed) return Status::Error("--alloc-conf: " + p.error.In(lang));
  return config;
}

}  // namespace labcheck::calc::allocator
