# SPDX-License-Identifier: GPL-3.0-or-later
# One place for the compiler warnings every Copperline target uses.
function(copperline_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
                                             $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>
                                             -Wimplicit-fallthrough
                                             $<$<COMPILE_LANGUAGE:CXX>:-Wnon-virtual-dtor>)
    if(COPPERLINE_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
endfunction()
