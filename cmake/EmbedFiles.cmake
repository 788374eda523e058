# embed_files(TARGET <lib> NAMESPACE <ns> BASE <dir> FILES <f>...)
# Adds a generated source to <lib> that defines
#   labcheck::EmbeddedFileTable <ns>::EmbeddedFiles();   (src/core/embedded_files.h: a span)
# mapping each file's path relative to BASE to its contents. Declare it in the .cpp that looks
# files up, hidden behind a lookup function.
function(embed_files)
  cmake_parse_arguments(E "" "TARGET;NAMESPACE;BASE" "FILES" ${ARGN})
  string(REPLACE "::" "_" stem "${E_NAMESPACE}")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${stem}_embedded.cpp")
  # A list would be split into several arguments on the way; "|" survives.
  string(REPLACE ";" "|" inputs "${E_FILES}")
  # The list of files is an input too: a file added to FILES must regenerate the source even when
  # the old output is newer than every file (else the old table is served).
  # file(CONFIGURE) rewrites the list only when it changes, so unchanged lists rebuild nothing.
  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/${stem}_embedded.list")
  file(CONFIGURE OUTPUT "${list_file}" CONTENT "${inputs}\n")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} "-DOUT=${out}" "-DNAMESPACE=${E_NAMESPACE}" "-DINPUTS=${inputs}"
            "-DBASE=${E_BASE}" -P "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    DEPENDS ${E_FILES} "${list_file}" "${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake"
    COMMENT "Embedding ${E_NAMESPACE} files"
    VERBATIM)
  target_sources(${E_TARGET} PRIVATE "${out}")
  # Data, not code: kept out of unity batches so that changing a data file recompiles no code, and
  # compiled without the precompiled header, which it does not use (loading it was most of the 2 s
  # such a file took to compile; without it, under 1 s).
  set_source_files_properties("${out}" PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON SKIP_PRECOMPILE_HEADERS ON)
endfunction()
