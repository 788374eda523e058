// Small file-system helpers that translate errno into a Status with the path, once, here.
#pragma once
#include <string>

#include "core/status.h"

namespace labcheck {

// Writes via a temporary file in the same directory and rename(), creating missing parent
// directories, so a reader never sees half a report. The error names the path and the reason.
Status WriteFileAtomically(const std::string& path, const std::string& content);
Result<std::string> ReadFile(const std::string& path);
// A fresh private (0700) directory under $TMPDIR or /tmp; RemoveTree deletes it again.
Result<std::string> MakePrivateTempDir(const std::string& prefix);
void RemoveTree(const std::string& path);
// "2026-12-02T14:03:11Z"
std::string UtcTimestamp();

}  // namespace labcheck
