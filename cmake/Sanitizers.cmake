# SPDX-License-Identifier: GPL-3.0-or-later
# Whole-build sanitizers, chosen by the `sanitize` and `tsan` presets (CMakePresets.json).
#
#   COPPERLINE_SANITIZE=address,undefined   ASan + UBSan; any undefined behaviour aborts the test
#   COPPERLINE_SANITIZE=thread              TSan; tests/tsan.supp lists the reports it must ignore
#
# The flags go on every host target, so the libraries the tests link carry them too. The guest
# programs are built by the 68000 cross compiler with their own flags and are not affected.
set(COPPERLINE_SANITIZE "" CACHE STRING
    "Sanitizers for the whole host build: empty, address,undefined or thread")
set_property(CACHE COPPERLINE_SANITIZE PROPERTY STRINGS "" "address,undefined" "thread")

if(COPPERLINE_SANITIZE STREQUAL "address,undefined")
    add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=undefined
                        -fno-omit-frame-pointer)
    add_link_options(-fsanitize=address,undefined)
elseif(COPPERLINE_SANITIZE STREQUAL "thread")
    add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
    add_link_options(-fsanitize=thread)
elseif(NOT COPPERLINE_SANITIZE STREQUAL "")
    message(FATAL_ERROR "COPPERLINE_SANITIZE must be empty, address,undefined or thread, "
                        "not '${COPPERLINE_SANITIZE}'")
endif()

# COPPERLINE_HOT_CODE_FLAGS: compile options for the code every emulated clock runs (the
# machine, copperline_emu, and the observers and readers, copperline_profiler), after the
# build type's. The sanitize preset builds everything else at -O0, which compiles a third
# faster, and those two at -O1, so the tests that run guest programs and read captures
# under ASan do not slow down with it (docs/testing.md).
set(COPPERLINE_HOT_CODE_FLAGS "" CACHE STRING
    "Compile options for copperline_emu and copperline_profiler after the build type's (the sanitize preset: -O1)")
# copperline_compile_flags(TARGET FLAGS): a cache string of compile options (as a shell would
# split it) added to a target's own, after the build type's; nothing when it is empty.
function(copperline_compile_flags target flags)
    if(flags)
        separate_arguments(_flags UNIX_COMMAND "${flags}")
        target_compile_options(${target} PRIVATE ${_flags})
    endif()
endfunction()

function(copperline_hot_code target)
    copperline_compile_flags(${target} "${COPPERLINE_HOT_CODE_FLAGS}")
endfunction()

# copperline_ci_sanitized(TARGET...): executables whose tests CI runs under ASan + UBSan
# (the target ci_sanitized, scripts/sanitize.sh ci): the tests labelled unit or vectors
# register themselves (copperline_add_qtest, copperline_add_fuzzer); the others name theirs.
# COPPERLINE_CI_SANITIZED_EXTRA: tests of other labels CI runs there too (they get the label
# `sanitized`), cheap enough under ASan and covering the capture's writers and readers
# in-process.
set(COPPERLINE_CI_SANITIZED_EXTRA test_frame_capture test_samples test_capture_ring test_capture_cut)
function(copperline_ci_sanitized)
    set_property(GLOBAL APPEND PROPERTY COPPERLINE_CI_SANITIZED ${ARGN})
endfunction()
