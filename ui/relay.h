#pragma once

// Replies from the emulator thread to a widget. The emulator calls back on its own thread;
// a Relay queues the call under its lock and wakes the widget's thread by invoking the
// target's `drainRelay()` (a Q_INVOKABLE that calls drain()) by name, queued: the event is
// made and freed inside Qt and carries nothing of ours, and what crosses threads goes
// through the mutex, where ThreadSanitizer sees it. It drops the calls, under the same
// lock, once the widget is gone. The widget owns a shared_ptr to it, sets `target` to
// itself, and clears it in its destructor.

#include <QMetaObject>
#include <QObject>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace copperline {

struct Relay {
    std::mutex mutex;
    QObject* target = nullptr;
    std::deque<std::function<void()>> queue;

    template <class F>
    void post(F f) {
        std::lock_guard lock(mutex);
        if (!target) return;
        queue.emplace_back(std::move(f));
        if (queue.size() > 1) return; // a wake-up is on its way
        QMetaObject::invokeMethod(target, "drainRelay", Qt::QueuedConnection);
    }
    // On the widget's thread: everything posted so far, in order.
    void drain() {
        std::deque<std::function<void()>> work;
        {
            std::lock_guard lock(mutex);
            if (!target) {
                queue.clear();
                return;
            }
            work.swap(queue);
        }
        for (auto& f : work) f();
    }
    void detach() {
        std::lock_guard lock(mutex);
        target = nullptr;
        queue.clear();
    }
};

} // namespace copperline
