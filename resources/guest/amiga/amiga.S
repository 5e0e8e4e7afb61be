/* SPDX-License-Identifier: GPL-3.0-or-later */
/* exec.library and dos.library calls for C: each stub moves its stack arguments into the
 * registers the function takes and calls the library's vector (negative offsets from the
 * base, the _LVO values of the ROM Kernel Manual's includes). C keeps D2-D7/A2-A6 across
 * calls, so the stubs save the ones they load. The library returns in D0; GCC's m68k
 * ELF ABI returns a pointer in A0, so the stubs of functions returning one copy D0 there. */

    .text

/* void* OpenLibrary(const char* name, unsigned long version)  a1, d0 */
    .globl  OpenLibrary
OpenLibrary:
    move.l  %a6,-(%sp)
    movea.l SysBase,%a6
    movea.l 8(%sp),%a1
    move.l  12(%sp),%d0
    jsr     -552(%a6)
    movea.l %d0,%a0
    movea.l (%sp)+,%a6
    rts

/* void CloseLibrary(void* library)  a1 */
    .globl  CloseLibrary
CloseLibrary:
    move.l  %a6,-(%sp)
    movea.l SysBase,%a6
    movea.l 8(%sp),%a1
    jsr     -414(%a6)
    movea.l (%sp)+,%a6
    rts

/* void* FindTask(const char* name)  a1 */
    .globl  FindTask
FindTask:
    move.l  %a6,-(%sp)
    movea.l SysBase,%a6
    movea.l 8(%sp),%a1
    jsr     -294(%a6)
    movea.l %d0,%a0
    movea.l (%sp)+,%a6
    rts

/* void* InitResident(const void* resident, BPTR segList)  a1, d1 */
    .globl  InitResident
InitResident:
    move.l  %a6,-(%sp)
    movea.l SysBase,%a6
    movea.l 8(%sp),%a1
    move.l  12(%sp),%d1
    jsr     -102(%a6)
    movea.l %d0,%a0
    movea.l (%sp)+,%a6
    rts

/* void* AllocMem(unsigned long size, unsigned long flags)  d0-d1 */
    .globl  AllocMem
AllocMem:
    move.l  %a6,-(%sp)
    movea.l SysBase,%a6
    movem.l 8(%sp),%d0-%d1
    jsr     -198(%a6)
    movea.l %d0,%a0
    movea.l (%sp)+,%a6
    rts

/* void FreeMem(void* memory, unsigned long size)  a1, d0 */
    .globl  FreeMem
FreeMem:
    move.l  %a6,-(%sp)
    movea.l SysBase,%a6
    movea.l 8(%sp),%a1
    move.l  12(%sp),%d0
    jsr     -210(%a6)
    movea.l (%sp)+,%a6
    rts

/* unsigned long AvailMem(unsigned long requirements)  d1 */
    .globl  AvailMem
AvailMem:
    move.l  %a6,-(%sp)
    movea.l SysBase,%a6
    move.l  8(%sp),%d1
    jsr     -216(%a6)
    movea.l (%sp)+,%a6
    rts

/* void AddIntServer(unsigned long intNumber, struct Interrupt* interrupt)  d0, a1 */
    .globl  AddIntServer
AddIntServer:
    move.l  %a6,-(%sp)
    movea.l SysBase,%a6
    move.l  8(%sp),%d0
    movea.l 12(%sp),%a1
    jsr     -168(%a6)
    movea.l (%sp)+,%a6
    rts

/* void RemIntServer(unsigned long intNumber, struct Interrupt* interrupt)  d0, a1 */
    .globl  RemIntServer
RemIntServer:
    move.l  %a6,-(%sp)
    movea.l SysBase,%a6
    move.l  8(%sp),%d0
    movea.l 12(%sp),%a1
    jsr     -174(%a6)
    movea.l (%sp)+,%a6
    rts

/* BPTR Output(void) */
    .globl  Output
Output:
    move.l  %a6,-(%sp)
    movea.l DOSBase,%a6
    jsr     -60(%a6)
    movea.l (%sp)+,%a6
    rts

