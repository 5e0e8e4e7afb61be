#pragma once

// The smallest useful question to ask DWARF: which function and which source line does an
// address of a linked ELF belong to.

#include <cstdint>
#include <optional>
#include <string>

namespace copperline {

struct SourceLocation {
    std::string function;  // the outermost (not inlined) subprogram containing the address
    std::string file;
    int line = 0;
};

// Opens the ELF with libdw and looks up the address (a link-time address of the ELF).
// Returns nullopt when no unit covers the address. Throws std::runtime_error when the file
// cannot be read or its DWARF is corrupt.
std::optional<SourceLocation> lookupDwarfAddress(const std::string& elfPath, std::uint32_t address);

} // namespace copperline
