# Writes NVSTUB(name) lines for every function a simulated library exports whose name starts with
# PREFIX (cu / nvml), except the names in EXCLUDE (';'-separated), so the stub exports exactly the
# simulated driver's names, as NVIDIA's stub exports the real driver's.
#   cmake -DNM=nm -DLIBRARY=libcuda.so.1 -DPREFIX=cu -DEXCLUDE=a;b -DOUT=names.inc -P stub_exports.cmake
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST) in script mode
execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "${NM} could not list ${LIBRARY}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(out "// Generated from ${LIBRARY} by stub_exports.cmake: do not edit.\n")
set(count 0)
foreach(line IN LISTS lines)
  # "0000000000012345 i cuInit": ifunc (our NVSIM_EXPORT) or plain text symbols.
  if(line MATCHES "^[0-9a-fA-F]+ [iTW] (${PREFIX}[A-Za-z0-9_]+)$")
    set(name ${CMAKE_MATCH_1})
    if(NOT name IN_LIST EXCLUDE)
      string(APPEND out "NVSTUB(${name})\n")
      math(EXPR count "${count} + 1")
    endif()
  endif()
endforeach()
if(count LESS 5)
  message(FATAL_ERROR "only ${count} ${PREFIX}* names in ${LIBRARY}")
endif()
file(WRITE ${OUT}.tmp "${out}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
