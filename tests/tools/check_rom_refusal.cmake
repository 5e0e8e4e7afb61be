# SPDX-License-Identifier: GPL-3.0-or-later
# Builds a fake fs-uae.dat whose AROS ROM has the wrong contents and checks that
# extract-roms.sh refuses it with a message naming the SHA-1, leaving no ROM behind.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/share/fs-uae")
file(WRITE "${WORK}/share/fs-uae/aros-amiga-m68k-rom.bin" "not a rom")
file(WRITE "${WORK}/share/fs-uae/aros-amiga-m68k-ext.bin" "not a rom either")
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf fake.dat --format=zip share
                WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE rc)
if(rc)
    message(FATAL_ERROR "could not build the fake archive")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env FS_UAE_DAT=${WORK}/fake.dat bash ${SCRIPT} ${WORK}/roms
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(rc EQUAL 0)
    message(FATAL_ERROR "extract-roms.sh accepted a ROM with the wrong SHA-1")
endif()
if(NOT err MATCHES "has SHA-1 [0-9a-f]+, expected [0-9a-f]+; refusing it")
    message(FATAL_ERROR "the refusal does not say why: ${err}")
endif()
file(GLOB left "${WORK}/roms/*")
if(left)
    message(FATAL_ERROR "a refused ROM was left behind: ${left}")
endif()
message(STATUS "refused: ${err}")
