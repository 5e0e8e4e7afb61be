// The source-level debugger over the socket (docs/debugger.md): placeholder while it grows.
#include "tests/integration/served.h"
class TestDebugger : public QObject {
    Q_OBJECT
private slots:
    void placeholder() {}
};
QTEST_GUILESS_MAIN(TestDebugger)
#include "test_debugger.moc"
