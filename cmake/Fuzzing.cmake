# SPDX-License-Identifier: GPL-3.0-or-later
# libFuzzer targets (docs/testing.md). Each target is one LLVMFuzzerTestOneInput beside the
# tests of the reader it fuzzes:
#
#   copperline_add_fuzzer(NAME SOURCES src... [LIBS lib...] [SEEDS dir...] [DEPENDS target...])
#
# With COPPERLINE_FUZZ (the `fuzz` preset: clang, ASan + UBSan) NAME is a libFuzzer binary
# that scripts/fuzz.sh runs for a given time from the seed corpus in
# build/fuzz/fuzz/seeds/NAME, generated at build time. In every other build NAME links a small
# driver instead (tests/fuzz/replay.cpp) and the test NAME_replay feeds it the seeds and the
# saved regression inputs (tests/fuzz/regressions/NAME), so that a bug once found stays found.
# A replay is test code like any other (COPPERLINE_TEST_CODE_FLAGS); the sanitized build runs
# it under ASan and UBSan with the readers it links instrumented (scripts/sanitize.sh ci).
option(COPPERLINE_FUZZ "Build the libFuzzer targets (clang only; the fuzz preset)" OFF)
set(COPPERLINE_FUZZ_SEEDS "${CMAKE_BINARY_DIR}/fuzz/seeds")

if(COPPERLINE_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "COPPERLINE_FUZZ needs clang (libFuzzer); use the fuzz preset")
    endif()
    # Coverage for the fuzzer's guidance in every library the targets link.
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()

add_custom_target(fuzzers)

if(NOT COPPERLINE_FUZZ)
    # The driver every replay links (tests/fuzz/replay.cpp), compiled once for all of them.
    add_library(copperline_fuzz_replay OBJECT ${CMAKE_SOURCE_DIR}/tests/fuzz/replay.cpp)
    copperline_compile_flags(copperline_fuzz_replay "${COPPERLINE_TEST_CODE_FLAGS}")
    copperline_warnings(copperline_fuzz_replay)
endif()

function(copperline_add_fuzzer NAME)
    cmake_parse_arguments(F "" "" "SOURCES;LIBS;SEEDS;DEPENDS" ${ARGN})
    if(COPPERLINE_FUZZ)
        add_executable(${NAME} ${F_SOURCES})
        target_link_options(${NAME} PRIVATE -fsanitize=fuzzer)
        set_target_properties(${NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/fuzz/bin")
    else()
        add_executable(${NAME} ${F_SOURCES})
        target_link_libraries(${NAME} PRIVATE copperline_fuzz_replay)
        copperline_compile_flags(${NAME} "${COPPERLINE_TEST_CODE_FLAGS}")
    endif()
    target_include_directories(${NAME} PRIVATE ${CMAKE_SOURCE_DIR})
    target_link_libraries(${NAME} PRIVATE ${F_LIBS})
    copperline_warnings(${NAME})
    add_dependencies(${NAME} fuzz_seeds ${F_DEPENDS})
    add_dependencies(fuzzers ${NAME})
    copperline_ci_sanitized(${NAME})
    set(inputs "${COPPERLINE_FUZZ_SEEDS}/${NAME}")
    if(EXISTS "${CMAKE_SOURCE_DIR}/tests/fuzz/regressions/${NAME}")
        list(APPEND inputs "${CMAKE_SOURCE_DIR}/tests/fuzz/regressions/${NAME}")
    endif()
    if(NOT COPPERLINE_FUZZ)
        add_test(NAME ${NAME}_replay COMMAND ${NAME} ${inputs})
        set_tests_properties(${NAME}_replay PROPERTIES LABELS unit
                             ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1")
    endif()
endfunction()
