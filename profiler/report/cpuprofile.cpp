// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/cpuprofile.h"

#include "emu/media/byte_reader.h"
#include "emu/media/file_bytes.h"

#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace copperline {

ProfileTree::ProfileTree() {
    Node root;
    root.frame.functionName = "(root)";
    nodes_.push_back(std::move(root));
}

std::string ProfileTree::childKey(NodeId parent, const CallFrame& frame) {
    std::string key = std::to_string(parent);
    for (const std::string* part : {&frame.functionName, &frame.url}) {
        key += '\0';
        key += *part;
    }
    key += '\0' + std::to_string(frame.lineNumber) + ':' + std::to_string(frame.columnNumber);
    return key;
}

ProfileTree::NodeId ProfileTree::child(NodeId parent, const CallFrame& frame) {
    if (parent >= nodes_.size())
        throw std::out_of_range("ProfileTree: no node " + std::to_string(parent));
    auto [it, added] = childIndex_.emplace(childKey(parent, frame), NodeId(nodes_.size()));
    if (!added) return it->second;
    Node n;
    n.frame = frame;
    n.parent = parent;
    nodes_.push_back(std::move(n));
    const NodeId id = NodeId(nodes_.size() - 1);
    nodes_[parent].children.push_back(id);
    return id;
}

void ProfileTree::addSelf(NodeId node, std::uint64_t weight) {
    nodes_.at(node).self += weight;
}

ProfileTree::NodeId ProfileTree::addStack(std::span<const CallFrame> rootFirst,
                                          std::uint64_t weight) {
    NodeId n = kRoot;
    for (const CallFrame& f : rootFirst)
        n = child(n, f);
    addSelf(n, weight);
    return n;
}

void ProfileTree::addSample(NodeId node, std::uint64_t duration) {
    addSelf(node, duration);
    samples_.push_back({node, duration});
}

std::uint64_t ProfileTree::total(NodeId id) const {
    std::uint64_t sum = 0;
    std::vector<NodeId> stack{id};
    while (!stack.empty()) {
        const Node& n = nodes_.at(stack.back());
        stack.pop_back();
        sum += n.self;
        stack.insert(stack.end(), n.children.begin(), n.children.end());
    }
    return sum;
}

nlohmann::json cpuProfileJson(const ProfileTree& tree, const CpuProfileOptions& options) {
    using nlohmann::json;
    // Chrome numbers nodes from 1 and gives each distinct script (url) its own id.
    std::map<std::string, int> scripts;
    json nodes = json::array();
    std::vector<ProfileTree::NodeId> order; // preorder, the order samples are synthesised in
    std::vector<ProfileTree::NodeId> stack{ProfileTree::kRoot};
    while (!stack.empty()) {
        const auto id = stack.back();
        stack.pop_back();
        order.push_back(id);
        const auto& children = tree.node(id).children;
        stack.insert(stack.end(), children.rbegin(), children.rend());
    }
    for (const auto id : order) {
        const auto& n = tree.node(id);
        int script = 0;
        if (!n.frame.url.empty())
            script = scripts.emplace(n.frame.url, int(scripts.size()) + 1).first->second;
        json children = json::array();
        for (const auto c : n.children)
            children.push_back(c + 1);
        nodes.push_back({{"id", id + 1},
                         {"callFrame",
                          {{"functionName", n.frame.functionName},
                           {"scriptId", std::to_string(script)},
                           {"url", n.frame.url},
                           {"lineNumber", n.frame.lineNumber},
                           {"columnNumber", n.frame.columnNumber}}},
                         {"hitCount", n.self},
                         {"children", std::move(children)}});
    }

    std::vector<ProfileTree::Sample> samples = tree.samples();
    if (samples.empty())
        for (const auto id : order)
            if (tree.node(id).self) samples.push_back({id, tree.node(id).self});
    // A sample lasts until the next one starts (speedscope and DevTools both measure it so),
    // so each delta carries the previous sample's duration and a closing sample on the root
    // ends the last one.
    json ids = json::array(), deltas = json::array();
    std::uint64_t previous = 0, total = 0;
    const double scale = options.microsecondsPerWeight;
    // Scaled: each delta is the difference of the rounded cumulative times, so rounding
    // never accumulates (to a nanosecond).
    const auto at = [scale](std::uint64_t weight) { return std::round(double(weight) * scale * 1000.0) / 1000.0; };
    for (const auto& s : samples) {
        ids.push_back(s.node + 1);
        if (scale > 0)
            deltas.push_back(at(total) - at(total - previous));
        else
            deltas.push_back(previous);
        previous = s.duration;
        total += s.duration;
    }
    ids.push_back(ProfileTree::kRoot + 1);
    if (scale > 0)
        deltas.push_back(at(total) - at(total - previous));
    else
        deltas.push_back(previous);

    json out = {{"nodes", std::move(nodes)},
                {"startTime", options.startTime},
                {"endTime", scale > 0 ? json(double(options.startTime) + at(total)) : json(options.startTime + total)},
                {"samples", std::move(ids)},
                {"timeDeltas", std::move(deltas)}};
    if (!options.annotation.is_null()) out["$copperline"] = options.annotation;
    if (scale > 0) out["$copperline"]["us_per_weight"] = scale;
    return out;
}

