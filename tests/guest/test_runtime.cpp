// SPDX-License-Identifier: GPL-3.0-or-later
// The 68000 runtime's multiply and divide give the same answers as the host's: the guest
// program roundtrip.c runs bare metal on the emulated A500, and the same C source runs
// on the host; the checksums in D0 must agree.

#ifndef Q_MOC_RUN
#include "emu/machine.h"
#include "emu/media/file_bytes.h"
#endif

#include <QtTest>

extern "C" int guest_main(void);

using namespace copperline;

class TestRuntime : public QObject {
    Q_OBJECT
private slots:
    void guestAndHostAgree() {
        Machine m;
        m.bootBareMetal(readFileBytes(GUEST_ROUNDTRIP_BIN));
        for (int f = 0; f < 10 && !m.cpu().stopped(); ++f) m.runFrame();
        QVERIFY(m.cpu().stopped());
        const std::uint32_t d0 = m.cpu().registers().d[0];
        QCOMPARE(d0, std::uint32_t(guest_main()));
    }
};

QTEST_GUILESS_MAIN(TestRuntime)
#include "test_runtime.moc"
