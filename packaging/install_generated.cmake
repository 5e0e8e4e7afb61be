# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what is made at install time (packaging/CMakeLists.txt sets the variables): a man
# page for each program, made by help2man from its --help, and the Debian changelog; both
# gzipped as dpkg does (-9n: no name, no time stamp).
find_program(help2man help2man)
if(NOT help2man)
    message(FATAL_ERROR "the man pages need help2man, which is not installed: run "
                        "scripts/setup.sh (or apt install help2man)")
endif()
file(REMOVE_RECURSE "${COPPERLINE_GENERATED}")
file(MAKE_DIRECTORY "${COPPERLINE_GENERATED}/man")

set(pages)
set(rest ${COPPERLINE_MAN_PAGES})
while(rest)
    list(POP_FRONT rest name program summary)
    set(page "${COPPERLINE_GENERATED}/man/${name}.1")
    # The version is given rather than read, so that the page is named after the program
    # (copperline --version says "Copperline", Qt's application name).
    execute_process(COMMAND "${help2man}" --no-info --name "${summary}"
                            --version-string "${COPPERLINE_VERSION}" --output "${page}" "${program}"
                    RESULT_VARIABLE rc ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "help2man could not make ${name}'s man page from ${program} --help: ${err}")
    endif()
    list(APPEND pages "${page}")
endwhile()
file(COPY "${COPPERLINE_CHANGELOG}" DESTINATION "${COPPERLINE_GENERATED}")
execute_process(COMMAND gzip -9nf ${pages} "${COPPERLINE_GENERATED}/changelog" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip failed on the man pages and the changelog")
endif()
list(TRANSFORM pages APPEND ".gz")

file(INSTALL ${pages} DESTINATION "${CMAKE_INSTALL_PREFIX}/share/man/man1")
file(INSTALL "${COPPERLINE_GENERATED}/changelog.gz"
     DESTINATION "${CMAKE_INSTALL_PREFIX}/share/doc/copperline")
