# SPDX-License-Identifier: GPL-3.0-or-later
# Builds the .deb (cpack, after building the programs it installs), unpacks it with
# dpkg-deb -x and checks it as installed on a machine without the build tree: the files and
# control fields, the programs' --version and --help, a headless boot that finds the AROS ROM
# through the fs-uae package alone, desktop-file-validate, appstreamcli validate and lintian.
foreach(tool dpkg-deb desktop-file-validate appstreamcli lintian)
    find_program(have_${tool} ${tool})
    if(NOT have_${tool})
        message(FATAL_ERROR "${tool} is not installed: run scripts/setup.sh")
    endif()
endforeach()
if(NOT EXISTS /usr/share/fs-uae/fs-uae.dat)
    message(FATAL_ERROR "fs-uae is not installed (the boot takes its AROS ROM): run scripts/setup.sh")
endif()

function(run what)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
    endif()
    set(out "${out}" PARENT_SCOPE)
    set(err "${err}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/out" "${WORK}/root" "${WORK}/home" "${WORK}/data" "${WORK}/cwd")

run("building the packaged programs" ${CMAKE_COMMAND} --build "${BUILD_DIR}" --target copperline copperline-ctl elf2hunk)
run("cpack" ${CPACK} -G DEB --config "${BUILD_DIR}/CPackConfig.cmake" -B "${WORK}/out")
file(GLOB debs "${WORK}/out/*.deb")
execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE arch OUTPUT_STRIP_TRAILING_WHITESPACE)
set(deb "${WORK}/out/copperline_${VERSION}_${arch}.deb")
if(NOT debs STREQUAL deb)
    message(FATAL_ERROR "expected ${deb} alone, cpack wrote: ${debs}")
endif()

# The control fields.
run("dpkg-deb -f" dpkg-deb -f "${deb}")
set(control "${out}")
foreach(field "Package: copperline" "Version: ${VERSION}"
              "Maintainer: Copperline developers <copperline@users.noreply.github.com>"
              "Homepage: https://github.com/copperline/copperline" "Recommends: fs-uae" "Section: otherosfs"
              "Priority: optional" "Depends: .*libqt6core6")
    if(NOT control MATCHES "(^|\n)${field}")
        message(FATAL_ERROR "the control file has no '${field}':\n${control}")
    endif()
endforeach()

# The files.
run("dpkg-deb -x" dpkg-deb -x "${deb}" "${WORK}/root")
set(root "${WORK}/root")
foreach(file usr/bin/copperline usr/bin/copperline-ctl usr/bin/elf2hunk
             usr/share/man/man1/copperline.1.gz usr/share/man/man1/copperline-ctl.1.gz
             usr/share/man/man1/elf2hunk.1.gz usr/share/applications/copperline.desktop
             usr/share/metainfo/io.github.copperline.Copperline.metainfo.xml
             usr/share/icons/hicolor/scalable/apps/copperline.svg
             usr/share/doc/copperline/copyright usr/share/doc/copperline/changelog.gz)
    if(NOT EXISTS "${root}/${file}")
        message(FATAL_ERROR "the package has no ${file}")
    endif()
endforeach()
file(READ "${root}/usr/share/applications/copperline.desktop" desktop)
if(NOT desktop MATCHES "\nIcon=copperline\n")
    message(FATAL_ERROR "the desktop file does not name the icon copperline:\n${desktop}")
endif()
run("desktop-file-validate" desktop-file-validate "${root}/usr/share/applications/copperline.desktop")
if(out OR err)
    message(FATAL_ERROR "desktop-file-validate has something to say:\n${out}${err}")
endif()
run("appstreamcli validate" appstreamcli validate --no-net --strict
    "${root}/usr/share/metainfo/io.github.copperline.Copperline.metainfo.xml")

# The programs from the scratch root: no LD_LIBRARY_PATH, no COPPERLINE_ROM_DIR, nothing from
# the build tree; HOME and XDG_DATA_HOME are fresh folders and the boot starts elsewhere.
set(bare env -i "PATH=${root}/usr/bin" "HOME=${WORK}/home" "XDG_DATA_HOME=${WORK}/data")
run("copperline --version" ${bare} copperline --version)
if(NOT out MATCHES "Copperline ${VERSION}")
    message(FATAL_ERROR "copperline --version says: ${out}")
endif()
run("copperline-ctl --help" ${bare} copperline-ctl --help)
if(NOT out MATCHES "Usage: copperline-ctl" OR NOT out MATCHES "--dap")
    message(FATAL_ERROR "copperline-ctl --help says: ${out}")
endif()
run("elf2hunk --version" ${bare} elf2hunk --version)
if(NOT out STREQUAL "elf2hunk ${VERSION}\n")
    message(FATAL_ERROR "elf2hunk --version says: ${out}")
endif()

set(roms "${WORK}/data/copperline/roms")
set(boot copperline --factory --noaudio --screenshot-after 2 shot.png)
execute_process(COMMAND ${bare} ${boot} WORKING_DIRECTORY "${WORK}/cwd"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${WORK}/cwd/shot.png")
    message(FATAL_ERROR "the headless boot failed (${rc}): ${err}")
endif()
if(NOT err MATCHES "extracted the AROS ROM from /usr/share/fs-uae/fs-uae.dat into ${roms}\n")
    message(FATAL_ERROR "the boot did not take its ROM from the fs-uae package: ${err}")
endif()
foreach(rom aros-amiga-m68k-rom.bin aros-amiga-m68k-ext.bin)
    if(NOT EXISTS "${roms}/${rom}")
        message(FATAL_ERROR "no ${rom} in ${roms}")
    endif()
endforeach()
# Once extracted, it is found there.
file(REMOVE "${WORK}/cwd/shot.png")
execute_process(COMMAND ${bare} ${boot} WORKING_DIRECTORY "${WORK}/cwd"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS "${WORK}/cwd/shot.png" OR err MATCHES "extracted")
    message(FATAL_ERROR "the second boot (${rc}): ${err}")
endif()

# lintian: no errors. Its warnings and notes are printed.
execute_process(COMMAND lintian --fail-on error --tag-display-limit 0 "${deb}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "lintian:\n${out}${err}")
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "lintian reports errors (${rc})")
endif()
message(STATUS "${deb}: installs and boots")
