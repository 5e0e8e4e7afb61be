// SPDX-License-Identifier: GPL-3.0-or-later
// gdb's `monitor` commands (qRcmd): each one a command of the debugger's vocabulary, its
// answer put in words for gdb's console (docs/gdb.md, "Monitor commands").

#include "app/gdb/session.h"

#include "emu/base64.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdlib.h>
#include <sstream>
#include <vector>

namespace copperline::gdb {

using nlohmann::json;

namespace {

std::vector<std::string> words(const std::string& line) {
    std::vector<std::string> out;
    std::string word;
    bool quoted = false;
    for (const char c : line) {
        if (c == '"') {
            quoted = !quoted;
            continue;
        }
        if (!quoted && (c == ' ' || c == '\t')) {
            if (!word.empty()) out.push_back(std::move(word));
            word.clear();
            continue;
        }
        word += c;
    }
    if (!word.empty()) out.push_back(std::move(word));
    return out;
}

std::string hexText(const std::string& text) {
    return toHex(std::vector<std::uint8_t>(text.begin(), text.end()));
}

std::string hex6(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "$%06X", unsigned(v));
    return buf;
}

// An address as the engine takes it: decimal digits become a number, anything else
// ("$C01234", "0xC01234", a name) goes as written.
json address(const std::string& text) {
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
        try {
            return std::stoull(text);
        } catch (const std::exception&) {
        }
    }
    return text;
}

std::uint32_t number(const json& v) {
    if (v.is_number_unsigned()) return v.get<std::uint32_t>();
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        try {
            return std::uint32_t(std::stoul(s.rfind("0x", 0) == 0 ? s.substr(2) : s.substr(s[0] == '$'), nullptr, 16));
        } catch (const std::exception&) {
        }
    }
    return 0;
}

std::string position(const json& s) {
    std::ostringstream out;
    out << "frame " << s.value("frame", 0ull) << ", line " << s.value("vpos", 0) << ", colour clock "
        << s.value("hpos", 0);
    return out.str();
}

const char* kHelp =
    "Copperline monitor commands:\n"
    "  status                     where the machine stands, running or paused\n"
    "  beam                       the frame, line and colour clock\n"
    "  custom                     every custom register written, with its value\n"
    "  reg NAME                   one custom register (BPLCON0, DMACON, COLOR00 ...)\n"
    "  copper                     the Copper list the Copper runs now\n"
    "  segments                   the program's hunks as loaded\n"
    "  symbol-file                the add-symbol-file command that places each ELF section\n"
    "  last-writer ADDR           the latest CPU write to a byte of chip or slow RAM\n"
    "  reset [warm|cold]          reset the machine\n"
    "  profile [N] [DIR]          run N frames (default 1) into a capture in DIR\n"
    "  strip START [pass|call|until END] | strip off | strip | strip tree [BAR]\n"
    "                             profiling frames: where they start, their bars, one's tree\n";

void treeLines(const json& node, int depth, int maxDepth, std::string& out) {
    char line[256];
    std::snprintf(line, sizeof line, "%*s%-s  %llu cck total, %llu self, %llu calls\n", depth * 2, "",
                  node.value("routine", std::string("?")).c_str(), node.value("total_cck", 0ull),
                  node.value("self_cck", 0ull), node.value("calls", 0ull));
    out += line;
    if (depth >= maxDepth || !node.contains("children")) return;
    for (const json& c : node["children"]) treeLines(c, depth + 1, maxDepth, out);
}

} // namespace

