// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target for the control protocol's line handling (app/control/json_rpc,
// docs/testing.md): the input is a byte stream from a client. The framer splits it into
// lines (with a small line limit here, so overlong lines happen too); every line parses to a
// request or to the error reply it earned, and that reply, whatever bytes the line held, is
// one line of valid JSON. Nothing may throw.

#include "app/control/json_rpc.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>

using namespace copperline;

namespace {

void mustBeOneJsonLine(const std::string& line) {
    if (line.empty() || line.back() != '\n' || line.find('\n') != line.size() - 1 ||
        !nlohmann::json::accept(line)) {
        std::fprintf(stderr, "json_rpc_fuzzer: a reply is not one line of JSON: %s\n",
                     line.c_str());
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    rpc::LineFramer framer(256);
    // Fed in two pieces, as a socket may deliver it.
    const std::size_t cut = size ? data[0] % (size + 1) : 0;
    for (const std::string_view part : {bytes.substr(0, cut), bytes.substr(cut)})
        framer.feed(
            part,
            [](std::string_view line) {
                if (line.size() > 256) {
                    std::fprintf(stderr, "json_rpc_fuzzer: a line passed the limit\n");
                    std::abort();
                }
                auto parsed = rpc::parseRequest(line);
                if (auto* r = std::get_if<rpc::Rejection>(&parsed)) {
                    mustBeOneJsonLine(rpc::errorLine(r->id, r->code, r->message));
                    return;
                }
                auto& req = std::get<rpc::Request>(parsed);
                if (!req.params.is_object() || !(req.id.is_number() || req.id.is_string()))
                    std::abort();
                // The request echoed back as a result, with whatever strings it held.
                mustBeOneJsonLine(
                    rpc::resultLine(req.id, {{"method", req.method}, {"params", req.params}}));
                mustBeOneJsonLine(rpc::requestLine(req.id, req.method, req.params));
            },
            [] {});
    // The same bytes read whole, as one line.
    auto parsed = rpc::parseRequest(bytes);
    if (auto* r = std::get_if<rpc::Rejection>(&parsed))
        mustBeOneJsonLine(rpc::errorLine(r->id, r->code, r->message));
    return 0;
}
