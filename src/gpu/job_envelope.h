// The JSON a GPU child job prints, and how the parent check reads it. Every job's object has
// "outcome": "ok" | "skip" | "fail"; skip and fail carry "reason" and "hint" ({"ru", "en"}) and
// "error"; all carry "libraries" [{name, path, origin, version}] as far as they got.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/check_result.h"
#include "core/text.h"
#include "runner/child_job.h"

namespace labcheck::gpu {

nlohmann::json TextJson(const Text& text);
Text TextFromJson(const nlohmann::json& value);  // tolerates a plain string or nothing

nlohmann::json OkEnvelope();
nlohmann::json SkipEnvelope(const Text& reason, const Text& hint, const std::string& error = {});
nlohmann::json FailEnvelope(const Text& reason, const Text& hint, const std::string& error = {});

// What the parent makes of a finished child: nullopt when the envelope says "ok" (the check then
// reads the payload), otherwise the SKIP or FAIL result, with a hint for a crash or a timeout.
std::optional<CheckResult> EnvelopeProblem(const std::string& check_id, const ChildJobOutcome& outcome);

}  // namespace labcheck::gpu
