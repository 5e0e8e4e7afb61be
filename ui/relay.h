#pragma once

// Replies from the emulator thread to a widget. The emulator calls back on its own thread;
// a Relay posts the call to the widget's thread while the widget lives and drops it, under
// the same lock, once the widget is gone. The widget owns a shared_ptr to it, sets
// `target` to itself, and clears it in its destructor.

#include <QMetaObject>
#include <QObject>
#include <memory>
#include <mutex>

namespace copperline {

struct Relay {
    std::mutex mutex;
    QObject* target = nullptr;

    template <class F>
    void post(F f) {
        std::lock_guard lock(mutex);
        if (target) QMetaObject::invokeMethod(target, std::move(f), Qt::QueuedConnection);
    }
    void detach() {
        std::lock_guard lock(mutex);
        target = nullptr;
    }
};

} // namespace copperline
