// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/params.h"

#include "emu/base64.h"

#include <cstdio>

#include <array>
#include <filesystem>

namespace copperline::params {

namespace {

[[noreturn]] void invalid(const std::string& message) {
    throw CommandError(errc::InvalidParams, message);
}

std::uint64_t parseText(const std::string& text, const char* key, std::uint64_t max) {
    std::string digits = text;
    unsigned base = 10;
    if (digits.starts_with("$")) {
        digits.erase(0, 1);
        base = 16;
    } else if (digits.starts_with("0x") || digits.starts_with("0X")) {
        digits.erase(0, 2);
        base = 16;
    }
    if (digits.empty() || digits.size() > 20)
        invalid(std::string(key) + ": '" + text + "' is not a number");
    std::uint64_t v = 0;
    for (const char c : digits) {
        unsigned d = 99;
        if (c >= '0' && c <= '9')
            d = unsigned(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = unsigned(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = unsigned(c - 'A' + 10);
        if (d >= base) invalid(std::string(key) + ": '" + text + "' is not a number");
        if (v > (max - d) / base)
            invalid(std::string(key) + ": " + text + " is above the limit " + std::to_string(max));
        v = v * base + d;
    }
    return v;
}

} // namespace

std::optional<std::int64_t> optionalSigned(const nlohmann::json& p, const char* key,
                                           std::int64_t min, std::int64_t max) {
    auto it = p.find(key);
    if (it == p.end() || it->is_null()) return std::nullopt;
    if (!it->is_number_integer()) invalid(std::string(key) + ": expected an integer");
    if (it->is_number_unsigned() && it->get<std::uint64_t>() > std::uint64_t(max))
        invalid(std::string(key) + ": must be at most " + std::to_string(max));
    const auto v = it->get<std::int64_t>();
    if (v < min || v > max)
        invalid(std::string(key) + ": must be from " + std::to_string(min) + " to " +
                std::to_string(max));
    return v;
}

std::optional<std::uint64_t> optionalNumber(const nlohmann::json& p, const char* key,
                                            std::uint64_t max) {
    auto it = p.find(key);
    if (it == p.end() || it->is_null()) return std::nullopt;
    std::uint64_t v = 0;
    if (it->is_number_unsigned())
        v = it->get<std::uint64_t>();
    else if (it->is_number_integer()) {
        const auto s = it->get<std::int64_t>();
        if (s < 0) invalid(std::string(key) + ": must not be negative");
        v = std::uint64_t(s);
    } else if (it->is_string())
        return parseText(it->get<std::string>(), key, max);
    else
        invalid(std::string(key) + ": expected a number or a \"0x\"/\"$\" hex string");
    if (v > max)
        invalid(std::string(key) + ": " + std::to_string(v) + " is above the limit " +
                std::to_string(max));
    return v;
}

std::uint64_t number(const nlohmann::json& p, const char* key, std::uint64_t max) {
    auto v = optionalNumber(p, key, max);
    if (!v) invalid(std::string("missing parameter: ") + key);
    return *v;
}

std::optional<std::string> optionalString(const nlohmann::json& p, const char* key) {
    auto it = p.find(key);
    if (it == p.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) invalid(std::string(key) + ": expected a string");
    return it->get<std::string>();
}

std::string string(const nlohmann::json& p, const char* key) {
    auto v = optionalString(p, key);
    if (!v) invalid(std::string("missing parameter: ") + key);
    return *v;
}

bool boolean(const nlohmann::json& p, const char* key, bool fallback) {
    auto it = p.find(key);
    if (it == p.end() || it->is_null()) return fallback;
    if (!it->is_boolean()) invalid(std::string(key) + ": expected true or false");
    return it->get<bool>();
}

std::string outputPath(const nlohmann::json& p, const char* key) {
    const std::string given = string(p, key);
    if (given.empty()) invalid(std::string(key) + ": an empty path");
    std::error_code ec;
    const std::filesystem::path path = std::filesystem::absolute(given, ec);
    if (ec) invalid(std::string(key) + ": " + given + ": " + ec.message());
    const bool overwrite = boolean(p, "overwrite", false);
    if (!overwrite && std::filesystem::exists(std::filesystem::symlink_status(path, ec)))
        throw CommandError(errc::HostIo,
                           path.string() + " exists; \"overwrite\": true writes over it");
    return path.lexically_normal().string();
}

std::string toHex(const std::uint8_t* data, std::size_t size) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(size * 2, '0');
    for (std::size_t i = 0; i < size; ++i) {
        out[2 * i] = digits[data[i] >> 4];
        out[2 * i + 1] = digits[data[i] & 15];
    }
    return out;
}

std::string encode(const std::vector<std::uint8_t>& bytes, const std::string& encoding) {
    if (encoding == "hex") return toHex(bytes.data(), bytes.size());
    if (encoding == "base64") return copperline::toBase64(bytes.data(), bytes.size());
    invalid("encoding: expected \"hex\" or \"base64\", not \"" + encoding + "\"");
}

std::vector<std::uint8_t> decode(const std::string& text, const std::string& encoding) {
    std::vector<std::uint8_t> out;
    if (encoding == "hex") {
        if (text.size() % 2) invalid("data: hex needs an even number of digits");
        out.reserve(text.size() / 2);
        auto nibble = [](char c) -> int {
            if (c >= '0' && c <= '9') return c - '0';
            if (c >= 'a' && c <= 'f') return c - 'a' + 10;
            if (c >= 'A' && c <= 'F') return c - 'A' + 10;
            return -1;
        };
        for (std::size_t i = 0; i < text.size(); i += 2) {
            const int hi = nibble(text[i]), lo = nibble(text[i + 1]);
            if (hi < 0 || lo < 0) invalid("data: not a hex string");
            out.push_back(std::uint8_t(hi << 4 | lo));
        }
        return out;
    }
    if (encoding == "base64") {
        auto bytes = fromBase64(text);
        if (!bytes) invalid("data: not a base64 string (its length must be a multiple of 4)");
        return std::move(*bytes);
    }
    invalid("encoding: expected \"hex\" or \"base64\", not \"" + encoding + "\"");
}

std::string latin1ToUtf8(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x80) {
            out += char(c);
        } else {
            out += char(0xC0 | (c >> 6));
            out += char(0x80 | (c & 0x3F));
        }
    }
    return out;
}

std::string hex64(std::uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
    return buf;
}

} // namespace copperline::params
