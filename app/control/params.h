// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reading command parameters: every mistake is a CommandError with InvalidParams that
// names the parameter, so a client learns what to fix.

#include "app/control/command_bus.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace copperline::params {

// An unsigned number: a JSON integer, or a string in decimal, "0x1F" or "$1F" (the
// Amiga's own notation). Throws InvalidParams when absent, of another type or above max.
std::uint64_t number(const nlohmann::json& p, const char* key, std::uint64_t max = 0xFFFFFFFFu);
std::optional<std::uint64_t> optionalNumber(const nlohmann::json& p, const char* key,
                                            std::uint64_t max = 0xFFFFFFFFu);
// A signed JSON integer in [min, max]; nullopt when absent.
std::optional<std::int64_t> optionalSigned(const nlohmann::json& p, const char* key,
                                           std::int64_t min, std::int64_t max);
std::string string(const nlohmann::json& p, const char* key);
std::optional<std::string> optionalString(const nlohmann::json& p, const char* key);
bool boolean(const nlohmann::json& p, const char* key, bool fallback);
// A file a command is about to write: made absolute (a relative path is the server's
// working folder's; copperline-ctl sends absolute ones), and refused with HostIo when
// something is already there unless the command's "overwrite" is true, so that no
// command replaces a user's file unasked.
std::string outputPath(const nlohmann::json& p, const char* key);

// Bytes as hex ("4e75") or base64; throws InvalidParams on a malformed string.
std::vector<std::uint8_t> decode(const std::string& text, const std::string& encoding);
std::string encode(const std::vector<std::uint8_t>& bytes, const std::string& encoding);
std::string toHex(const std::uint8_t* data, std::size_t size);
// A 64-bit value as 0x and 16 hex digits (state hashes).
std::string hex64(std::uint64_t v);
// Guest text (the Amiga's character set is ISO 8859-1) as JSON's UTF-8.
std::string latin1ToUtf8(const std::string& text);

} // namespace copperline::params
