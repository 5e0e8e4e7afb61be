// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where the control socket lives, and the info file that tells clients where it is.
//
// The socket sits in a folder only its owner can enter: $XDG_RUNTIME_DIR/copperline when
// the runtime directory is usable (absolute, a directory, ours, closed to others), else
// /tmp/copperline-UID. The folder is created 0700, and refused when it is a symlink or
// belongs to someone else, so another user can neither reach the socket nor plant one.

#include <stdexcept>
#include <string>

namespace copperline {

class ControlPathError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

inline constexpr int kControlProtocolVersion = 1;

// The private folder, created (0700) if missing. Throws ControlPathError.
std::string controlDirectory();
// The socket path for NAME: letters, digits, '.', '_' and '-', 1 to 64 of them. Throws
// ControlPathError for another name or an unusable folder.
std::string controlSocketPath(const std::string& name);

// Writes {"socket", "name", "proto", "pid"} to FILE, readable by its owner only (0600),
// replacing any file there. Throws ControlPathError.
void writeControlInfo(const std::string& file, const std::string& socketPath,
                      const std::string& name);
// The socket path an info file names. Throws ControlPathError.
std::string readControlInfo(const std::string& file);

} // namespace copperline
