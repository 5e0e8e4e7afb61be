// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// copperline-ctl --dap (the Debug Adapter Protocol on stdin and stdout, one session) and
// --dap-listen PORT (on 127.0.0.1:PORT, a session for each connection, until ended). PORT 0
// takes a free port; either way the port is printed on stderr:
//   copperline-ctl: Debug Adapter Protocol on 127.0.0.1:PORT
// docs/dap.md.

namespace copperline::dap {

// argv holds "--dap" or "--dap-listen PORT" and nothing after them.
int serve(int argc, char** argv);

// Whether an argument starts the adapter.
bool isDapOption(const char* arg);

} // namespace copperline::dap
