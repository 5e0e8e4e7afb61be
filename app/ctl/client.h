// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// copperline-ctl as the client of a running Copperline's control socket
// (docs/control-protocol.md):
//
//   copperline-ctl [--info FILE | --socket NAME] [--timeout SECONDS] [--hex | --raw] METHOD [JSON]
//   copperline-ctl [--info FILE | --socket NAME] [--hex | --raw] --repl
//
// One call prints its result as JSON and exits 0, or prints the error and exits 1; 3
// means the emulator could not be reached. The REPL reads `METHOD [JSON]` lines and prints
// every reply and notification as one JSON line as it arrives. With --hex (the default
// when stdout is a terminal) addresses and registers print as "$00FC0F2A" strings; with
// --raw (the default into a pipe or file) as the protocol's numbers, for scripts.

namespace copperline::ctl {

// argv holds everything after the program name.
int controlClient(int argc, char** argv);

// Whether an argument starts a client invocation rather than an offline subcommand.
bool isClientOption(const char* arg);

} // namespace copperline::ctl
