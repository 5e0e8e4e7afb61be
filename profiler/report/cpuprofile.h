// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Chrome's CPU profile (.cpuprofile): a call tree and a sample stream, which VS Code, Chrome
// DevTools and speedscope open. Every Copperline report that has a call tree builds a
// ProfileTree and writes it here; docs/formats/cpuprofile.md describes what is written.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace copperline {

// What a node stands for. lineNumber and columnNumber are 0-based, -1 when unknown, as in
// Chrome's own profiles.
struct CallFrame {
    std::string functionName;
    std::string url;
    int lineNumber = -1;
    int columnNumber = -1;
    bool operator==(const CallFrame&) const = default;
};

class ProfileTree {
public:
    using NodeId = std::uint32_t;
    static constexpr NodeId kRoot = 0;

    struct Node {
        CallFrame frame;
        NodeId parent = kRoot;
        std::vector<NodeId> children;
        std::uint64_t self = 0; // weight spent in this node itself
    };

    ProfileTree();

    // The child of parent with this frame, added if there is none yet.
    NodeId child(NodeId parent, const CallFrame& frame);
    void addSelf(NodeId node, std::uint64_t weight);
    // Adds weight to the leaf of a stack given root first; returns the leaf.
    NodeId addStack(std::span<const CallFrame> rootFirst, std::uint64_t weight);
    // A sample in time order: node ran for duration. Without any samples the writer emits one
    // per node that has self weight, in tree order.
    void addSample(NodeId node, std::uint64_t duration);

    std::size_t size() const { return nodes_.size(); }
    const Node& node(NodeId id) const { return nodes_.at(id); }
    // The node's weight with all its descendants.
    std::uint64_t total(NodeId id) const;

    struct Sample {
        NodeId node;
        std::uint64_t duration;
    };
    const std::vector<Sample>& samples() const { return samples_; }

private:
    static std::string childKey(NodeId parent, const CallFrame& frame);

    std::vector<Node> nodes_;
    std::vector<Sample> samples_;
    std::unordered_map<std::string, NodeId> childIndex_; // childKey -> node
};

struct CpuProfileOptions {
    std::uint64_t startTime = 0; // microseconds
    // Microseconds per unit of weight. 0: the weights are microseconds themselves (integer
    // time deltas). Otherwise the deltas are written as fractional microseconds, the
    // weights stay in the nodes' hitCount, and "$copperline" records the factor as
    // us_per_weight so that readCpuProfile gives the weights back exactly.
    double microsecondsPerWeight = 0;
    // Written as the top-level "$copperline" object when not null: what the weights mean and
    // where the profile came from. Viewers ignore it.
    nlohmann::json annotation;
};

nlohmann::json cpuProfileJson(const ProfileTree& tree, const CpuProfileOptions& options = {});
// Writes the file atomically; throws MediaError when it cannot.
void writeCpuProfile(const ProfileTree& tree, const std::string& path,
                     const CpuProfileOptions& options = {});

// Reads a .cpuprofile back: the tree with each node's self weight taken from the samples'
// durations (or from hitCount when there are no samples). Throws MediaError naming what is
// wrong with a malformed profile.
ProfileTree readCpuProfile(const nlohmann::json& profile);
ProfileTree readCpuProfileFile(const std::string& path);

} // namespace copperline
