#pragma once

// `copperline --profile DIR`: boot as usual, start a per-frame capture (at power-on or
// after --profile-after SECONDS), run unpaced and exit when it completes. The options are
// profile.start's (app/control/capture_options.h), from --profile-options JSON, with
// --profile and --profile-frames for the two everybody sets.

class QCommandLineParser;

namespace copperline {

class Machine;

void addProfileOptions(QCommandLineParser& parser);
bool wantsProfile(int argc, char** argv);
// Runs the capture; returns the exit status (0 done, 1 the capture failed, 2 bad options).
int runProfileFromCommandLine(const QCommandLineParser& parser, Machine& machine);

} // namespace copperline
