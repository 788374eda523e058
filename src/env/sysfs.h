// Reading the small text files of /proc and /sys (whole files: platform/files.h ReadFile). Parsers
// elsewhere take the contents as strings, so tests feed them samples; only these functions touch
// the file system.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"
#include "platform/files.h"  // ReadFile: the whole file, to EOF (procfs sizes are 0)

namespace labcheck::env {

// The file's first line without the trailing newline: most sysfs attributes hold one value.
Result<std::string> ReadFirstLine(const std::string& path);

// Names in a directory (no "." and ".."), sorted; empty when the directory cannot be read.
std::vector<std::string> ListDirectory(const std::string& path);

// Trims ASCII whitespace at both ends.
std::string Trim(std::string_view text);

}  // namespace labcheck::env
