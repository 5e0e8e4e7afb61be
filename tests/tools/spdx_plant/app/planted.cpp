// SPDX-License-Identifier: GPL-3.0-or-later
// A source file without its licence line, which the check must catch.
int planted;
