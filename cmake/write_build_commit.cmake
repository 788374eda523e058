# cmake -DOUT=<file.cpp> -DSOURCE_DIR=<repository> [-DCOMMIT=<text>] -P write_build_commit.cmake
# Writes labcheck::BuildCommit(): COMMIT when given, else the checkout's commit (12 hex digits,
# "-dirty" when tracked files differ from it, as `git describe --dirty` marks it), else "unknown".
if(COMMIT)
  set(commit "${COMMIT}")
else()
  set(commit "unknown")
  find_program(GIT git)
  if(GIT)
    execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE head RESULT_VARIABLE failed OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT failed AND head)
      set(commit "${head}")
      execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" diff --quiet HEAD --
                      RESULT_VARIABLE modified OUTPUT_QUIET ERROR_QUIET)
      if(modified)
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()
# file(CONFIGURE) leaves the file untouched when the text is the same: nothing recompiles.
file(CONFIGURE OUTPUT "${OUT}" CONTENT [[
// Generated at build time by cmake/write_build_commit.cmake; not part of the source tree.
#include "core/build_commit.h"

namespace labcheck {
std::string_view BuildCommit() { return "@commit@"; }
}  // namespace labcheck
]] @ONLY)
