#include "profiler/debuginfo/dwarf_lookup.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace copperline {

namespace {

struct DwarfFile {
    int fd = -1;
    Dwarf* dw = nullptr;
    ~DwarfFile() {
        if (dw) dwarf_end(dw);
        if (fd >= 0) close(fd);
    }
};

bool dieContains(Dwarf_Die* die, Dwarf_Addr addr) { return dwarf_haspc(die, addr) == 1; }

} // namespace

std::optional<SourceLocation> lookupDwarfAddress(const std::string& elfPath, std::uint32_t address) {
    DwarfFile f;
    f.fd = open(elfPath.c_str(), O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) throw std::runtime_error(elfPath + ": cannot open: " + std::strerror(errno));
    f.dw = dwarf_begin(f.fd, DWARF_C_READ);
    if (!f.dw) throw std::runtime_error(elfPath + ": no readable DWARF: " + dwarf_errmsg(-1));

    Dwarf_Die cu;
    if (!dwarf_addrdie(f.dw, address, &cu)) return std::nullopt;

    SourceLocation out;
    if (Dwarf_Line* line = dwarf_getsrc_die(&cu, address)) {
        const char* file = dwarf_linesrc(line, nullptr, nullptr);
        out.file = file ? file : "";
        dwarf_lineno(line, &out.line);
    }
    // The outermost subprogram among the unit's children that covers the address.
    Dwarf_Die child;
    if (dwarf_child(&cu, &child) == 0) {
        do {
            if (dwarf_tag(&child) == DW_TAG_subprogram && dieContains(&child, address)) {
                const char* name = dwarf_diename(&child);
                out.function = name ? name : "";
                break;
            }
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    return out;
}

} // namespace copperline
