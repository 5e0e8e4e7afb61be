// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/size_report.h"

#include <algorithm>
#include <map>

namespace copperline {

std::string sizeReportHunkName(std::uint32_t hunk, HunkKind kind) {
    return "hunk " + std::to_string(hunk) + " " + hunkKindName(kind);
}

SizeReport buildSizeReport(const DebugInfo& info) {
    SizeReport report;
    // Bytes per (hunk, top-level scope), in address order of first appearance.
    std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> perHunk(info.hunks().size());
    std::vector<std::map<std::uint32_t, std::size_t>> slot(info.hunks().size());
    for (const ScopeRange& r : info.scopeRanges()) {
        if (r.hunk >= perHunk.size()) continue;
        auto [it, added] = slot[r.hunk].emplace(r.scope, perHunk[r.hunk].size());
        if (added) perHunk[r.hunk].push_back({r.scope, 0});
        perHunk[r.hunk][it->second].second += r.end - r.start;
    }

    for (std::uint32_t h = 0; h < info.hunks().size(); ++h) {
        const DebugHunk& hunk = info.hunks()[h];
        report.totalBytes += hunk.size;
        const auto hunkNode =
            report.tree.child(ProfileTree::kRoot, {sizeReportHunkName(h, hunk.kind), "", -1, -1});
        const auto sectionNode = report.tree.child(hunkNode, {hunk.section, "", -1, -1});
        std::uint64_t claimed = 0;
        for (const auto& [scopeIndex, bytes] : perHunk[h]) {
            const DebugScope& scope = info.scopes()[scopeIndex];
            CallFrame frame;
            frame.functionName = scope.name;
            if (scope.file != kNoFile) frame.url = info.fileName(scope.file);
            frame.lineNumber = scope.line ? int(scope.line) - 1 : -1;
            report.tree.addSelf(report.tree.child(sectionNode, frame), bytes);
            report.entries.push_back({scope.name, h, hunk.section, frame.url, scope.line, bytes});
            claimed += bytes;
        }
        // Ranges lie within their hunk and never overlap, so claimed <= size.
        const std::uint64_t rest = hunk.size - std::min<std::uint64_t>(claimed, hunk.size);
        if (rest) {
            report.tree.addSelf(report.tree.child(sectionNode, {kUnattributed, "", -1, -1}), rest);
            report.entries.push_back({kUnattributed, h, hunk.section, "", 0, rest});
            report.unattributedBytes += rest;
        }
    }
    std::stable_sort(report.entries.begin(), report.entries.end(),
                     [](const SizeEntry& a, const SizeEntry& b) {
                         if (a.bytes != b.bytes) return a.bytes > b.bytes;
                         if (a.hunk != b.hunk) return a.hunk < b.hunk;
                         return a.name < b.name;
                     });
    return report;
}

} // namespace copperline
