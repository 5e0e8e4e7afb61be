// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/control/socket_path.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace copperline {

namespace {

// A directory we own that nobody else may enter.
bool privateDirectory(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return false;
    return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 077) == 0;
}

// Creates (or checks and tightens) our folder: a real directory, ours, mode 0700.
void ensureOwnFolder(const std::string& path) {
    if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        throw ControlPathError(path + ": " + std::strerror(errno));
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) throw ControlPathError(path + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode))
        throw ControlPathError(path + ": not a directory (refusing a symlink or a file)");
    if (st.st_uid != ::geteuid()) throw ControlPathError(path + ": belongs to another user");
    if ((st.st_mode & 0777) != 0700 && ::chmod(path.c_str(), 0700) != 0)
        throw ControlPathError(path + ": " + std::strerror(errno));
}

} // namespace

std::string controlDirectory() {
    const char* xdg = std::getenv("XDG_RUNTIME_DIR");
    std::string dir;
    if (xdg && xdg[0] == '/' && privateDirectory(xdg))
        dir = std::string(xdg) + "/copperline";
    else
        dir = "/tmp/copperline-" + std::to_string(::geteuid());
    ensureOwnFolder(dir);
    return dir;
}

std::string controlSocketPath(const std::string& name) {
    if (name.empty() || name.size() > 64)
        throw ControlPathError("control socket name must have 1 to 64 characters");
    for (const char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
            throw ControlPathError("control socket name '" + name +
                                   "': use letters, digits, '.', '_' and '-'");
    if (name == "." || name == "..")
        throw ControlPathError("control socket name '" + name + "' is not a name");
    return controlDirectory() + "/" + name;
}

void writeControlInfo(const std::string& file, const std::string& socketPath,
                      const std::string& name) {
    const std::string text = nlohmann::json{{"socket", socketPath},
                                            {"name", name},
                                            {"proto", kControlProtocolVersion},
                                            {"pid", ::getpid()}}
                                 .dump() +
                             "\n";
    const std::string tmp = file + ".tmp";
    ::unlink(tmp.c_str());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) throw ControlPathError(file + ": " + std::strerror(errno));
    // The umask may only take bits away; say 0600 explicitly all the same.
    bool ok =
        ::fchmod(fd, 0600) == 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size());
    ok = ::close(fd) == 0 && ok;
    if (!ok || ::rename(tmp.c_str(), file.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmp.c_str());
        throw ControlPathError(file + ": " + why);
    }
}

std::string readControlInfo(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw ControlPathError(file + ": cannot read the control info file");
    std::stringstream ss;
    ss << in.rdbuf();
    const auto j = nlohmann::json::parse(ss.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("socket") || !j["socket"].is_string())
        throw ControlPathError(file + ": not a control info file (no \"socket\")");
    return j["socket"].get<std::string>();
}

} // namespace copperline