void writeCpuProfile(const ProfileTree& tree, const std::string& path,
                     const CpuProfileOptions& options) {
    const std::string text = cpuProfileJson(tree, options).dump() + "\n";
    writeFileBytes(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

namespace {

[[noreturn]] void bad(const std::string& what) {
    throw MediaError("cpuprofile: " + what);
}

} // namespace

ProfileTree readCpuProfile(const nlohmann::json& profile) {
    if (!profile.is_object() || !profile.contains("nodes") || !profile["nodes"].is_array())
        bad("no nodes array");
    const auto& nodes = profile["nodes"];
    if (nodes.empty()) bad("no nodes");
    std::unordered_map<std::int64_t, const nlohmann::json*> byId;
    std::unordered_map<std::int64_t, std::int64_t> parentOf;
    for (const auto& n : nodes) {
        if (!n.is_object() || !n.contains("id") || !n["id"].is_number_integer())
            bad("a node without an integer id");
        if (!n.contains("callFrame") || !n["callFrame"].is_object())
            bad("a node without a callFrame");
        if (!byId.emplace(n["id"].get<std::int64_t>(), &n).second) bad("node ids repeat");
    }
    for (const auto& n : nodes)
        if (n.contains("children")) {
            if (!n["children"].is_array()) bad("children is not an array");
            for (const auto& c : n["children"]) {
                if (!c.is_number_integer() || !byId.count(c.get<std::int64_t>()))
                    bad("a child id names no node");
                if (!parentOf.emplace(c.get<std::int64_t>(), n["id"].get<std::int64_t>()).second)
                    bad("a node has two parents");
            }
        }
    const std::int64_t rootId = nodes[0]["id"].get<std::int64_t>();
    if (parentOf.count(rootId)) bad("the first node is not the root");

    std::unordered_map<std::int64_t, ProfileTree::NodeId> mapped{{rootId, ProfileTree::kRoot}};
    ProfileTree tree;
    std::function<void(std::int64_t, ProfileTree::NodeId, int)> add =
        [&](std::int64_t id, ProfileTree::NodeId at, int depth) {
            if (depth > 100000) bad("the tree is too deep");
            const auto& n = *byId.at(id);
            if (!n.contains("children")) return;
            for (const auto& c : n["children"]) {
                const auto& cn = *byId.at(c.get<std::int64_t>());
                const auto& f = cn["callFrame"];
                CallFrame frame;
                frame.functionName = f.value("functionName", "");
                frame.url = f.value("url", "");
                frame.lineNumber = f.value("lineNumber", -1);
                frame.columnNumber = f.value("columnNumber", -1);
                const auto child = tree.child(at, frame);
                mapped[c.get<std::int64_t>()] = child;
                add(c.get<std::int64_t>(), child, depth + 1);
            }
        };
    add(rootId, ProfileTree::kRoot, 0);
    if (mapped.size() != byId.size()) bad("some nodes are not reachable from the root");

    const bool haveSamples =
        profile.contains("samples") && profile["samples"].is_array() && !profile["samples"].empty();
    if (haveSamples) {
        const auto& ids = profile["samples"];
        const auto& deltas = profile.value("timeDeltas", nlohmann::json::array());
        if (!deltas.is_array() || deltas.size() != ids.size())
            bad("samples and timeDeltas differ in length");
        // A profile written with a time scale gives its weights back through it.
        double scale = 0;
        if (profile.contains("$copperline") && profile["$copperline"].is_object() &&
            profile["$copperline"].contains("us_per_weight")) {
            const auto& u = profile["$copperline"]["us_per_weight"];
            if (!u.is_number() || u.get<double>() <= 0) bad("us_per_weight is not a positive number");
            scale = u.get<double>();
        }
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (!ids[i].is_number_integer() || !mapped.count(ids[i].get<std::int64_t>()))
                bad("a sample names no node");
            if (scale > 0 ? (!deltas[i].is_number() || deltas[i].get<double>() < 0)
                          : (!deltas[i].is_number_integer() || deltas[i].get<std::int64_t>() < 0))
                bad("a time delta is not >= 0");
        }
        // Sample i lasts until sample i + 1.
        double clock = 0;
        std::uint64_t weights = 0;
        for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
            std::uint64_t d;
            if (scale > 0) {
                clock += deltas[i + 1].get<double>();
                const std::uint64_t upTo = std::uint64_t(std::llround(clock / scale));
                d = upTo - std::min(upTo, weights);
                weights += d;
            } else {
                d = deltas[i + 1].get<std::uint64_t>();
            }
            const auto node = mapped.at(ids[i].get<std::int64_t>());
            if (d || node != ProfileTree::kRoot) tree.addSample(node, d);
        }
    } else {
        for (const auto& n : nodes)
            if (n.contains("hitCount") && n["hitCount"].is_number_unsigned())
                tree.addSelf(mapped.at(n["id"].get<std::int64_t>()),
                             n["hitCount"].get<std::uint64_t>());
    }
    return tree;
}

ProfileTree readCpuProfileFile(const std::string& path) {
    const auto bytes = readFileBytes(path);
    nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (j.is_discarded()) throw MediaError(path + ": not JSON");
    try {
        return readCpuProfile(j);
    } catch (const MediaError& e) {
        throw MediaError(path + ": " + e.what());
    }
}

} // namespace copperline
