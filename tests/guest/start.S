/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Bare-metal entry for test programs: reset has loaded SSP and PC from $0 and $4. Calls
 * guest_main, leaves its result in d0 and stops. */
    .section .text.start, "ax"
    .globl  _start
    .type   _start, @function
_start:
    jsr     guest_main
    stop    #0x2700
    bra.s   _start
    .size   _start, . - _start
