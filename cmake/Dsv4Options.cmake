# Shared build flags and the one-line registration helpers.
include_guard(GLOBAL)

set(DSV4_IS_CLANG OFF)
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(DSV4_IS_CLANG ON)
endif()

# libFuzzer only with clang; otherwise fuzz targets link fuzz/replay_main.cpp.
set(DSV4_LIBFUZZER OFF)
if(DSV4_ENABLE_FUZZ AND DSV4_IS_CLANG)
  set(DSV4_LIBFUZZER ON)
endif()

set(DSV4_HOST_SAN_FLAGS "")
if(DSV4_SANITIZE)
  string(REPLACE ";" "," _san "${DSV4_SANITIZE}")
  set(DSV4_HOST_SAN_FLAGS -fsanitize=${_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
endif()
if(DSV4_LIBFUZZER)
  list(APPEND DSV4_HOST_SAN_FLAGS -fsanitize=fuzzer-no-link)
  # Every executable links the coverage-instrumented libraries: those without libFuzzer's main
  # (CLI, tests) need the SanitizerCoverage callbacks, i.e. libFuzzer without main (fuzz-work addition).
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libclang_rt.fuzzer_no_main-x86_64.a
                  OUTPUT_VARIABLE DSV4_FUZZER_NO_MAIN OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(EXISTS "${DSV4_FUZZER_NO_MAIN}")
    link_libraries(${DSV4_FUZZER_NO_MAIN})
  endif()
endif()

# Host (C/CXX) targets get the sanitizer flags; CUDA sources never do.
add_compile_options("$<$<COMPILE_LANGUAGE:CXX,C>:${DSV4_HOST_SAN_FLAGS}>")
if(DSV4_SANITIZE)
  add_link_options(-fsanitize=${_san})
endif()
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:-Wall;-Wextra;-Wno-unused-parameter>")
add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:-lineinfo;--expt-relaxed-constexpr>")

if(DSV4_FAULT)
  add_compile_definitions(DSV4_FAULT_${DSV4_FAULT}=1)
  message(STATUS "dsv4: PLANTED FAULT ${DSV4_FAULT} compiled in")
endif()

# dsv4_add_test(NAME <name> SOURCES ... LIBS ... LABELS ... [ENV ...])
# One line registers one test binary and its CTest entry.
function(dsv4_add_test)
  cmake_parse_arguments(A "" "NAME" "SOURCES;LIBS;LABELS;ENV;ARGS" ${ARGN})
  add_executable(${A_NAME} ${A_SOURCES})
  target_link_libraries(${A_NAME} PRIVATE ${A_LIBS})
  add_test(NAME ${A_NAME} COMMAND ${A_NAME} ${A_ARGS})
  set_tests_properties(${A_NAME} PROPERTIES LABELS "${A_LABELS}" SKIP_RETURN_CODE 77)
  if(A_ENV)
    set_tests_properties(${A_NAME} PROPERTIES ENVIRONMENT "${A_ENV}")
  endif()
endfunction()
