# lab_build_commit(<target>): adds to <target> a generated source that defines labcheck::BuildCommit()
# (src/core/build_commit.h), the commit `lab_check --version` names. It is written at build time,
# not configure time, so a commit made after configuring is named without reconfiguring; the
# script rewrites the file only when the commit changes, so an unchanged tree recompiles nothing.
# -DLAB_CHECK_COMMIT=<text> names it where there is no git checkout (a source tarball).
set(LAB_CHECK_COMMIT "" CACHE STRING "Commit for --version when building outside a git checkout")
function(lab_build_commit target)
  set(out "${PROJECT_BINARY_DIR}/generated/build_commit.cpp")
  add_custom_target(lab_build_commit
    COMMAND ${CMAKE_COMMAND} "-DOUT=${out}" "-DSOURCE_DIR=${PROJECT_SOURCE_DIR}" "-DCOMMIT=${LAB_CHECK_COMMIT}"
            -P "${PROJECT_SOURCE_DIR}/cmake/write_build_commit.cmake"
    BYPRODUCTS "${out}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
  set_source_files_properties("${out}" PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON SKIP_PRECOMPILE_HEADERS ON)
  add_dependencies(${target} lab_build_commit)
endfunction()
