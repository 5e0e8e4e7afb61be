// SPDX-License-Identifier: GPL-3.0-or-later
#include "profiler/report/profile_diff.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>
#include <unordered_map>

namespace copperline {

using nlohmann::json;

namespace {

// The bus owners in the order of the format's table (docs/formats/profile-jsonl.md).
const std::vector<std::string> kOwnerOrder = {"cpu",    "blitter", "copper",  "bitplane", "sprite",
                                              "disk",   "audio",   "refresh", "idle"};

// A node matched by name alone: the system's code and the report's own nodes, whose url is
// the program's call site rather than a place of their own.
bool matchedByNameAlone(const std::string& name) {
    return name.empty() || name[0] == '[' || name.rfind("level ", 0) == 0;
}

std::string fmtNumber(double v) {
    char buf[64];
    if (std::fabs(v - std::round(v)) < 1e-9)
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

std::string fmtSigned(double v) {
    const std::string s = fmtNumber(v);
    return v > 0 || (v == 0 && s[0] != '-') ? std::string("+").append(s) : s;
}

std::string fmtPercent(const std::optional<double>& p) {
    if (!p) return "new";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.2f%%", *p);
    return buf;
}

std::string fmtShare(double fraction) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * fraction);
    return buf;
}

std::string trim(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

std::string sideLabel(const ProfileSide& s) {
    return s.kind == "capture" ? std::string(s.path).append(" (").append(s.program).append(")") : s.path;
}

double ownerMean(const ProfileSide& s, const std::string& owner) {
    if (s.frames.empty()) return 0;
    double sum = 0;
    for (const FrameTime& f : s.frames)
        if (const auto it = f.owners.find(owner); it != f.owners.end()) sum += it->second;
    return sum / double(s.frames.size());
}

} // namespace

std::optional<double> Change::percent() const {
    if (a == 0) {
        if (b == 0) return 0.0;
        return std::nullopt;
    }
    return 100.0 * (b - a) / a;
}

std::vector<FunctionWeight> functionWeights(const ProfileTree& tree) {
    // The key of a node: its name, and for the program's functions its file too.
    const auto keyOf = [](const CallFrame& f) {
        return matchedByNameAlone(f.functionName) ? f.functionName + '\0'
                                                  : f.functionName + '\0' + f.url;
    };
    std::map<std::string, FunctionWeight> byKey;
    // Total weights, each node's subtree computed once.
    std::vector<std::uint64_t> totals(tree.size(), 0);
    for (ProfileTree::NodeId id = ProfileTree::NodeId(tree.size()); id-- > 0;) {
        // Children are always added after their parent: a reverse walk sees them first.
        totals[id] += tree.node(id).self;
        if (id != ProfileTree::kRoot) totals[tree.node(id).parent] += totals[id];
    }
    // Depth first, with the keys on the path: a node whose key is already on the path
    // (recursion) adds its self weight but not its total again.
    std::unordered_map<std::string, unsigned> onPath;
    // An explicit stack: a .cpuprofile's tree may be far deeper than the host's stack.
    struct Visit {
        ProfileTree::NodeId id;
        std::size_t next; // the next child to visit
        std::string key;
    };
    std::vector<Visit> stack{{ProfileTree::kRoot, 0, {}}};
    while (!stack.empty()) {
        Visit& v = stack.back();
        const ProfileTree::Node& n = tree.node(v.id);
        if (v.next < n.children.size()) {
            const ProfileTree::NodeId c = n.children[v.next++];
            const ProfileTree::Node& cn = tree.node(c);
            std::string key = keyOf(cn.frame);
            FunctionWeight& w = byKey[key];
            if (w.name.empty()) {
                w.name = cn.frame.functionName;
                if (!matchedByNameAlone(cn.frame.functionName)) w.file = cn.frame.url;
            }
            w.self += cn.self;
            if (!onPath[key]) w.total += totals[c];
            ++onPath[key];
            stack.push_back({c, 0, std::move(key)});
            continue;
        }
        if (v.id != ProfileTree::kRoot) --onPath[v.key];
        stack.pop_back();
    }
    std::vector<FunctionWeight> out;
    out.reserve(byKey.size());
    for (auto& [key, w] : byKey) out.push_back(std::move(w));
    return out;
}

FrameTime frameTimeOf(const json& r) {
    const auto number = [&](const json& j, const char* key) -> double {
        if (!j.is_object() || !j.contains(key) || !j[key].is_number())
            throw ProfileDiffError(std::string("frame record ") + std::to_string(r.value("frame", 0ull)) + ": no " + key);
        return j[key].get<double>();
    };
    FrameTime f;
    f.frame = r.value("frame", 0ull);
    f.seq = r.value("seq", 0ull);
    f.length = std::uint64_t(number(r, "length_cck"));
    if (r.value("idle_source", std::string()) == "uaelib") {
        f.cck = number(r, "busy_cck");
        f.idle = number(r, "idle_cck");
        f.source = "uaelib";
    } else {
        f.cck = double(f.length) - number(r.value("cpu", json::object()), "stopped_cck");
        f.source = "cpu";
    }
    if (r.contains("owner_cck") && r["owner_cck"].is_object())
        for (const auto& [owner, cck] : r["owner_cck"].items())
            if (cck.is_number()) f.owners[owner] = cck.get<double>();
    return f;
}

ProfileSide sideFromCapture(const CaptureFiles& capture, const SampleReport& report, const std::string& program) {
    ProfileSide s;
    s.path = capture.dir;
    s.kind = "capture";
    s.program = program;
    s.whole = report.cck;
    s.functions = functionWeights(report.merged);
    s.hasFrames = true;
    for (const json& r : capture.frames) {
        // A frame the machine or the capture did not watch from its first clock has part of
        // its time missing (or before the program): it is not a frame to compare.
        if (r.value("partial", false) || r.contains("partial_from_cck") || r.contains("samples_from_cck")) {
            ++s.partialFrames;
            continue;
        }
        try {
            s.frames.push_back(frameTimeOf(r));
        } catch (const ProfileDiffError& e) {
            throw ProfileDiffError(capture.dir + "/profile.jsonl: " + e.what());
        }
    }
    // A program that marks its idle time: its frame loop, from the first frame with idle
    // time to the last.
    std::size_t first = s.frames.size(), last = 0;
    for (std::size_t i = 0; i < s.frames.size(); ++i)
        if (s.frames[i].source == "uaelib" && s.frames[i].idle > 0) {
            first = std::min(first, i);
            last = i;
        }
    if (first < s.frames.size()) {
        s.outsideFrames = s.frames.size() - (last - first + 1);
        s.frames = std::vector<FrameTime>(s.frames.begin() + std::ptrdiff_t(first),
                                          s.frames.begin() + std::ptrdiff_t(last + 1));
    }
    return s;
}

ProfileSide sideFromCpuProfile(const json& profile, const std::string& path) {
    ProfileSide s;
    s.path = path;
    s.kind = "cpuprofile";
    ProfileTree tree;
    try {
        tree = readCpuProfile(profile);
    } catch (const std::exception& e) {
        throw MediaError(path + ": " + e.what());
    }
    const json note = profile.value("$copperline", json::object());
    s.weight = note.is_object() && note.value("weight", std::string()) == "cck" ? "cck" : "weight";
    if (note.is_object()) s.program = note.value("program", std::string());
    for (ProfileTree::NodeId id = 0; id < tree.size(); ++id) s.whole += tree.node(id).self;
    s.functions = functionWeights(tree);
    return s;
}

FrameTimeStats frameStats(std::vector<double> values, std::optional<double> budget) {
    if (values.empty()) throw ProfileDiffError("no whole frame to measure");
    std::sort(values.begin(), values.end());
    FrameTimeStats st;
    st.count = values.size();
    for (const double v : values) {
        st.sum += v;
        if (budget && v > *budget) ++st.overBudget;
    }
    st.mean = st.sum / double(st.count);
    const std::size_t n = st.count;
    st.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    // Nearest rank: the smallest value at least 95 % of the frames do not exceed.
    const std::size_t rank = std::size_t(std::ceil(0.95 * double(n)));
    st.p95 = values[std::max<std::size_t>(rank, 1) - 1];
    st.max = values.back();
    return st;
}

ProfileDiff diffProfiles(const ProfileSide& a, const ProfileSide& b, std::optional<double> budget) {
    ProfileDiff d;
    d.a = &a;
    d.b = &b;
    d.budget = budget;
    d.whole = {double(a.whole), double(b.whole)};

    // Functions by key; a name found once on each side only, with different files (a file
    // moved between the builds), still pairs.
    const auto keyOf = [](const FunctionWeight& w) { return w.name + '\0' + w.file; };
    std::map<std::string, std::pair<const FunctionWeight*, const FunctionWeight*>> rows;
    for (const FunctionWeight& w : a.functions) rows[keyOf(w)].first = &w;
    for (const FunctionWeight& w : b.functions) rows[keyOf(w)].second = &w;
    std::map<std::string, std::vector<std::string>> onlyA, onlyB; // name -> keys
    for (const auto& [key, p] : rows) {
        if (p.first && !p.second) onlyA[p.first->name].push_back(key);
        if (!p.first && p.second) onlyB[p.second->name].push_back(key);
    }
    for (const auto& [name, keys] : onlyA) {
        const auto other = onlyB.find(name);
        if (keys.size() != 1 || other == onlyB.end() || other->second.size() != 1) continue;
        rows[keys[0]].second = rows[other->second[0]].second;
        rows.erase(other->second[0]);
    }
    const double wholeA = a.whole ? double(a.whole) : 1, wholeB = b.whole ? double(b.whole) : 1;
    for (const auto& [key, p] : rows) {
        FunctionDiff f;
        const FunctionWeight& any = p.first ? *p.first : *p.second;
        f.name = any.name;
        f.file = any.file;
        f.self = {p.first ? double(p.first->self) : 0, p.second ? double(p.second->self) : 0};
        f.total = {p.first ? double(p.first->total) : 0, p.second ? double(p.second->total) : 0};
        f.selfShare = {f.self.a / wholeA, f.self.b / wholeB};
        f.totalShare = {f.total.a / wholeA, f.total.b / wholeB};
        f.status = !p.first ? "added" : !p.second ? "removed" : f.self.delta() || f.total.delta() ? "changed" : "same";
        d.functions.push_back(std::move(f));
    }
    std::stable_sort(d.functions.begin(), d.functions.end(), [](const FunctionDiff& x, const FunctionDiff& y) {
        const double sx = std::fabs(x.self.delta()), sy = std::fabs(y.self.delta());
        if (sx != sy) return sx > sy;
        const double tx = std::fabs(x.total.delta()), ty = std::fabs(y.total.delta());
        if (tx != ty) return tx > ty;
        return x.self.b + x.self.a > y.self.b + y.self.a;
    });

    d.haveFrames = a.hasFrames && b.hasFrames && !a.frames.empty() && !b.frames.empty();
    if (d.haveFrames) {
        std::vector<double> ta, tb;
        std::set<std::string> sources, owners;
        for (const FrameTime& f : a.frames) {
            ta.push_back(f.cck);
            sources.insert(f.source);
            for (const auto& [o, v] : f.owners) owners.insert(o);
        }
        for (const FrameTime& f : b.frames) {
            tb.push_back(f.cck);
            sources.insert(f.source);
            for (const auto& [o, v] : f.owners) owners.insert(o);
        }
        d.framesA = frameStats(ta, budget);
        d.framesB = frameStats(tb, budget);
        d.frameSource = sources.size() == 1 ? *sources.begin() : "mixed";
        for (const std::string& o : kOwnerOrder)
            if (owners.erase(o)) d.owners.push_back({o, {ownerMean(a, o), ownerMean(b, o)}});
        for (const std::string& o : owners) d.owners.push_back({o, {ownerMean(a, o), ownerMean(b, o)}});
    }
    return d;
}

Threshold parseThreshold(const std::string& text) {
    const auto fail = [&](const std::string& why) -> Threshold {
        throw ProfileDiffError("--fail-if \"" + text + "\": " + why);
    };
    Threshold t;
    t.text = text;
    // The operator is the last < or > (a function's name may hold either, the limit cannot).
    const std::size_t op = text.find_last_of("<>");
    if (op == std::string::npos)
        return fail("no comparison: write METRIC>LIMIT or METRIC<LIMIT, e.g. \"p95_frame_cck>+2%\"");
    t.op = text[op];
    std::string lhs = trim(text.substr(0, op));
    std::string rhs = trim(text.substr(op + 1));
    if (!rhs.empty() && rhs[0] == '=') return fail("'" + std::string(1, t.op) + "=' is not an operator: use > or <");
    if (!lhs.empty() && (lhs.back() == '<' || lhs.back() == '>'))
        return fail("'" + std::string(1, lhs.back()) + t.op + "' is not an operator: use one > or <");
    if (lhs.empty()) return fail("no metric before '" + std::string(1, t.op) + "'");
    if (rhs.empty()) return fail("no limit after '" + std::string(1, t.op) + "' (e.g. +2% or +500)");
    // The limit: [+|-]NUMBER[%].
    if (rhs.back() == '%') {
        t.percent = true;
        rhs = trim(rhs.substr(0, rhs.size() - 1));
    }
    {
        std::size_t i = 0;
        if (i < rhs.size() && (rhs[i] == '+' || rhs[i] == '-')) ++i;
        bool digits = false, dot = false, good = i < rhs.size();
        for (std::size_t j = i; j < rhs.size(); ++j) {
            if (std::isdigit(static_cast<unsigned char>(rhs[j])))
                digits = true;
            else if (rhs[j] == '.' && !dot)
                dot = true;
            else
                good = false;
        }
        if (!good || !digits)
            return fail("the limit '" + trim(text.substr(op + 1)) +
                        "' is not a number (a signed number, with % for a change relative to A: +2%, -1.5%, +500)");
        t.limit = std::strtod(rhs.c_str(), nullptr);
    }
    static const std::set<std::string> plain = {"total_cck",     "total_frame_cck", "mean_frame_cck",
                                                "median_frame_cck", "p95_frame_cck", "max_frame_cck",
                                                "frames_over_budget"};
    if (lhs.rfind("function:", 0) == 0) {
        t.metric = "function";
        std::string rest = trim(lhs.substr(9));
        const std::size_t space = rest.find_last_of(" \t");
        const std::string part = space == std::string::npos ? std::string() : rest.substr(space + 1);
        if (part != "self" && part != "total")
            return fail("a function's metric ends in ' self' or ' total' (\"function:NAME self>+5%\")");
        t.part = part;
        t.name = trim(rest.substr(0, space));
        if (t.name.empty()) return fail("no function name after 'function:'");
    } else if (lhs.rfind("owner:", 0) == 0) {
        t.metric = "owner";
        t.name = trim(lhs.substr(6));
        if (t.name.empty()) return fail("no owner after 'owner:' (cpu, blitter, copper, bitplane, ...)");
        // The plural the chip bus's owners are often called by.
        if (t.name == "bitplanes") t.name = "bitplane";
        if (t.name == "sprites") t.name = "sprite";
    } else if (plain.count(lhs)) {
        t.metric = lhs;
    } else {
        std::string known;
        for (const std::string& m : plain) known.append(known.empty() ? "" : ", ").append(m);
        return fail("unknown metric '" + lhs + "' (" + known + ", function:NAME self|total, owner:NAME)");
    }
    return t;
}

ThresholdResult evaluateThreshold(const ProfileDiff& d, const Threshold& t) {
    ThresholdResult r;
    r.threshold = t;
    const auto fail = [&](const std::string& why) { throw ProfileDiffError("--fail-if \"" + t.text + "\": " + why); };
    const bool frameMetric = t.metric.find("frame") != std::string::npos || t.metric == "owner";
    if (frameMetric && !d.haveFrames)
        fail("needs the frame records of two capture folders (a .cpuprofile has none)");
    if (t.metric == "total_cck")
        r.value = d.whole;
    else if (t.metric == "total_frame_cck")
        r.value = {d.framesA.sum, d.framesB.sum};
    else if (t.metric == "mean_frame_cck")
        r.value = {d.framesA.mean, d.framesB.mean};
    else if (t.metric == "median_frame_cck")
        r.value = {d.framesA.median, d.framesB.median};
    else if (t.metric == "p95_frame_cck")
        r.value = {d.framesA.p95, d.framesB.p95};
    else if (t.metric == "max_frame_cck")
        r.value = {d.framesA.max, d.framesB.max};
    else if (t.metric == "frames_over_budget") {
        if (!d.budget) fail("frames_over_budget needs --budget CCK");
        r.value = {double(d.framesA.overBudget), double(d.framesB.overBudget)};
    } else if (t.metric == "function") {
        bool found = false;
        for (const FunctionDiff& f : d.functions)
            if (f.name == t.name) {
                found = true;
                const Change& c = t.part == "self" ? f.self : f.total;
                r.value.a += c.a;
                r.value.b += c.b;
            }
        if (!found) fail("no function '" + t.name + "' in either profile");
    } else if (t.metric == "owner") {
        const auto it = std::find_if(d.owners.begin(), d.owners.end(),
                                     [&](const OwnerDiff& o) { return o.owner == t.name; });
        if (it == d.owners.end()) {
            std::string known;
            for (const OwnerDiff& o : d.owners) known.append(known.empty() ? "" : ", ").append(o.owner);
            fail("no bus owner '" + t.name + "' in the captures (" + known + ")");
        }
        r.value = it->meanPerFrame;
    } else {
        fail("unknown metric '" + t.metric + "'");
    }
    double change = r.value.delta();
    if (t.percent) {
        const auto p = r.value.percent();
        // From nothing to something is an infinite rise.
        change = p ? *p : (r.value.b > 0 ? INFINITY : -INFINITY);
    }
    r.tripped = t.op == '>' ? change > t.limit : change < t.limit;
    return r;
}

std::string describeThreshold(const ThresholdResult& r) {
    const Threshold& t = r.threshold;
    std::string what = t.metric == "function" ? "function:" + t.name + " " + t.part
                       : t.metric == "owner"  ? "owner:" + t.name
                                              : t.metric;
    std::string limit = fmtSigned(t.limit);
    if (t.percent) limit += "%";
    return what + " " + fmtSigned(r.value.delta()) + " (" + fmtNumber(r.value.a) + " -> " + fmtNumber(r.value.b) +
           ", " + fmtPercent(r.value.percent()) + ") " + (r.tripped ? "" : "not ") + t.op + " " + limit;
}

namespace {

struct Table {
    std::vector<std::string> header;
    std::vector<bool> rightAligned;
    std::vector<std::vector<std::string>> rows;
};

std::string textTable(const Table& t) {
    std::vector<std::size_t> width(t.header.size(), 0);
    for (std::size_t c = 0; c < t.header.size(); ++c) width[c] = t.header[c].size();
    for (const auto& r : t.rows)
        for (std::size_t c = 0; c < r.size(); ++c) width[c] = std::max(width[c], r[c].size());
    std::string out;
    const auto line = [&](const std::vector<std::string>& cells) {
        std::string l;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            const std::string pad(width[c] - cells[c].size(), ' ');
            if (c) l += "  ";
            l += t.rightAligned[c] ? pad + cells[c] : (c + 1 < cells.size() ? cells[c] + pad : cells[c]);
        }
        out += l + "\n";
    };
    line(t.header);
    for (const auto& r : t.rows) line(r);
    return out;
}

// A table cell: a | would end it.
std::string markdownCell(const std::string& s) {
    std::string out;
    for (const char c : s) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

// Code in a cell (a function's name, an expression): a backtick would end it.
std::string codeSpan(const std::string& s) {
    std::string out = "`";
    for (const char c : s) out += c == '`' ? '\'' : c;
    return out + "`";
}

std::string markdownTable(const Table& t) {
    std::string out = "|";
    for (const std::string& h : t.header) out.append(" ").append(markdownCell(h)).append(" |");
    out += "\n|";
    for (const bool right : t.rightAligned) out += right ? " ---: |" : " --- |";
    out += "\n";
    for (const auto& r : t.rows) {
        out += "|";
        for (const std::string& c : r) out.append(" ").append(markdownCell(c)).append(" |");
        out += "\n";
    }
    return out;
}

Table functionTable(const ProfileDiff& d, std::size_t top, bool code) {
    Table t;
    t.header = {"function", "self A", "self B", "self change", "self %", "total A", "total B", "total change",
                "total %", "share A", "share B", "status"};
    t.rightAligned = {false, true, true, true, true, true, true, true, true, true, true, false};
    for (std::size_t i = 0; i < d.functions.size() && (!top || i < top); ++i) {
        const FunctionDiff& f = d.functions[i];
        std::string name = code ? codeSpan(f.name) : f.name;
        // The file's name alone: the JSON has the path.
        if (!f.file.empty()) name.append(" (").append(f.file.substr(f.file.find_last_of('/') + 1)).append(")");
        t.rows.push_back({name, fmtNumber(f.self.a), fmtNumber(f.self.b), fmtSigned(f.self.delta()),
                          fmtPercent(f.self.percent()), fmtNumber(f.total.a), fmtNumber(f.total.b),
                          fmtSigned(f.total.delta()), fmtPercent(f.total.percent()), fmtShare(f.selfShare.a),
                          fmtShare(f.selfShare.b), f.status});
    }
    return t;
}

Table ownerTable(const ProfileDiff& d) {
    Table t;
    t.header = {"owner", "A CCK/frame", "B CCK/frame", "change", "%"};
    t.rightAligned = {false, true, true, true, true};
    for (const OwnerDiff& o : d.owners)
        t.rows.push_back({o.owner, fmtNumber(o.meanPerFrame.a), fmtNumber(o.meanPerFrame.b),
                          fmtSigned(o.meanPerFrame.delta()), fmtPercent(o.meanPerFrame.percent())});
    return t;
}

Table frameTable(const ProfileDiff& d) {
    Table t;
    t.header = {"frame time (CCK)", "A", "B", "change", "%"};
    t.rightAligned = {false, true, true, true, true};
    const auto row = [&](const char* name, double a, double b) {
        const Change c{a, b};
        t.rows.push_back({name, fmtNumber(a), fmtNumber(b), fmtSigned(c.delta()), fmtPercent(c.percent())});
    };
    row("frames", double(d.framesA.count), double(d.framesB.count));
    row("median", d.framesA.median, d.framesB.median);
    row("p95", d.framesA.p95, d.framesB.p95);
    row("max", d.framesA.max, d.framesB.max);
    row("mean", d.framesA.mean, d.framesB.mean);
    if (d.budget) row("over budget", double(d.framesA.overBudget), double(d.framesB.overBudget));
    return t;
}

std::string frameDefinition(const ProfileDiff& d) {
    if (d.frameSource == "uaelib")
        return "busy_cck: the frame minus the time the program marked idle (uaelib idle markers)";
    if (d.frameSource == "cpu") return "length_cck - cpu.stopped_cck: the frame minus the time the CPU stood in STOP";
    return "mixed: busy_cck where the program marked idle time, else length_cck - cpu.stopped_cck";
}

std::string thresholdLines(const std::vector<ThresholdResult>& results, const char* bullet) {
    std::string out;
    for (const ThresholdResult& r : results)
        out += std::string(bullet) + (r.tripped ? "FAIL " : "ok   ") + r.threshold.text + ": " + describeThreshold(r) + "\n";
    return out;
}

json changeJson(const Change& c) {
    json j = {{"a", c.a}, {"b", c.b}, {"change", c.delta()}};
    const auto p = c.percent();
    j["change_pct"] = p ? json(*p) : json(nullptr);
    return j;
}

json sideJson(const ProfileSide& s) {
    json j = {{"path", s.path}, {"kind", s.kind}, {"program", s.program}, {"weight", s.weight}, {"whole", s.whole}};
    if (s.hasFrames) {
        j["frames"] = s.frames.size();
        j["partial_frames"] = s.partialFrames;
        j["outside_frames"] = s.outsideFrames;
    }
    return j;
}

json statsJson(const FrameTimeStats& s, bool budget) {
    json j = {{"frames", s.count}, {"median", s.median}, {"p95", s.p95}, {"max", s.max}, {"mean", s.mean},
              {"sum", s.sum}};
    j["over_budget"] = budget ? json(s.overBudget) : json(nullptr);
    return j;
}

} // namespace

std::string diffText(const ProfileDiff& d, const std::vector<ThresholdResult>& results, std::size_t top) {
    std::string out = "A: " + sideLabel(*d.a) + "\nB: " + sideLabel(*d.b) + "\n";
    const std::string unit = d.a->weight == "cck" && d.b->weight == "cck" ? "CCK" : "weight";
    out += "whole: " + fmtNumber(d.whole.a) + " -> " + fmtNumber(d.whole.b) + " " + unit + " (" +
           fmtSigned(d.whole.delta()) + ", " + fmtPercent(d.whole.percent()) + ")\n\n";
    out += "Functions (" + unit + ", by the size of the self-time change";
    if (top && d.functions.size() > top)
        out += "; " + std::to_string(top) + " of " + std::to_string(d.functions.size()) + ", --top 0 for all";
    out += "):\n" + textTable(functionTable(d, top, false));
    if (d.haveFrames) {
        out += "\nBus owners (mean CCK per frame):\n" + textTable(ownerTable(d));
        out += "\nFrame time: " + frameDefinition(d) + "\n" + textTable(frameTable(d));
    }
    if (!results.empty()) out += "\nThresholds:\n" + thresholdLines(results, "  ");
    return out;
}

std::string diffMarkdown(const ProfileDiff& d, const std::vector<ThresholdResult>& results, std::size_t top) {
    std::string out = "## Profile diff\n\n";
    out += "- A: `" + sideLabel(*d.a) + "`\n- B: `" + sideLabel(*d.b) + "`\n";
    const std::string unit = d.a->weight == "cck" && d.b->weight == "cck" ? "CCK" : "weight";
    out += "- whole: " + fmtNumber(d.whole.a) + " -> " + fmtNumber(d.whole.b) + " " + unit + " (" +
           fmtSigned(d.whole.delta()) + ", " + fmtPercent(d.whole.percent()) + ")\n";
    if (!results.empty()) {
        std::size_t tripped = 0;
        for (const ThresholdResult& r : results) tripped += r.tripped;
        out += "\n### Thresholds: " + std::string(tripped ? std::to_string(tripped) + " tripped" : "all passed") +
               "\n\n";
        Table t;
        t.header = {"threshold", "A", "B", "change", "%", "result"};
        t.rightAligned = {false, true, true, true, true, false};
        for (const ThresholdResult& r : results)
            t.rows.push_back({codeSpan(r.threshold.text), fmtNumber(r.value.a), fmtNumber(r.value.b),
                              fmtSigned(r.value.delta()), fmtPercent(r.value.percent()),
                              r.tripped ? "**FAIL**" : "ok"});
        out += markdownTable(t);
    }
    out += "\n### Functions (" + unit + ")\n\n";
    if (top && d.functions.size() > top)
        out += "The " + std::to_string(top) + " largest changes of " + std::to_string(d.functions.size()) + ".\n\n";
    out += markdownTable(functionTable(d, top, true));
    if (d.haveFrames) {
        out += "\n### Bus owners (mean CCK per frame)\n\n" + markdownTable(ownerTable(d));
        out += "\n### Frame time\n\n" + frameDefinition(d) + ".\n\n" + markdownTable(frameTable(d));
    }
    return out;
}

json diffJson(const ProfileDiff& d, const std::vector<ThresholdResult>& results) {
    json j;
    j["version"] = 1;
    j["a"] = sideJson(*d.a);
    j["b"] = sideJson(*d.b);
    j["whole"] = changeJson(d.whole);
    json fns = json::array();
    for (const FunctionDiff& f : d.functions) {
        json one = {{"name", f.name}, {"status", f.status}, {"self", changeJson(f.self)}, {"total", changeJson(f.total)}};
        one["file"] = f.file.empty() ? json(nullptr) : json(f.file);
        one["self_share"] = {{"a", f.selfShare.a}, {"b", f.selfShare.b}};
        one["total_share"] = {{"a", f.totalShare.a}, {"b", f.totalShare.b}};
        fns.push_back(std::move(one));
    }
    j["functions"] = std::move(fns);
    if (d.haveFrames) {
        json owners = json::array();
        for (const OwnerDiff& o : d.owners) {
            json one = changeJson(o.meanPerFrame);
            one["owner"] = o.owner;
            owners.push_back(std::move(one));
        }
        j["owners"] = std::move(owners);
        j["frame_time"] = {{"definition", d.frameSource},
                           {"a", statsJson(d.framesA, bool(d.budget))},
                           {"b", statsJson(d.framesB, bool(d.budget))},
                           {"median", changeJson({d.framesA.median, d.framesB.median})},
                           {"p95", changeJson({d.framesA.p95, d.framesB.p95})},
                           {"max", changeJson({d.framesA.max, d.framesB.max})},
                           {"mean", changeJson({d.framesA.mean, d.framesB.mean})}};
        j["frame_time"]["budget"] = d.budget ? json(*d.budget) : json(nullptr);
    } else {
        j["owners"] = nullptr;
        j["frame_time"] = nullptr;
    }
    json th = json::array();
    bool any = false;
    for (const ThresholdResult& r : results) {
        json one = changeJson(r.value);
        one["expression"] = r.threshold.text;
        one["op"] = std::string(1, r.threshold.op);
        one["limit"] = r.threshold.limit;
        one["percent"] = r.threshold.percent;
        one["tripped"] = r.tripped;
        any = any || r.tripped;
        th.push_back(std::move(one));
    }
    j["thresholds"] = std::move(th);
    j["tripped"] = any;
    return j;
}

} // namespace copperline
