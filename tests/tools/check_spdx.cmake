# SPDX-License-Identifier: GPL-3.0-or-later
# Fails if a source file of the project (C, C++, assembly, scripts, CMake, JavaScript under
# ${ROOT}) lacks the SPDX licence line in its first three lines. Third-party files
# (tests/data) and fuzz regression inputs are not the project's and are left out.
set(tag "SPDX-License-Identifier: GPL-3.0-or-later")
set(missing "")
foreach(dir app emu profiler ui tests scripts cmake resources packaging)
    file(GLOB_RECURSE files
         "${ROOT}/${dir}/*.cpp" "${ROOT}/${dir}/*.h" "${ROOT}/${dir}/*.c" "${ROOT}/${dir}/*.inc"
         "${ROOT}/${dir}/*.S" "${ROOT}/${dir}/*.s" "${ROOT}/${dir}/*.sh" "${ROOT}/${dir}/*.cmake"
         "${ROOT}/${dir}/*.js" "${ROOT}/${dir}/*.mjs" "${ROOT}/${dir}/*.py" "${ROOT}/${dir}/*.ld"
         "${ROOT}/${dir}/CMakeLists.txt")
    foreach(f IN LISTS files)
        file(RELATIVE_PATH rel "${ROOT}" "${f}")
        if(rel MATCHES "^tests/data/|^tests/fuzz/regressions/|/node_modules/|^tests/tools/spdx_plant/")
            continue()
        endif()
        file(STRINGS "${f}" head LIMIT_COUNT 3)
        string(FIND "${head}" "${tag}" at)
        if(at EQUAL -1)
            list(APPEND missing "${f}")
        endif()
    endforeach()
endforeach()
file(STRINGS "${ROOT}/CMakeLists.txt" head LIMIT_COUNT 3)
string(FIND "${head}" "${tag}" at)
if(at EQUAL -1)
    list(APPEND missing "${ROOT}/CMakeLists.txt")
endif()
if(missing)
    list(JOIN missing "\n  " text)
    message(FATAL_ERROR "No \"${tag}\" line at the top of:\n  ${text}")
endif()
message(STATUS "every source file names its licence")
