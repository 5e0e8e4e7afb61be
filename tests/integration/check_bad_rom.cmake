# SPDX-License-Identifier: GPL-3.0-or-later
# copperline --rom NOT-A-ROM must exit with status 2 and a message naming the problem.
execute_process(COMMAND ${EXE} --factory --noaudio --rom ${BAD} --screenshot-after 1 out.png
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2)
    message(FATAL_ERROR "expected exit status 2, got ${rc}: ${err}")
endif()
if(NOT err MATCHES "ROM: .*not a Kickstart ROM size")
    message(FATAL_ERROR "the refusal does not say why: ${err}")
endif()
execute_process(COMMAND ${EXE} --factory --rom /nonexistent.rom --screenshot-after 1 out.png
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "no such file")
    message(FATAL_ERROR "a missing ROM: status ${rc}: ${err}")
endif()
message(STATUS "refused: ${err}")
