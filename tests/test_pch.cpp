// SPDX-License-Identifier: GPL-3.0-or-later
// The target that holds the precompiled header every test shares (cmake/Precompiled.cmake).
// It has nothing of its own to compile.
