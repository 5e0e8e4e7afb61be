// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A strict reader of the lcov .info files the coverage tests check: every record line must be
// one of the kinds Copperline writes, every block must end, and the totals of each block must
// agree with its entries. Failures are returned as text, so a test can QVERIFY2 on them.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace copperline::testing {

struct LcovFile {
    std::string testName;
    std::map<std::uint32_t, std::uint64_t> lines;      // DA
    std::map<std::string, std::uint32_t> functionLine; // FN
    std::map<std::string, std::uint64_t> functions;    // FNDA
    std::uint64_t lf = 0, lh = 0, fnf = 0, fnh = 0;
};

struct LcovInfo {
    std::vector<std::string> header;       // the '#' lines, without "# "
    std::map<std::string, LcovFile> files; // by SF path
    std::string error;                     // empty when the file read cleanly

    // The block whose path ends in `suffix` (nullptr when none or more than one does).
    const LcovFile* file(const std::string& suffix) const {
        const LcovFile* found = nullptr;
        for (const auto& [path, f] : files)
            if (path.size() >= suffix.size() &&
                path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
                if (found) return nullptr;
                found = &f;
            }
        return found;
    }
    std::uint64_t totalLines() const {
        std::uint64_t n = 0;
        for (const auto& [p, f] : files)
            n += f.lf;
        return n;
    }
};

inline LcovInfo parseLcov(const std::string& text) {
    LcovInfo info;
    std::istringstream in(text);
    std::string line, sf;
    LcovFile cur;
    bool open = false;
    std::size_t n = 0;
    const auto fail = [&](const std::string& why) {
        if (info.error.empty())
            info.error = "line " + std::to_string(n) + ": " + why + ": '" + line + "'";
    };
    const auto number = [&](const std::string& s) -> std::uint64_t {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
            fail("not a number");
            return 0;
        }
        return std::stoull(s);
    };
    while (std::getline(in, line)) {
        ++n;
        if (line.rfind("# ", 0) == 0) {
            if (open || !info.files.empty()) fail("a comment after the records began");
            info.header.push_back(line.substr(2));
            continue;
        }
        const auto colon = line.find(':');
        const std::string key = line.substr(0, colon),
                          value = colon == std::string::npos ? "" : line.substr(colon + 1);
        if (line == "end_of_record") {
            if (!open) fail("end_of_record outside a block");
            std::uint64_t lh = 0, fnh = 0;
            for (const auto& [l, c] : cur.lines)
                lh += c != 0;
            for (const auto& [f, c] : cur.functions)
                fnh += c != 0;
            if (cur.lf != cur.lines.size() || cur.lh != lh)
                fail("LF/LH disagree with the DA lines");
            if (cur.fnf != cur.functionLine.size() || cur.fnh != fnh)
                fail("FNF/FNH disagree with the functions");
            info.files[sf] = cur;
            cur = {};
            open = false;
        } else if (key == "TN") {
            if (open) fail("TN inside a block");
            cur.testName = value;
        } else if (key == "SF") {
            if (open) fail("SF inside a block");
            sf = value;
            open = true;
            if (info.files.count(sf)) fail("a second block for one file");
        } else if (!open) {
            fail("a record outside a block");
        } else if (key == "FN") {
            const auto comma = value.find(',');
            cur.functionLine[value.substr(comma + 1)] =
                std::uint32_t(number(value.substr(0, comma)));
        } else if (key == "FNDA") {
            const auto comma = value.find(',');
            const std::string name = value.substr(comma + 1);
            if (!cur.functionLine.count(name)) fail("FNDA for a function without FN");
            cur.functions[name] = number(value.substr(0, comma));
        } else if (key == "DA") {
            const auto comma = value.find(',');
            const auto l = std::uint32_t(number(value.substr(0, comma)));
            if (cur.lines.count(l)) fail("a line twice");
            cur.lines[l] = number(value.substr(comma + 1));
        } else if (key == "LF") {
            cur.lf = number(value);
        } else if (key == "LH") {
            cur.lh = number(value);
        } else if (key == "FNF") {
            cur.fnf = number(value);
        } else if (key == "FNH") {
            cur.fnh = number(value);
        } else {
            fail("not a record Copperline writes");
        }
    }
    if (open) {
        line = "";
        fail("the last block does not end");
    }
    return info;
}

inline LcovInfo readLcov(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open()) {
        LcovInfo info;
        info.error = path + ": cannot be read";
        return info;
    }
    std::stringstream s;
    s << in.rdbuf();
    return parseLcov(s.str());
}

// The accounting header's numbers (profiler/report/lcov.h, lcovHeader); false when the lines
// are not there as written.
struct LcovHeader {
    std::string program;
    unsigned long long total = 0, onLines = 0, lines = 0, files = 0, withoutLine = 0,
                       withoutLineAddresses = 0, outside = 0, linesHit = 0, linesOf = 0,
                       functionsHit = 0, functionsOf = 0;
};

inline bool parseLcovHeader(const std::vector<std::string>& h, LcovHeader& out) {
    if (h.size() < 5 || h[0].rfind("Copperline guest coverage: ", 0) != 0) return false;
    out.program = h[0].substr(27);
    // %n after the last literal: the whole line must match, not a prefix of it.
    int end = -1;
    const auto whole = [&](const std::string& line) { return end == int(line.size()); };
    std::sscanf(h[1].c_str(),
                "%llu instruction(s) retired: %llu on %llu source line(s) in %llu file(s)%n",
                &out.total, &out.onLines, &out.lines, &out.files, &end);
    if (!whole(h[1])) return false;
    end = -1;
    std::sscanf(h[2].c_str(),
                "%llu instruction(s) at %llu program address(es) without line information%n",
                &out.withoutLine, &out.withoutLineAddresses, &end);
    if (!whole(h[2])) return false;
    end = -1;
    std::sscanf(h[3].c_str(),
                "%llu instruction(s) outside the program (Kickstart, libraries, other tasks)%n",
                &out.outside, &end);
    if (!whole(h[3])) return false;
    end = -1;
    std::sscanf(h.back().c_str(), "lines %llu/%llu hit, functions %llu/%llu hit%n", &out.linesHit,
                &out.linesOf, &out.functionsHit, &out.functionsOf, &end);
    return whole(h.back());
}

// The line of `source` that holds `tag` ("[body]"), 1-based; 0 when it is not there once.
inline std::uint32_t taggedLine(const std::string& source, const std::string& tag) {
    std::ifstream in(source);
    std::string line;
    std::uint32_t n = 0, found = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.find(tag) != std::string::npos) {
            if (found) return 0;
            found = n;
        }
    }
    return found;
}

} // namespace copperline::testing
