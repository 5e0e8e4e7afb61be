// SPDX-License-Identifier: GPL-3.0-or-later
// The source of the targets that hold the precompiled headers the tests share
// (cmake/Precompiled.cmake). It has nothing of its own to compile.
