// Reads a probe's JSON result with the types a judge expects. A probe is Python that runs under
// the user's interpreter and libraries, so its output is input, not a contract: the first missing
// or mistyped field is remembered and becomes the check's FAIL ("field 'loss' is missing"), and
// the getters return harmless defaults so that a judge reads everything first and asks once.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace labcheck::smoke {

class ProbeFields {
 public:
  // `object` must outlive this reader. `where` prefixes field names in messages: "variants.sdpa_flash.".
  explicit ProbeFields(const nlohmann::json& object, std::string where = {});

  // Numbers also accept "nan", "inf", "-inf": JSON cannot carry them, smoke_common writes strings.
  double Number(const std::string& key);
  std::optional<double> OptionalNumber(const std::string& key);  // absent or null: nullopt
  int64_t Integer(const std::string& key);
  std::string String(const std::string& key);
  std::optional<std::string> OptionalString(const std::string& key);
  bool Bool(const std::string& key);
  // An object member; an empty object when missing (the problem is recorded).
  const nlohmann::json& Object(const std::string& key);

  bool ok() const { return problem_.empty(); }
  const std::string& problem() const { return problem_; }  // English, names the field

 private:
  const nlohmann::json* Find(const std::string& key, bool required);
  void Mistyped(const std::string& key, const nlohmann::json& value, const char* expected);

  const nlohmann::json& object_;
  std::string where_;
  std::string problem_;
};

}  // namespace labcheck::smoke
