#!/usr/bin/env bash
# Sourced by scripts/build.sh and scripts/check-platforms.sh: sets `launcher` to the CMake
# argument that compiles through ccache when it is installed (never required), empty otherwise.
# The targets use precompiled headers, which ccache refuses to cache unless its sloppiness
# allows pch_defines,time_macros (ccache manual, "Precompiled headers"); without it 98 % of the
# compiles were uncacheable. include_file_mtime/ctime: a fresh clone's headers are all "new".
# base_dir makes the absolute paths in the command lines relative to the source tree, so a second
# build folder of the same clone (check-platforms.sh's) hits the cache the first one filled.
# depend mode: on a miss ccache takes the headers from the compiler's own -MD file instead of
# running the preprocessor first. A fresh machine's first build is all misses: a test unit took
# 13.2 s through ccache's default mode, 11.5 s in depend mode and 11.1 s without ccache (five
# interleaved runs each, docs/benchmarks.md). Its cost: no preprocessed-mode fallback, so a second
# clone at another path misses (the unity files include the sources by absolute path). Every build
# here passes -MD (CMake's Ninja and Makefile generators with GCC), which depend mode needs.
launcher=()
if command -v ccache >/dev/null; then
  launcher=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;CCACHE_DEPEND=1;CCACHE_BASEDIR=$(pwd -P);ccache")
fi
