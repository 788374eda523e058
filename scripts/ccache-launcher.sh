#!/usr/bin/env bash
# Sourced by scripts/build.sh and scripts/check-platforms.sh: sets `launcher` to the CMake
# argument that compiles through ccache when it is installed (never required), empty otherwise.
# The targets use precompiled headers, which ccache refuses to cache unless its sloppiness
# allows pch_defines,time_macros (ccache manual, "Precompiled headers"); without it 98 % of the
# compiles were uncacheable. include_file_mtime/ctime: a fresh clone's headers are all "new".
# base_dir makes the absolute paths in the command lines relative to the source tree, so a
# second clone (CI's, a worktree) hits the cache the first one filled.
launcher=()
if command -v ccache >/dev/null; then
  launcher=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;CCACHE_BASEDIR=$(pwd -P);ccache")
fi