std::string Session::monitor(const std::string& command) {
    const std::vector<std::string> w = words(command);
    if (w.empty() || w[0] == "help") return hexText(kHelp);
    const std::string& verb = w[0];
    if (dialect_ == Dialect::Bartman && (verb == "profile" || verb == "reset")) return bartmanMonitor(w);
    try {
        if (verb == "status") {
            const json s = port_.call("status", json::object());
            std::ostringstream out;
            out << s.value("state", std::string("?")) << " at pc " << hex6(s.value("pc", 0u)) << ", " << position(s)
                << ", " << s.value("instructions", 0ull) << " instructions, " << s.value("seconds", 0.0)
                << " s emulated" << (s.value("halted", false) ? ", the CPU halted" : "")
                << (s.value("stopped", false) ? ", the CPU in STOP" : "") << "\n";
            return hexText(out.str());
        }
        if (verb == "beam") return hexText(position(port_.call("status", json::object())) + "\n");
        if (verb == "custom" || verb == "reg") {
            if (verb == "reg" && w.size() != 2) return hexText("usage: monitor reg NAME\n");
            const json d = port_.call("custom.dump", json::object());
            std::string out;
            for (const json& r : d.value("list", json::array())) {
                const std::string name = r.value("name", std::string());
                if (verb == "reg") {
                    std::string upper = w[1];
                    for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
                    if (name != upper) continue;
                } else if (r["written"].is_null() && !r.value("readable", false)) {
                    continue;
                }
                char line[160];
                const auto v = r["value"].is_null() ? std::string("never written") : [&] {
                    char b[16];
                    std::snprintf(b, sizeof b, "$%04X", r["value"].get<unsigned>());
                    return std::string(b);
                }();
                std::snprintf(line, sizeof line, "%-9s $%03X  %s%s\n", name.c_str(), r.value("offset", 0u), v.c_str(),
                              r.value("readable", false) ? "" : " (last written)");
                out += line;
                if (verb == "reg" && r.contains("fields"))
                    for (const json& f : r["fields"])
                        out += "    " + f.value("name", std::string()) + " = " + std::to_string(f.value("value", 0u)) +
                               "\n";
            }
            if (out.empty()) out = verb == "reg" ? "no custom register " + w[1] + "\n" : "no register written yet\n";
            return hexText(out);
        }
        if (verb == "copper") {
            const json c = port_.call("copper.list", json{{"max", 64}});
            std::string out = "Copper at " + hex6(number(c["copper"].value("pc", json(0)))) + ", " +
                              c["copper"].value("state", std::string("?")) + "\n";
            for (const json& i : c.value("instructions", json::array())) {
                char line[160];
                const std::string op = i.value("op", std::string());
                if (op == "move")
                    std::snprintf(line, sizeof line, "%s%s  MOVE $%04X,%s\n", i.value("current", false) ? "> " : "  ",
                                  hex6(number(i["addr"])).c_str(), i.value("value", 0u),
                                  i["reg_name"].is_string() ? i["reg_name"].get<std::string>().c_str() : "?");
                else
                    std::snprintf(line, sizeof line, "%s%s  %s %d,%d%s\n", i.value("current", false) ? "> " : "  ",
                                  hex6(number(i["addr"])).c_str(), op == "wait" ? "WAIT" : "SKIP", i.value("vpos", 0),
                                  i.value("hpos", 0), i.value("end", false) ? "  (end)" : "");
                out += line;
            }
            return hexText(out);
        }
        if (verb == "segments") {
            const json s = port_.call("segments.list", json::object());
            std::string out;
            const auto hunks = [&out](const std::string& title, const json& p) {
                out += title + "\n";
                int n = 0;
                for (const json& h : p.value("hunks", json::array()))
                    out += "  hunk " + std::to_string(n++) + " at " + hex6(number(h["base"])) + ", " +
                           std::to_string(h.value("size", 0u)) + " bytes\n";
            };
            if (s.contains("run") && s["run"].is_object()) hunks("run: " + s["run"].value("name", std::string()), s["run"]);
            for (const json& p : s.value("programs", json::array()))
                hunks(p.value("command", std::string("?")) + " (task " + p.value("task_name", std::string()) + ")", p);
            return hexText(out.empty() ? "no program loaded\n" : out);
        }
        if (verb == "symbol-file") {
            // gdb's qOffsets moves the data and the bss together; the program's hunks lie
            // apart. add-symbol-file takes each section's address.
            const json s = port_.call("segments.list", json::object());
            if (!s.contains("run") || !s["run"].contains("elf"))
                return hexText("no --run program with an ELF is loaded\n");
            std::string out = "add-symbol-file " + s["run"]["elf"].get<std::string>();
            for (const json& h : s["run"].value("hunks", json::array()))
                if (h.contains("link_address") && !h.value("section", std::string()).empty())
                    out += " -s " + h["section"].get<std::string>() + " 0x" + h["base"].get<std::string>().substr(2);
            return hexText(out + "\n");
        }
        if (verb == "last-writer") {
            if (w.size() != 2) return hexText("usage: monitor last-writer ADDR\n");
            const json r = port_.call("last_writer", json{{"addr", address(w[1])}});
            const std::string outcome = r.value("outcome", std::string());
            std::string out;
            if (outcome == "found") {
                const json& rec = r["record"];
                char line[200];
                std::snprintf(line, sizeof line, "%s: $%02X -> $%02X by the instruction at %s, frame %llu (position %llu)\n",
                              hex6(r.value("addr", 0u)).c_str(), rec.value("old", 0u), rec.value("new", 0u),
                              hex6(rec.value("pc", 0u)).c_str(), rec.value("frame", 0ull), rec.value("pos", 0ull));
                out = line;
            } else if (outcome == "never_written") {
                out = hex6(r.value("addr", 0u)) + ": no CPU write since the record began\n";
            } else {
                out = hex6(r.value("addr", 0u)) + ": the write is older than the record reaches\n";
            }
            return hexText(out);
        }
        if (verb == "reset") {
            const std::string kind = w.size() > 1 ? w[1] : "warm";
            if (kind != "warm" && kind != "cold") return hexText("usage: monitor reset [warm|cold]\n");
            const json r = port_.call("machine.reset", json{{"kind", kind}});
            return hexText("reset (" + kind + "), pc " + hex6(r.value("pc", 0u)) + "\n");
        }
        if (verb == "profile") {
            unsigned frames = 1;
            json params = {{"samples", true}};
            std::size_t next = 1;
            if (w.size() > 1 && w[1].find_first_not_of("0123456789") == std::string::npos) {
                frames = unsigned(std::stoul(w[1]));
                next = 2;
            }
            if (frames == 0 || frames > 100000) return hexText("monitor profile: N is 1 to 100000 frames\n");
            if (w.size() > next) params["path"] = w[next];
            params["frames"] = frames;
            const json started = port_.call("profile.start", params);
            const std::string path = started.value("path", std::string());
            running_ = true;
            resumed_ = true;
            interrupted_ = false;
            if (!heldOutput_.empty()) sendOutput(std::exchange(heldOutput_, std::string()));
            port_.resume("step_frame", json{{"n", frames}}, [this, path, frames](const json& stop) {
                running_ = false;
                std::string out;
                if (stop.contains("error")) {
                    out = "monitor profile: " + stop.value("error", std::string()) + "\n";
                } else {
                    json status;
                    try {
                        status = port_.call("profile.status", json::object());
                    } catch (const CommandRefused& e) {
                        status = json{{"error", e.what()}};
                    }
                    out = "captured " + std::to_string(status.value("frames_written", 0u)) + " of " +
                          std::to_string(frames) + " frames in " + path + " (" + status.value("state", std::string("?")) +
                          ")\nreport: copperline-ctl profile-report " + path + "\n";
                    if (stop.value("reason", std::string()) != "step")
                        out += "the run stopped early: " + stop.value("reason", std::string()) + "\n";
                }
                reply(hexText(out));
            });
            return {};
        }
        if (verb == "strip") {
            if (w.size() == 1) {
                const json b = port_.call("strip.bars", json::object());
                std::string out = b.value("summary", std::string()) + "\n";
                for (const json& bar : b.value("bars", json::array())) {
                    char line[160];
                    std::snprintf(line, sizeof line, "  bar %u: frame %llu, %llu cck, %.1f us%s\n",
                                  bar.value("bar", 0u), bar.value("frame", 0ull), bar.value("length_cck", 0ull),
                                  bar.value("length_us", 0.0), bar.value("here", false) ? "  <- here" : "");
                    out += line;
                }
                return hexText(out);
            }
            if (w[1] == "off") {
                port_.call("strip.set", json{{"start", nullptr}});
                return hexText("profiling frames off\n");
            }
            if (w[1] == "tree") {
                json params = json::object();
                if (w.size() > 2) params["bar"] = std::stoul(w[2]);
                const json t = port_.call("strip.tree", params);
                std::string out;
                treeLines(t, 0, 6, out);
                return hexText(out);
            }
            json params = {{"start", address(w[1])}};
            if (w.size() > 2) params["mode"] = w[2];
            if (w.size() > 3) params["end"] = address(w[3]);
            const json s = port_.call("strip.set", params);
            return hexText("profiling frames start at " + s.value("start", std::string("?")) + "\n");
        }
        return hexText("unknown monitor command \"" + verb + "\" (monitor help lists them)\n");
    } catch (const CommandRefused& e) {
        return hexText("monitor " + verb + ": " + e.what() + "\n");
    } catch (const std::exception& e) {
        return hexText("monitor " + verb + ": " + e.what() + "\n");
    }
}

