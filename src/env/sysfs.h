// Reading the small text files of /proc and /sys, and the binary ones of /sys/firmware. Parsers
// elsewhere take the contents as strings, so tests feed them samples; only these functions touch
// the file system.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"

namespace labcheck::env {

// The whole file (procfs and sysfs files report size 0, so it reads until EOF). The error names
// the path and the system's reason (e.g. "Permission denied" for root-only SMBIOS entries).
Result<std::string> ReadWholeFile(const std::string& path);

// The file's first line without the trailing newline: most sysfs attributes hold one value.
Result<std::string> ReadFirstLine(const std::string& path);

// Names in a directory (no "." and ".."), sorted; empty when the directory cannot be read.
std::vector<std::string> ListDirectory(const std::string& path);

// Trims ASCII whitespace at both ends.
std::string Trim(std::string_view text);

}  // namespace labcheck::env
