#include "smoke/probe_fields.h"

#include <cmath>
#include <limits>

namespace labcheck::smoke {
namespace {

const nlohmann::json& EmptyObject() {
  static const nlohmann::json empty = nlohmann::json::object();
  return empty;
}

std::optional<double> NonFiniteFromString(const std::string& text) {
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

}  // namespace

ProbeFields::ProbeFields(const nlohmann::json& object, std::string where)
    : object_(object.is_object() ? object : EmptyObject()), where_(std::move(where)) {
  if (!object.is_object()) problem_ = "the result " + (where_.empty() ? "" : "'" + where_ + "' ") + "is not an object";
}

const nlohmann::json* ProbeFields::Find(const std::string& key, bool required) {
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) {
    if (required && problem_.empty()) problem_ = "field '" + where_ + key + "' is missing";
    return nullptr;
  }
  return &*it;
}

void ProbeFields::Mistyped(const std::string& key, const nlohmann::json& value, const char* expected) {
  if (problem_.empty()) {
    problem_ = "field '" + where_ + key + "' is " + value.type_name() + ", expected " + expected;
  }
}

std::optional<double> ProbeFields::OptionalNumber(const std::string& key) {
  const nlohmann::json* value = Find(key, false);
  if (!value) return std::nullopt;
  if (value->is_number()) return value->get<double>();
  if (value->is_string()) {
    if (auto special = NonFiniteFromString(value->get<std::string>())) return special;
  }
  Mistyped(key, *value, "a number");
  return std::nullopt;
}

double ProbeFields::Number(const std::string& key) {
  if (!Find(key, true)) return std::numeric_limits<double>::quiet_NaN();
  return OptionalNumber(key).value_or(std::numeric_limits<double>::quiet_NaN());
}

int64_t ProbeFields::Integer(const std::string& key) {
  const nlohmann::json* value = Find(key, true);
  if (!value) return 0;
  if (value->is_number_integer()) return value->get<int64_t>();
  Mistyped(key, *value, "an integer");
  return 0;
}

std::optional<std::string> ProbeFields::OptionalString(const std::string& key) {
  const nlohmann::json* value = Find(key, false);
  if (!value) return std::nullopt;
  if (value->is_string()) return value->get<std::string>();
  Mistyped(key, *value, "a string");
  return std::nullopt;
}

std::string ProbeFields::String(const std::string& key) {
  if (!Find(key, true)) return {};
  return OptionalString(key).value_or(std::string());
}

bool ProbeFields::Bool(const std::string& key) {
  const nlohmann::json* value = Find(key, true);
  if (!value) return false;
  if (value->is_boolean()) return value->get<bool>();
  Mistyped(key, *value, "true or false");
  return false;
}

const nlohmann::json& ProbeFields::Object(const std::string& key) {
  const nlohmann::json* value = Find(key, true);
  if (!value) return EmptyObject();
  if (value->is_object()) return *value;
  Mistyped(key, *value, "an object");
  return EmptyObject();
}

}  // namespace labcheck::smoke
