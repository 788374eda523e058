// nlohmann/json's code generated once, in json_instances.cpp, instead of in every file.
//
// json is header-only, so each translation unit that parsed or printed JSON generated and
// optimised its own copy of the parser, the serializer and basic_json's members: in a first
// build about a third of all the object code was the same json functions again, 22 to 104 copies
// each (nm over the unity units, issue 24, docs/benchmarks.md). `extern template` tells every
// unit that sees this header (it is in the precompiled headers, so every unit of lab_check and
// the tests) not to instantiate these classes; json_instances.cpp instantiates them once.
// Member templates (get<T>, value(), the from/to_json of our types) are still made where used.
//
// The list names json's internal classes, which are stable within a minor version, so the
// declarations are made for nlohmann/json 3.11 (Debian 12 and 13) only; under any other version
// each unit instantiates what it uses, as before.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

#if NLOHMANN_JSON_VERSION_MAJOR == 3 && NLOHMANN_JSON_VERSION_MINOR == 11
#define LAB_CHECK_JSON_EXTERN_TEMPLATES 1

namespace labcheck::json_instances {
// json::parse(std::string) and json::parse(const char*) read through these.
using StringInput = nlohmann::detail::iterator_input_adapter<std::string::const_iterator>;
using CharInput = nlohmann::detail::iterator_input_adapter<const char*>;
}  // namespace labcheck::json_instances

// One list for both sides: `LAB_CHECK_JSON_INSTANCES(extern)` here, `LAB_CHECK_JSON_INSTANCES()`
// in json_instances.cpp.
#define LAB_CHECK_JSON_INSTANCES(kind)                                                                       \
  kind template class nlohmann::basic_json<>;                                                                \
  kind template class nlohmann::detail::serializer<nlohmann::json>;                                          \
  kind template class nlohmann::detail::lexer<nlohmann::json, labcheck::json_instances::StringInput>;       \
  kind template class nlohmann::detail::parser<nlohmann::json, labcheck::json_instances::StringInput>;      \
  kind template class nlohmann::detail::lexer<nlohmann::json, labcheck::json_instances::CharInput>;         \
  kind template class nlohmann::detail::parser<nlohmann::json, labcheck::json_instances::CharInput>;        \
  kind template class nlohmann::detail::json_sax_dom_parser<nlohmann::json>;                                 \
  kind template class nlohmann::detail::json_sax_dom_callback_parser<nlohmann::json>;                        \
  kind template class nlohmann::detail::iter_impl<const nlohmann::json>;                                     \
  kind template class std::vector<nlohmann::json>;                                                           \
  kind template class std::map<std::string, nlohmann::json, std::less<>>;

LAB_CHECK_JSON_INSTANCES(extern)
#endif  // nlohmann/json 3.11
