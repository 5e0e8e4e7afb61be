#pragma once

#include <QMainWindow>

namespace copperline {

class CommandBus;

// The desktop debugger's main window. Every action it takes is a command on the bus.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(CommandBus& bus, QWidget* parent = nullptr);

private:
    void showAbout();

    CommandBus& bus_;
};

} // namespace copperline
