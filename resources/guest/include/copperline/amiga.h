// SPDX-License-Identifier: GPL-3.0-or-later
/* A minimal AmigaOS interface for Copperline's guest programs: exec.library and
 * dos.library calls made through their library bases, with the register conventions of
 * the Amiga ROM Kernel Reference Manual (the argument registers each function documents;
 * D0/D1/A0/A1 are scratch). The calls are small assembly stubs in
 * resources/guest/amiga/amiga.S, callable from C.
 *
 * Programs start at _start in resources/guest/amiga/startup.S, which takes SysBase from
 * address 4, opens dos.library and calls main(); main's return value is the program's
 * return code (RETURN_OK 0, RETURN_WARN 5, RETURN_ERROR 10, RETURN_FAIL 20).
 */
#ifndef COPPERLINE_AMIGA_H
#define COPPERLINE_AMIGA_H

typedef long BPTR; /* a BCPL pointer: the address divided by four */
typedef long LONG;

extern void* SysBase;
extern void* DOSBase;
/* The argument line the shell passed (not NUL-terminated; ends with a newline). */
extern const char* __commandline;
extern long __commandlen;

/* exec.library */
void* OpenLibrary(const char* name, unsigned long version);
void CloseLibrary(void* library);
void* FindTask(const char* name);
/* Initializes a RomTag (exec/resident.h) of a segment list from LoadSeg: returns what its
 * rt_Init returned (a library's base), 0 on failure. */
void* InitResident(const void* resident, BPTR segList);
void* AllocMem(unsigned long size, unsigned long flags); /* MEMF_ANY 0, MEMF_CLEAR 0x10000 */
void FreeMem(void* memory, unsigned long size);
unsigned long AvailMem(unsigned long requirements); /* MEMF_ANY 0, MEMF_LARGEST 0x20000 */
/* exec's struct Interrupt: a Node (14 bytes), is_Data, is_Code. A server of an interrupt
 * chain (AddIntServer; INTB_VERTB 5) gets is_Data in A1 and returns Z set (D0 = 0) so that
 * the servers after it run too. */
struct Interrupt {
    void *succ, *pred;
    unsigned char type, pri; /* type: NT_INTERRUPT 2 */
    const char* name;
    void* data;
    void* code;
} __attribute__((packed));
void AddIntServer(unsigned long number, struct Interrupt* interrupt);
void RemIntServer(unsigned long number, struct Interrupt* interrupt);

/* dos.library */
BPTR Output(void);
BPTR Input(void);
LONG Write(BPTR file, const void* buffer, LONG length);
LONG IoErr(void);
BPTR LoadSeg(const char* name);
void UnLoadSeg(BPTR segment);
LONG RunCommand(BPTR segment, LONG stack, const char* args, LONG length);
void Delay(LONG ticks); /* 50 ticks a second */
/* dos/dos.h's DateStamp: days since 1 January 1978, minutes past midnight, ticks (50 a
 * second) into the minute. Fills in `date` from the system time and returns it. */
struct DateStamp {
    LONG days, minute, tick;
};
struct DateStamp* DateStamp(struct DateStamp* date);
/* Starts a process running segList's first segment; returns its message port, 0 on
 * failure. The segments stay loaded when it ends. */
void* CreateProc(const char* name, LONG pri, BPTR segList, LONG stackSize);
BPTR Open(const char* name, LONG mode); /* MODE_OLDFILE 1005, MODE_NEWFILE 1006 */
void Close(BPTR file);
LONG Read(BPTR file, void* buffer, LONG length);

/* A line of output without printf (amiga/text.c): each writes at line[n], returns the next n. */
unsigned text_put(char* line, unsigned n, const char* s);
unsigned text_put_hex(char* line, unsigned n, unsigned long v); /* "$XXXXXXXX" */
unsigned text_put_decimal(char* line, unsigned n, unsigned long v);

int main(void);

#endif
