// A per-GPU measurement's key, "gpu<index>.<figure>" ("gpu0.matmul_bf16_tflops":
// docs/measurement-keys.md lists the figures). Written and read here only, so that the checks that
// make such keys and the report parts that find them by card agree on one spelling.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace labcheck::measurement_key {

struct GpuFigure {
  int gpu = 0;         // the CUDA device index
  std::string figure;  // the rest after "gpu<index>.", e.g. "matmul_bf16_tflops"
};

std::string Format(int gpu, std::string_view figure);

// nullopt unless the key is "gpu", one or more digits, ".", and a figure that is not empty and has
// no line break in it (what std::regex R"(gpu(\d+)\.(.+))" took before); nullopt too for an index
// that does not fit an int.
std::optional<GpuFigure> Parse(std::string_view key);

}  // namespace labcheck::measurement_key
