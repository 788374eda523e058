// What to do after a smoke test's SKIP or FAIL: the course's troubleshooting table where it has
// a row for it (reference/hints.h, never retyped here), our own words where it has none.
#pragma once
#include <string>

#include "core/text.h"

namespace labcheck::smoke {

// `reason` is the probe's stable reason code ("package_missing"...), `package` its package.
Text HintForSkip(const std::string& test, const std::string& reason, const std::string& package);
// `error_text`: the exception or the output tail, searched for known symptoms.
Text HintForError(const std::string& test, const std::string& error_text);
// For hangs and crashes of distributed ranks: NCCL's row of the table, or gloo's own advice.
Text HintForDistributedFailure(const std::string& backend);

}  // namespace labcheck::smoke
