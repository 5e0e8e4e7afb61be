// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reading a ProfileTree in tests: every node with its path of names, and the weight by
// function name. Header-only.

#include "profiler/report/cpuprofile.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <map>

namespace copperline::testing {

// Every node with its path of function names from the root (empty for the root).
inline void walkTree(const ProfileTree& t, const std::function<void(ProfileTree::NodeId, const QStringList&)>& f) {
    std::function<void(ProfileTree::NodeId, QStringList)> go = [&](ProfileTree::NodeId id, QStringList path) {
        if (id != ProfileTree::kRoot) path << QString::fromStdString(t.node(id).frame.functionName);
        f(id, path);
        for (const auto c : t.node(id).children) go(c, path);
    };
    go(ProfileTree::kRoot, {});
}

// Self weight of every function, summed over its nodes.
inline std::map<QString, std::uint64_t> selfByFunction(const ProfileTree& t) {
    std::map<QString, std::uint64_t> out;
    walkTree(t, [&](ProfileTree::NodeId id, const QStringList& path) {
        if (!path.isEmpty() && t.node(id).self) out[path.back()] += t.node(id).self;
    });
    return out;
}

} // namespace copperline::testing
