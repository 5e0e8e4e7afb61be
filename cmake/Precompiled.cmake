# SPDX-License-Identifier: GPL-3.0-or-later
# Build time: precompiled headers and the optimisation of the tests' own code
# (docs/testing.md, "How long each part takes").
#
# Most of a Copperline translation unit's compile time went to parsing the same third-party
# headers (Qt's, nlohmann_json's, the standard library's). With COPPERLINE_PCH those are
# parsed once per library (copperline_pch; an executable built with its library's options
# takes that library's) and once for all the tests (copperline_test_pch: one header with Qt
# Core, one with Qt Widgets), and loaded in compiled form after that. Only third-party
# headers are precompiled: a Copperline header changed still rebuilds only what includes it.
#
# GCC uses a precompiled header only where the macros given on the command line are those it
# was made with (and none it reads is given otherwise). CMake compiles with -Winvalid-pch, an
# error in the ci preset: a target given the wrong one stops the build rather than quietly
# parsing everything again.
#
# The fuzz preset (clang) builds without, so that a source relying on a header it does not
# include still fails somewhere.
option(COPPERLINE_PCH "Precompile the third-party headers (Qt, nlohmann_json, the standard library)" ON)

# COPPERLINE_TEST_CODE_FLAGS: compile options for the tests' own code (copperline_add_qtest)
# after the build type's. The ci preset compiles it at -O0: what the tests run is the machine,
# the observers and the programs built as a user builds them, and a test's own code compiled
# at -O3 only costs build time.
set(COPPERLINE_TEST_CODE_FLAGS "" CACHE STRING
    "Compile options for the tests' own code after the build type's (the ci preset: -O0)")

set(_copperline_pch_std <algorithm> <array> <cstdint> <cstring> <functional> <map> <memory>
                        <optional> <set> <span> <string> <string_view> <unordered_map>
                        <utility> <vector>)

# copperline_pch(TARGET [QT module-header...] | REUSE LIBRARY): the target's own precompiled
# header: nlohmann_json, the standard library and the Qt module headers named (QtCore,
# QtNetwork, QtWidgets...), which the target must link. REUSE: the one LIBRARY made, for an
# executable that links LIBRARY and nothing that defines another macro (copperline takes
# copperline_ui's, copperline-ctl copperline_control's); -Winvalid-pch says when that stops
# being so.
function(copperline_pch target)
    cmake_parse_arguments(P "" "REUSE" "QT" ${ARGN})
    if(NOT COPPERLINE_PCH)
        return()
    endif()
    if(P_REUSE)
        target_precompile_headers(${target} REUSE_FROM ${P_REUSE})
        return()
    endif()
    set(_qt)
    foreach(module IN LISTS P_QT)
        list(APPEND _qt "<${module}>")
    endforeach()
    target_precompile_headers(${target} PRIVATE <nlohmann/json.hpp> ${_copperline_pch_std} ${_qt})
endfunction()

# copperline_test_pch(): the targets holding the precompiled headers the tests share
# (tests/CMakeLists.txt, before the tests), compiled with the tests' own options. GCC uses a
# precompiled header only where every macro defined on the command line when it was made is
# defined alike (and none it reads is defined otherwise), and Qt defines one macro per module
# linked (QT_CORE_LIB, QT_WIDGETS_LIB...): so there are two, one linking Qt Core (every test
# links it) and one linking Qt Widgets for the tests of the window.
function(copperline_test_pch)
    if(NOT COPPERLINE_PCH)
        return()
    endif()
    foreach(kind core widgets)
        set(holder copperline_test_pch_${kind})
        add_library(${holder} OBJECT ${CMAKE_SOURCE_DIR}/tests/test_pch.cpp)
        set_target_properties(${holder} PROPERTIES AUTOMOC OFF)
        copperline_warnings(${holder})
        copperline_compile_flags(${holder} "${COPPERLINE_TEST_CODE_FLAGS}")
        if(kind STREQUAL core)
            target_link_libraries(${holder} PRIVATE Qt6::Core nlohmann_json::nlohmann_json)
            copperline_pch(${holder} QT QtCore)
        else()
            target_link_libraries(${holder} PRIVATE Qt6::Widgets nlohmann_json::nlohmann_json)
            copperline_pch(${holder} QT QtCore QtGui QtWidgets)
        endif()
    endforeach()
endfunction()

# copperline_test_code(TARGET LIBS...): a test's own code: COPPERLINE_TEST_CODE_FLAGS and the
# shared precompiled header its libraries allow (the window's when it links copperline_ui or
# Qt Widgets). A wrong choice stops the build (-Winvalid-pch with -Werror) rather than
# passing unseen.
function(copperline_test_code target)
    copperline_compile_flags(${target} "${COPPERLINE_TEST_CODE_FLAGS}")
    if(TARGET copperline_test_pch_core)
        set(holder copperline_test_pch_core)
        if("copperline_ui" IN_LIST ARGN OR "Qt6::Widgets" IN_LIST ARGN)
            set(holder copperline_test_pch_widgets)
        endif()
        target_precompile_headers(${target} REUSE_FROM ${holder})
        # The header is C++; a test's C sources (a guest runtime compiled for the host) go
        # without.
        get_target_property(_sources ${target} SOURCES)
        foreach(source IN LISTS _sources)
            if(source MATCHES "\\.c$")
                set_source_files_properties(${source} PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
            endif()
        endforeach()
    endif()
endfunction()
