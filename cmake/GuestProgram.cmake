# SPDX-License-Identifier: GPL-3.0-or-later
# Building 68000 guest programs with Debian's m68k-linux-gnu toolchain.
#
#   add_guest_library(NAME SOURCES src...)
#       A static archive of guest objects (libNAME.a).
#   add_guest_program(NAME SOURCES src... [LIBRARIES lib...] [INCLUDES dir...]
#                     [DEFINES D=V...] [CFLAGS flag...] [OPT -O2] [NO_RUNTIME]
#                     [LINK_ADDRESS 0x40000] [BARTMAN_LAYOUT])
#       Produces, in the folder amiga/ of the current binary folder:
#         NAME.elf  the linked ELF with its DWARF and its relocations (--emit-relocs)
#         NAME.bin  a raw binary for bare-metal use, loaded at $1000 (or LINK_ADDRESS,
#                   for code a loader places there itself)
#         NAME      an AmigaOS hunk executable written by elf2hunk
#       and a target NAME that builds all three. The build fails if the code holds any
#       opcode a 68000 cannot execute (scripts/check-68000.sh). BARTMAN_LAYOUT writes the
#       executable as NAME.exe instead, laid out as Bartman's elf2hunk does (elf2hunk
#       --bartman): the layout of the programs vscode-amiga-debug's template builds.
#
# Sources may be C (.c), plain assembly (.s) or assembly through the C preprocessor (.S).
# Every program links Copperline's own 68000 runtime (resources/guest/runtime): Debian's
# libgcc.a is built for the 68020 and its division routines use BSR.L.

find_program(M68K_GCC m68k-linux-gnu-gcc REQUIRED)
find_program(M68K_LD m68k-linux-gnu-ld REQUIRED)
find_program(M68K_AR m68k-linux-gnu-ar REQUIRED)
find_program(M68K_OBJCOPY m68k-linux-gnu-objcopy REQUIRED)
find_program(M68K_OBJDUMP m68k-linux-gnu-objdump REQUIRED)
find_program(M68K_READELF m68k-linux-gnu-readelf REQUIRED)
find_program(M68K_NM m68k-linux-gnu-nm REQUIRED)

set(COPPERLINE_GUEST_LINKER_SCRIPT "${CMAKE_SOURCE_DIR}/cmake/guest.ld")
set(COPPERLINE_GUEST_CHECK "${CMAKE_SOURCE_DIR}/scripts/check-68000.sh")

# Freestanding 68000 code with full debug information. No jump tables: gcc places them in
# .text, where their words could be mistaken for code by the opcode check.
set(COPPERLINE_GUEST_CFLAGS
    -m68000 -g -ffreestanding -nostdlib -fno-pic -fno-builtin -fno-jump-tables
    -fno-asynchronous-unwind-tables -fno-unwind-tables -fno-common
    -ffunction-sections -Wall -Wextra)

# Compiles SOURCES into objects; sets OUT_VAR to the list of object paths.
function(_copperline_guest_objects OUT_VAR NAME)
    cmake_parse_arguments(G "" "OPT" "SOURCES;INCLUDES;DEFINES;CFLAGS" ${ARGN})
    if(NOT G_OPT)
        set(G_OPT -O2)
    endif()
    set(flags ${COPPERLINE_GUEST_CFLAGS} ${G_OPT} ${G_CFLAGS}
        -I${CMAKE_SOURCE_DIR}/resources/guest/include)
    foreach(dir IN LISTS G_INCLUDES)
        list(APPEND flags -I${dir})
    endforeach()
    foreach(def IN LISTS G_DEFINES)
        list(APPEND flags -D${def})
    endforeach()
    set(objects)
    foreach(src IN LISTS G_SOURCES)
        get_filename_component(abs "${src}" ABSOLUTE)
        get_filename_component(base "${src}" NAME)
        set(obj "${CMAKE_CURRENT_BINARY_DIR}/${NAME}.objs/${base}.o")
        # Plain assembly (.s) skips the preprocessor and so writes no dependency file; a
        # DEPFILE that never appears would rebuild it every time.
        get_filename_component(ext "${src}" LAST_EXT)
        set(depArgs)
        set(depFile)
        if(NOT ext STREQUAL ".s")
            set(dep "${obj}.d")
            set(depArgs -MD -MF "${dep}")
            set(depFile DEPFILE "${dep}")
        endif()
        add_custom_command(
            OUTPUT "${obj}"
            COMMAND ${CMAKE_COMMAND} -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/${NAME}.objs"
            COMMAND ${M68K_GCC} ${flags} ${depArgs} -c "${abs}" -o "${obj}"
            DEPENDS "${abs}"
            ${depFile}
            COMMENT "68000 ${NAME}: ${base}"
            COMMAND_EXPAND_LISTS VERBATIM)
        list(APPEND objects "${obj}")
    endforeach()
    set(${OUT_VAR} ${objects} PARENT_SCOPE)
