#pragma once

// The host calls guest programs make (docs/guest-api.md): writes to the reserved window
// $F7FF00-$F7FFFF, which the A500 leaves undecoded. The Machine hands every CPU access to
// that window here. What the guest tells us is kept in a form the control protocol and
// the profiler read: idle colour clocks per frame, log messages, registered resources
// (bitmaps, palettes, copper lists), and the --run loader's events.
//
// Registers (word offsets from $F7FF00; longwords may arrive high word first or low word
// first, and act when both halves are written):
//   $00 R  magic $434C ("CL")        $02 R  interface version (1)
//   $10 W  word: 1 idle starts, 0 idle stops
//   $20 W  long: address of a NUL-terminated log message
//   $30 W  long: address of a resource record (kind, address, size, width, height,
//          depth, bytes per row, name pointer: 24 bytes)
//   $40 W  long: address of a run event (event, a, b, c: 16 bytes)

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace copperline {

class Archive;

class GuestApi {
public:
    static constexpr std::uint32_t kBase = 0xF7FF00;
    static constexpr std::uint16_t kMagic = 0x434C;
    static constexpr std::uint16_t kVersion = 1;
    static constexpr std::size_t kMaxLogLength = 1024;
    static constexpr std::size_t kMaxNameLength = 63;
    static constexpr std::size_t kMaxResources = 4096;

    static bool decodes(std::uint32_t address) { return (address & 0xFFFF00) == kBase; }

    enum class ResourceKind : std::uint32_t { Remove = 0, Bitmap = 1, Palette = 2, Copper = 3 };
    struct Resource {
        ResourceKind kind = ResourceKind::Bitmap;
        std::uint32_t address = 0, size = 0;
        std::uint16_t width = 0, height = 0, depth = 0, bytesPerRow = 0;
        std::string name;
        std::uint64_t frame = 0; // the frame it was registered in
    };
    enum class RunEvent : std::uint32_t { Started = 1, Loaded = 2, LoadFailed = 3, Exited = 4 };
    struct RunMessage {
        RunEvent event = RunEvent::Started;
        std::uint32_t a = 0, b = 0, c = 0;
        std::uint64_t cck = 0;
    };
    struct LogMessage {
        std::string text;
        std::uint64_t frame = 0, cck = 0;
    };

    // How the interface reads guest memory (the Machine's side-effect-free spyByte).
    void setMemoryReader(std::function<std::uint8_t(std::uint32_t)> read) {
        read_ = std::move(read);
    }
    // Called for each log message and run event as it arrives (optional).
    void setLogSink(std::function<void(const LogMessage&)> sink) { logSink_ = std::move(sink); }
    void setRunHandler(std::function<void(const RunMessage&)> handler) {
        runHandler_ = std::move(handler);
    }

    // A CPU access to the window at colour clock `cck` in frame `frame`.
    std::uint16_t read(std::uint32_t address) const;
    void write(std::uint32_t address, std::uint16_t data, bool upper, bool lower, std::uint64_t cck,
               std::uint64_t frame);

    // Frame accounting: the Machine calls this as each frame is committed.
    void frameCommitted(std::uint64_t frame, std::uint64_t cck);

    bool idle() const { return idle_; }
    // Idle colour clocks of the last committed frame, and whether the guest marked any
    // idle time at all (the profiler then counts busy clocks as the frame minus these).
    std::uint64_t lastFrameIdleCck() const { return lastFrameIdle_; }
    bool idleMarkersSeen() const { return idleSeen_; }

    const std::vector<Resource>& resources() const { return resources_; }
    const std::vector<LogMessage>& log() const { return log_; }
    const std::vector<RunMessage>& runMessages() const { return run_; }

    void reset();
    void serialize(Archive& ar);

private:
    std::string readString(std::uint32_t address, std::size_t max) const;
    std::uint32_t readLong(std::uint32_t address) const;
    std::uint16_t readWord(std::uint32_t address) const;
    void command(unsigned reg, std::uint32_t value, std::uint64_t cck, std::uint64_t frame);

    std::function<std::uint8_t(std::uint32_t)> read_;
    std::function<void(const LogMessage&)> logSink_;
    std::function<void(const RunMessage&)> runHandler_;

    // Longword registers being assembled: halves written so far (bit 0 high, bit 1 low).
    struct Latch {
        std::uint16_t high = 0, low = 0;
        std::uint8_t halves = 0;
    };
    Latch latches_[16]{};

    bool idle_ = false, idleSeen_ = false;
    std::uint64_t idleSince_ = 0;  // colour clock idle started (while idle_)
    std::uint64_t frameIdle_ = 0;  // idle clocks of the frame in progress, closed spans
    std::uint64_t frameStart_ = 0; // colour clock the frame in progress started
    std::uint64_t lastFrameIdle_ = 0;

    std::vector<Resource> resources_;
    std::vector<LogMessage> log_;
    std::vector<RunMessage> run_;
};

} // namespace copperline
