// SPDX-License-Identifier: GPL-3.0-or-later
// The profile family: profile.start, profile.stop, profile.status (source document 000,
// "Per-frame profiling"; docs/control-protocol.md). The capture itself is
// profiler/capture/frame_capture; these handlers check parameters, own the one capture
// and share slot recording with the Frame Analyzer.

#include "app/control/capture_options.h"
#include "app/control/emulator_impl.h"
#include "app/control/params.h"
#include "profiler/amigaos/amigaos.h"
#include "profiler/capture/capture_reader.h"
#include "profiler/report/bartman_export.h"
#include "profiler/report/bartman_profile.h"

#include <filesystem>

#include <cstdio>

namespace copperline {

namespace {

using nlohmann::json;

// The guest's resources in debug.resources' shape, for address labelling offline.
json resourcesJson(const GuestApi& guest) {
    json out = json::array();
    for (const auto& r : guest.resources()) out.push_back(resourceJson(r));
    return out;
}

} // namespace

void Emulator::Impl::updateSlotRecording() {
    machine->agnus().setRecordSlots(publishRecords || (capture && capture->wantsSlots()));
}

ProfileSession startCapture(Machine& machine, const ProfileOptions& options,
                            std::function<void()> releaseSlots,
                            std::function<void(const std::string&)> warn,
                            std::function<void(json&)> moreSummary) {
    ProfileSession session;
    FrameCapture::Context context;
    context.machineConfig = machineConfigJson(machine);
    context.releaseSlots = std::move(releaseSlots);
    context.summaryExtras = [&machine, moreSummary = std::move(moreSummary)](json& summary) {
        if (moreSummary) moreSummary(summary);
        summary["resources"] = resourcesJson(machine.guestApi());
        // What the running guest's ROM code and libraries are, read at the end so that
        // SetFunction() patches show and conversion needs no emulator.
        const AmigaOsSnapshot os = readAmigaOs(machine);
        summary["rom_symbols"] = romSymbolsJson(os);
        summary.update(stackFieldsJson(os));
    };
    // A LoadSeg'ed hunk lies in a segment [size][next BPTR][data...] (AmigaDOS manual,
    // LoadSeg), its size longword 8 bytes before the data: recorded, when every base has a
    // plausible one, so that a converter can tell the profiled program from another.
    const auto hunkSizes = [&machine](const std::vector<std::uint32_t>& bases) {
        std::vector<std::uint32_t> sizes;
        for (const std::uint32_t base : bases) {
            const std::uint32_t at = (base - 8) & 0xFFFFFF;
            const std::uint32_t size = std::uint32_t(machine.spyWord(at)) << 16 | machine.spyWord(at + 2);
            if (size < 8 || size > (16u << 20) || (size & 3)) return std::vector<std::uint32_t>{};
            sizes.push_back(size - 8);
        }
        return sizes;
    };
    if (options.samples) {
        SamplerOptions sampling = *options.samples;
        if (sampling.hunkSizes.empty() && !sampling.relocationBases.empty())
            sampling.hunkSizes = hunkSizes(sampling.relocationBases);
        session.sampler = std::make_unique<Sampler>(machine, std::move(sampling));
        session.sampler->setWarningSink(std::move(warn));
        context.sidecars.push_back(session.sampler.get());
    }
    if (options.coverage) {
        try {
            session.coverage = std::make_unique<CoverageSidecar>(machine, *options.coverage);
        } catch (const std::invalid_argument& e) {
            throw CommandError(errc::InvalidParams, std::string("code_ranges: ") + e.what());
        }
        context.sidecars.push_back(session.coverage.get());
    }
    if (options.sampler) {
        if (options.sampler->hz > maxSamplerHz(machine.config().ntsc))
            throw CommandError(errc::InvalidParams,
                               "sampler.hz: " + std::to_string(options.sampler->hz) +
                                   " is more than one sample per raster line on this machine (" +
                                   std::to_string(maxSamplerHz(machine.config().ntsc)) + ")");
        SystemSamplerOptions sampling = *options.sampler;
        if (sampling.hunkSizes.empty() && !sampling.relocationBases.empty())
            sampling.hunkSizes = hunkSizes(sampling.relocationBases);
        session.systemSampler = std::make_unique<SystemSampler>(machine, std::move(sampling));
        context.sidecars.push_back(session.systemSampler.get());
    }
    try {
        session.capture = std::make_unique<FrameCapture>(machine, options.capture, std::move(context));
    } catch (...) {
        session.systemSampler.reset(); // detaches: nothing was captured
        session.sampler.reset();
        session.coverage.reset();
        throw;
    }
    return session;
}

void registerProfileCommands(Emulator::Impl& e) {
    CommandBus& bus = e.bus;
    bus.add("profile.start",
            "Starts a per-frame capture {path, frames, slots, memory, screenshots, trigger, samples, "
            "registers, unwind, relocation_bases, code_ranges, samples_buffer_limit, coverage, pc_samples, "
            "sampler, ring, ring_bytes, stop_on} into a new folder; with ring, the flight recorder.",
            captureOptionNames(), [&e](const json& p) {
                if (e.capture && e.capture->status().active())
                    throw CommandError(errc::InvalidState,
                                       "a capture is already running into " +
                                           e.capture->status().path +
                                           "; call profile.stop before starting another");
                ProfileOptions options = parseCaptureOptions(p, tracesFolder(e.options.tracesDir), "");
                // Code named by debug information, the --run program's as loaded first, then
                // the symbols loaded by hand: its ranges, bases and unwind table where the
                // options leave them out.
                std::vector<LoadedSymbols> named;
                const auto& run = e.run;
                if (run.info && !run.segments.empty() && run.segments.size() == run.info->hunks().size()) {
                    LoadedSymbols program{run.name, run.info, {}};
                    for (const AmigaOsSegment& s : run.segments) program.bases.push_back(s.base);
                    named.push_back(std::move(program));
                }
                named.insert(named.end(), e.loadedSymbols.begin(), e.loadedSymbols.end());
                std::vector<std::string> notes;
                fillCaptureFromSymbols(options, named, &notes);
                ProfileSession session;
                // The old capture's sampler goes with it; a new one replaces both.
                e.capture.reset();
                e.systemSampler.reset();
                e.sampler.reset();
                e.coverage.reset();
                try {
                    session = startCapture(
                        *e.machine, options,
                        [&e] {
                            // Called from inside the capture as it finishes: it is no longer active.
                            e.machine->agnus().setRecordSlots(e.publishRecords);
                        },
                        [&e](const std::string& warning) {
                            json event = e.capture ? e.capture->statusJson() : json::object();
                            event["warning"] = warning;
                            e.sendEvent("event.profile", event);
                            std::fprintf(stderr, "copperline: profile: %s\n", warning.c_str());
                        });
                } catch (const CaptureError& ex) {
                    throw CommandError(errc::HostIo, ex.what());
                }
                FrameCapture* capture = session.capture.get();
                capture->setOnFinished(
                    [&e, capture](const CaptureStatus&) { e.sendEvent("event.profile", capture->statusJson()); });
                e.sampler = std::move(session.sampler);
                e.coverage = std::move(session.coverage);
                e.systemSampler = std::move(session.systemSampler);
                e.capture = std::move(session.capture);
                json out = e.capture->statusJson();
                out["frames_limit"] = options.capture.frames;
                if (!notes.empty()) out["notes"] = notes;
                return out;
            });
    bus.add("profile.stop",
            "Stops the capture and writes its profile.json; returns its final status.",
            [&e](const json&) {
                if (!e.capture)
                    throw CommandError(errc::InvalidState, "no capture has been started");
                // A flight recorder writes the frames it holds, and says it was stopped.
                return e.capture->ringHolding() ? e.capture->stopRing("profile.stop") : e.capture->finish();
            });
    bus.add("profile.export",
            "Writes a finished capture ({path}, default the latest) as another tool's file: {format: "
            "\"bartman\", out}, the binary profile of Bartman's VS Code extension; {overwrite} replaces "
            "a file at out.",
            {"path", "out", "format", "overwrite"}, [&e](const json& args) {
                const std::string format = params::string(args, "format");
                if (format != "bartman") fail(errc::InvalidParams, "format: expected \"bartman\"");
                const std::string out = params::string(args, "out");
                if (out.empty()) fail(errc::InvalidParams, "out: the file to write is empty");
                std::string path;
                if (args.contains("path")) {
                    path = params::string(args, "path");
                } else {
                    if (!e.capture) fail(errc::InvalidState, "profile.export: no capture has been made");
                    path = e.capture->statusJson().value("path", std::string());
                }
                if (e.capture && e.capture->status().active() &&
                    e.capture->statusJson().value("path", std::string()) == path)
                    fail(errc::InvalidState, "profile.export: the capture in " + path + " is still recording");
                try {
                    const BartmanProfile profile = bartmanProfileFromCapture(readCapture(path), e.machine->romBytes());
                    writeBartmanProfile(profile, out, params::boolean(args, "overwrite", false));
                    return json{{"path", path},
                                {"out", out},
                                {"format", format},
                                {"frames", profile.frames.size()},
                                {"bytes", std::filesystem::file_size(out)}};
                } catch (const std::exception& ex) {
                    fail(errc::HostIo, std::string("profile.export: ") + ex.what());
                }
            });
    bus.add("profile.status",
            "The capture's progress: state, frames written of the limit, bytes, trigger.",
            [&e](const json&) {
                if (!e.capture) return json{{"active", false}, {"state", "idle"}};
                return e.capture->statusJson();
            });
}

} // namespace copperline