// Bartman's two: `profile N "UNWIND" "OUT"` (N frames, 1 to 100, into the binary profile
// its extension reads, "PRF: k/N" before each frame, then OK with the machine stopped) and
// `reset` (back to the program's first instruction).
std::string Session::bartmanMonitor(const std::vector<std::string>& w) {
    try {
        if (w[0] == "reset") {
            if (entryState_.empty()) return "E01";
            port_.call("state.load", json{{"path", entryState_}});
            return "OK";
        }
        if (w.size() < 4 || w[1].empty() || w[1].find_first_not_of("0123456789") != std::string::npos) return "E01";
        const unsigned frames = unsigned(std::min<unsigned long>(std::max<unsigned long>(std::stoul(w[1]), 1), 100));
        const std::string out = w[3];
        if (out.empty()) return {};
        json params = {{"frames", frames},  {"samples", true}, {"registers", true},
                       {"slots", true},     {"memory", true},  {"screenshots", "every"}};
        // The unwind table the extension made for the program's text, where the text is.
        std::ifstream unwind(w[2], std::ios::binary);
        if (unwind) {
            const std::vector<std::uint8_t> table((std::istreambuf_iterator<char>(unwind)),
                                                  std::istreambuf_iterator<char>());
            const json seg = port_.call("segments.list", json::object());
            if (!table.empty() && table.size() % 6 == 0 && seg.contains("run") &&
                !seg["run"].value("relocation_bases", json::array()).empty())
                params["unwind"] = {{"base", seg["run"]["relocation_bases"][0]}, {"table", toBase64(table)}};
        }
        char scratch[] = "/tmp/copperline-gdb-profile-XXXXXX";
        if (!::mkdtemp(scratch)) return "E01";
        params["path"] = std::string(scratch);
        port_.call("profile.start", params);
        running_ = true;
        resumed_ = true;
        interrupted_ = false;
        if (!heldOutput_.empty()) sendOutput(std::exchange(heldOutput_, std::string()));
        profileFrame(std::string(scratch), out, 1, frames);
        return {};
    } catch (const std::exception&) {
        return "E01";
    }
}