/* BPTR Input(void) */
    .globl  Input
Input:
    move.l  %a6,-(%sp)
    movea.l DOSBase,%a6
    jsr     -54(%a6)
    movea.l (%sp)+,%a6
    rts

/* LONG IoErr(void) */
    .globl  IoErr
IoErr:
    move.l  %a6,-(%sp)
    movea.l DOSBase,%a6
    jsr     -132(%a6)
    movea.l (%sp)+,%a6
    rts

/* LONG Write(BPTR file, const void* buffer, LONG length)  d1, d2, d3 */
    .globl  Write
Write:
    movem.l %d2-%d3/%a6,-(%sp)
    movea.l DOSBase,%a6
    movem.l 16(%sp),%d1-%d3
    jsr     -48(%a6)
    movem.l (%sp)+,%d2-%d3/%a6
    rts

/* BPTR LoadSeg(const char* name)  d1 */
    .globl  LoadSeg
LoadSeg:
    move.l  %a6,-(%sp)
    movea.l DOSBase,%a6
    move.l  8(%sp),%d1
    jsr     -150(%a6)
    movea.l (%sp)+,%a6
    rts

/* void UnLoadSeg(BPTR segment)  d1 */
    .globl  UnLoadSeg
UnLoadSeg:
    move.l  %a6,-(%sp)
    movea.l DOSBase,%a6
    move.l  8(%sp),%d1
    jsr     -156(%a6)
    movea.l (%sp)+,%a6
    rts

/* void Delay(LONG ticks)  d1 */
    .globl  Delay
Delay:
    move.l  %a6,-(%sp)
    movea.l DOSBase,%a6
    move.l  8(%sp),%d1
    jsr     -198(%a6)
    movea.l (%sp)+,%a6
    rts

/* struct DateStamp* DateStamp(struct DateStamp* date)  d1 */
    .globl  DateStamp
DateStamp:
    move.l  %a6,-(%sp)
    movea.l DOSBase,%a6
    move.l  8(%sp),%d1
    jsr     -192(%a6)
    movea.l (%sp)+,%a6
    rts

/* void* CreateProc(const char* name, LONG pri, BPTR segList, LONG stackSize)  d1-d4 */
    .globl  CreateProc
CreateProc:
    movem.l %d2-%d4/%a6,-(%sp)
    movea.l DOSBase,%a6
    movem.l 20(%sp),%d1-%d4
    jsr     -138(%a6)
    movea.l %d0,%a0
    movem.l (%sp)+,%d2-%d4/%a6
    rts

/* LONG RunCommand(BPTR segment, LONG stack, const char* args, LONG length)  d1-d4 */
    .globl  RunCommand
RunCommand:
    movem.l %d2-%d4/%a6,-(%sp)
    movea.l DOSBase,%a6
    movem.l 20(%sp),%d1-%d4
    jsr     -504(%a6)
    movem.l (%sp)+,%d2-%d4/%a6
    rts

/* BPTR Open(const char* name, LONG mode)  d1-d2 */
    .globl  Open
Open:
    movem.l %d2/%a6,-(%sp)
    movea.l DOSBase,%a6
    movem.l 12(%sp),%d1-%d2
    jsr     -30(%a6)
    movem.l (%sp)+,%d2/%a6
    rts

/* void Close(BPTR file)  d1 */
    .globl  Close
Close:
    move.l  %a6,-(%sp)
    movea.l DOSBase,%a6
    move.l  8(%sp),%d1
    jsr     -36(%a6)
    movea.l (%sp)+,%a6
    rts

/* LONG Read(BPTR file, void* buffer, LONG length)  d1-d3 */
    .globl  Read
Read:
    movem.l %d2-%d3/%a6,-(%sp)
    movea.l DOSBase,%a6
    movem.l 16(%sp),%d1-%d3
    jsr     -42(%a6)
    movem.l (%sp)+,%d2-%d3/%a6
    rts