endfunction()

function(add_guest_library NAME)
    cmake_parse_arguments(G "" "OPT" "SOURCES;INCLUDES;DEFINES;CFLAGS" ${ARGN})
    _copperline_guest_objects(objects ${NAME} SOURCES ${G_SOURCES} INCLUDES ${G_INCLUDES}
                              DEFINES ${G_DEFINES} CFLAGS ${G_CFLAGS} OPT ${G_OPT})
    set(archive "${CMAKE_CURRENT_BINARY_DIR}/lib${NAME}.a")
    add_custom_command(
        OUTPUT "${archive}"
        COMMAND ${CMAKE_COMMAND} -E rm -f "${archive}"
        COMMAND ${M68K_AR} rcs "${archive}" ${objects}
        DEPENDS ${objects}
        COMMENT "68000 library ${NAME}"
        VERBATIM)
    add_custom_target(${NAME} ALL DEPENDS "${archive}")
    set_target_properties(${NAME} PROPERTIES GUEST_ARCHIVE "${archive}")
endfunction()

function(add_guest_program NAME)
    cmake_parse_arguments(G "NO_RUNTIME;BARTMAN_LAYOUT" "OPT;LINK_ADDRESS" "SOURCES;LIBRARIES;INCLUDES;DEFINES;CFLAGS"
                          ${ARGN})
    _copperline_guest_objects(objects ${NAME} SOURCES ${G_SOURCES} INCLUDES ${G_INCLUDES}
                              DEFINES ${G_DEFINES} CFLAGS ${G_CFLAGS} OPT ${G_OPT})
    set(libs ${G_LIBRARIES})
    if(NOT G_NO_RUNTIME)
        list(APPEND libs copperline_guest_runtime)
    endif()
    set(archives)
    foreach(lib IN LISTS libs)
        list(APPEND archives "$<TARGET_PROPERTY:${lib},GUEST_ARCHIVE>")
    endforeach()

    # The outputs live in their own folder: a file may not share the target's name.
    set(outdir "${CMAKE_CURRENT_BINARY_DIR}/amiga")
    set(out "${outdir}/${NAME}")
    set(link_address)
    if(G_LINK_ADDRESS)
        set(link_address -Ttext=${G_LINK_ADDRESS})
    endif()
    set(hunk "${out}")
    set(elf2hunk_flags)
    if(G_BARTMAN_LAYOUT)
        set(hunk "${out}.exe")
        set(elf2hunk_flags --bartman)
    endif()
    add_custom_command(
        OUTPUT "${out}.elf" "${out}.bin" "${hunk}"
        COMMAND ${CMAKE_COMMAND} -E make_directory "${outdir}"
        COMMAND ${M68K_LD} -T ${COPPERLINE_GUEST_LINKER_SCRIPT} ${link_address} --emit-relocs -z noexecstack
                --no-warn-rwx-segments -o "${out}.elf"
                ${objects} --start-group ${archives} --end-group
        COMMAND ${CMAKE_COMMAND} -E env M68K_OBJDUMP=${M68K_OBJDUMP}
                ${COPPERLINE_GUEST_CHECK} "${out}.elf"
        COMMAND ${M68K_OBJCOPY} -O binary "${out}.elf" "${out}.bin"
        COMMAND $<TARGET_FILE:elf2hunk> "${out}.elf" -o "${hunk}" --force ${elf2hunk_flags}
        DEPENDS ${objects} ${archives} ${COPPERLINE_GUEST_LINKER_SCRIPT}
                ${COPPERLINE_GUEST_CHECK} elf2hunk
        COMMENT "68000 program ${NAME}"
        COMMAND_EXPAND_LISTS VERBATIM)
    add_custom_target(${NAME} ALL DEPENDS "${out}.elf" "${out}.bin" "${hunk}")
    if(libs)
        add_dependencies(${NAME} ${libs})
    endif()
    set_target_properties(${NAME} PROPERTIES GUEST_ELF "${out}.elf" GUEST_BIN "${out}.bin"
                                             GUEST_HUNK "${hunk}")
endfunction()
