#pragma once

#include <QMainWindow>

namespace copperline {

class Emulator;

// The desktop debugger's main window. Every action it takes is a command on the bus.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(Emulator& emulator, bool factory, QWidget* parent = nullptr);

private:
    void showAbout();

    Emulator& emulator_;
};

} // namespace copperline
