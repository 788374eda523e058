// The commit lab_check was built from, for `--version` and the reports: 12 hex digits of the git commit,
// "-dirty" appended when tracked files differed from it, or "unknown" outside a git checkout. The
// definition is generated at build time (cmake/BuildCommit.cmake), so it is always the build's own.
#pragma once

#include <string_view>

namespace labcheck {

std::string_view BuildCommit();

}  // namespace labcheck
