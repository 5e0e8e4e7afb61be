# SPDX-License-Identifier: GPL-3.0-or-later
# Writes OUTPUT, a C++ source defining copperline::SYMBOL as the bytes of INPUT.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" len)
math(EXPR count "${len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n    " body "${body}")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by resources/guest/embed.cmake.\n#include <cstddef>\n#include <cstdint>\nnamespace copperline {\nextern const std::uint8_t ${SYMBOL}[];\nextern const std::size_t ${SYMBOL}Size;\nconst std::uint8_t ${SYMBOL}[] = {\n    ${body}\n};\nconst std::size_t ${SYMBOL}Size = ${count};\n}\n")