void Session::profileFrame(const std::string& folder, const std::string& out, unsigned frame, unsigned frames) {
    const auto done = [this, folder](const std::string& answer) {
        std::error_code ec;
        std::filesystem::remove_all(folder, ec);
        running_ = false;
        reply(answer);
    };
    if (frame <= frames) sendOutput("PRF: " + std::to_string(frame) + "/" + std::to_string(frames) + "\n");
    port_.resume("step_frame", json::object(), [this, folder, out, frame, frames, done](const json& stop) {
        if (stop.contains("error") || stop.value("reason", std::string()) != "step") {
            try {
                port_.call("profile.stop", json::object());
            } catch (const CommandRefused&) {
            }
            done("E01");
            return;
        }
        try {
            // The capture ends by itself after its frames (the one under way when it began
            // first); a frame or two more at most.
            const json status = port_.call("profile.status", json::object());
            if (status.value("active", false) && frame < frames + 2) {
                profileFrame(folder, out, frame + 1, frames);
                return;
            }
            if (status.value("active", false)) port_.call("profile.stop", json::object());
            port_.call("profile.export", json{{"path", folder}, {"out", out}, {"format", "bartman"}, {"overwrite", true}});
            done("OK");
        } catch (const CommandRefused&) {
            done("E01");
        }
    });
}

} // namespace copperline::gdb
