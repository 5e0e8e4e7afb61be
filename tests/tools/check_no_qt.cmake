# SPDX-License-Identifier: GPL-3.0-or-later
# Fails if any source under ${ROOT}/emu or ${ROOT}/profiler includes a Qt header:
# <QString>, <QtCore/QObject>, "QFile" and the like.
set(bad "")
foreach(dir emu profiler)
    file(GLOB_RECURSE files "${ROOT}/${dir}/*.h" "${ROOT}/${dir}/*.hpp" "${ROOT}/${dir}/*.cpp"
                            "${ROOT}/${dir}/*.cc" "${ROOT}/${dir}/*.inc")
    foreach(f IN LISTS files)
        file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"](Q[A-Za-z0-9_]+|Qt[A-Za-z0-9]*/[^>\"]*)[>\"]")
        if(lines)
            list(APPEND bad "${f}: ${lines}")
        endif()
    endforeach()
endforeach()
if(bad)
    list(JOIN bad "\n  " text)
    message(FATAL_ERROR "Qt headers are included in the Qt-free core:\n  ${text}")
endif()
message(STATUS "emu/ and profiler/ include no Qt header")
