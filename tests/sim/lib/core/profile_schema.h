// The defaults profile (core/profile_defaults.json, built into libnvsim-core): the layer every
// machine profile starts from, and the list of keys a profile may give. The file's header says
// how to read it: a value is a default, null a key absent by default, "name?" an optional
// object (or list of objects) with its keys and their defaults.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nvsim {

using nlohmann::json;

// Where the defaults come from, for messages.
inline constexpr const char* kDefaultsFile = "tests/sim/lib/core/profile_defaults.json";

// The defaults profile as written ("name?" entries included). A defaults file that does not
// parse aborts: it is part of the sim, not of a profile.
const json& Defaults();

// `schema` without its optional ("name?") entries: the values a profile starts from.
json DefaultValues(const json& schema);

// The keys of `given` that `schema` does not list, as paths below `prefix` ("gpus[2]/perf/x").
// Below "gpus" (at the top) each entry is checked against the schema's "gpu_defaults".
std::vector<std::string> UnknownKeys(const json& given, const json& schema, const std::string& prefix = "");

// Gives each optional object (or list entry) that `value` has the defaults of the keys it omits.
void FillOptional(json& value, const json& schema);

// The default at a '/'-separated path of `schema`, through "name?" objects; nullptr where the
// defaults give none (an unlisted key, null, or inside a list).
const json* DefaultAt(const json& schema, const char* path);

}  // namespace nvsim
