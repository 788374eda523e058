#include "core/measurement_key.h"

#include <charconv>

namespace labcheck::measurement_key {

namespace {
constexpr std::string_view kPrefix = "gpu";
}

std::string Format(int gpu, std::string_view figure) {
  std::string key(kPrefix);
  key += std::to_string(gpu);
  key += '.';
  key += figure;
  return key;
}

std::optional<GpuFigure> Parse(std::string_view key) {
  if (key.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view rest = key.substr(kPrefix.size());
  const size_t dot = rest.find_first_not_of("0123456789");
  if (dot == 0 || dot == std::string_view::npos || rest[dot] != '.') return std::nullopt;
  const std::string_view figure = rest.substr(dot + 1);
  // '.' in an ECMAScript regex stops at a line terminator: the keys read before never held one.
  if (figure.empty() || figure.find_first_of("\r\n") != std::string_view::npos) return std::nullopt;
  GpuFigure parsed;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + dot, parsed.gpu);
  if (error != std::errc() || end != rest.data() + dot) return std::nullopt;
  parsed.figure = std::string(figure);
  return parsed;
}

}  // namespace labcheck::measurement_key
