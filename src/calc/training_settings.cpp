#include "calc/training_settings.h"

namespace labcheck::calc {

std::optional<Method> ParseMethod(const std::string& text) {
  if (text == "full") return Method::Full;
  if (text == "lora") return Method::Lora;
  if (text == "qlora") return Method::Qlora;
  return std::nullopt;
}

std::optional<Optimizer> ParseOptimizer(const std::string& text) {
  if (text == "adamw") return Optimizer::AdamW;
  if (text == "adamw8bit") return Optimizer::AdamW8bit;
  if (text == "sgd") return Optimizer::Sgd;
  return std::nullopt;
}

std::optional<Precision> ParsePrecision(const std::string& text) {
  if (text == "bf16") return Precision::Bf16;
  if (text == "mixed") return Precision::Mixed;
  return std::nullopt;
}

const char* MethodName(Method method) {
  switch (method) {
    case Method::Full: return "full";
    case Method::Lora: return "lora";
    case Method::Qlora: return "qlora";
  }
  return "?";
}

const char* OptimizerName(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::AdamW: return "adamw";
    case Optimizer::AdamW8bit: return "adamw8bit";
    case Optimizer::Sgd: return "sgd";
  }
  return "?";
}

const char* PrecisionName(Precision precision) { return precision == Precision::Bf16 ? "bf16" : "mixed"; }

}  // namespace labcheck::calc
