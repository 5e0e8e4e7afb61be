// SPDX-License-Identifier: GPL-3.0-or-later
// mintermFormula (profiler/capture/frame_capture.h): every one of the 256 minterms reads
// back as a formula with the same truth table (test_frame_capture checks the common ones
// read as the HRM writes them).

#ifndef Q_MOC_RUN
#include "profiler/capture/frame_capture.h"
#endif

#include <QtTest>
#include <string>

using namespace copperline;

namespace {

// Evaluates a formula of the form "AB+!AC" for inputs a, b, c (0 or 1).
bool evaluate(const std::string& f, unsigned a, unsigned b, unsigned c) {
    if (f == "0") return false;
    if (f == "1") return true;
    bool any = false, term = true, negate = false;
    for (char ch : f) {
        if (ch == '+') {
            any = any || term;
            term = true;
        } else if (ch == '!') {
            negate = true;
        } else {
            const unsigned v = ch == 'A' ? a : ch == 'B' ? b : c;
            term = term && (negate ? v == 0 : v == 1);
            negate = false;
        }
    }
    return any || term;
}

} // namespace

class TestMintermFormula : public QObject {
    Q_OBJECT
private slots:
    void everyMintermHasItsTruthTable() {
        for (unsigned lf = 0; lf < 256; ++lf) {
            const std::string f = mintermFormula(std::uint8_t(lf));
            for (unsigned m = 0; m < 8; ++m) {
                const bool want = (lf >> m) & 1;
                if (evaluate(f, m >> 2 & 1, m >> 1 & 1, m & 1) != want)
                    QFAIL(qPrintable(QStringLiteral("$%1 -> %2 is wrong for ABC=%3")
                                         .arg(lf, 2, 16, QLatin1Char('0'))
                                         .arg(QString::fromStdString(f))
                                         .arg(m, 3, 2, QLatin1Char('0'))));
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestMintermFormula)
#include "test_minterm_formula.moc"
