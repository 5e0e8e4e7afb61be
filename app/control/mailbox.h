// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Work made on the emulator thread (replies, notifications, stops) for a QObject that lives
// on the thread running the Qt event loop: the control server, the GDB stub's server, the
// window. The mailbox queues it under its lock and wakes the owner's thread with a queued
// call of the owner's Q_INVOKABLE drainMailbox() (which calls drain()) by name, which
// carries nothing: the event is made and freed inside Qt, and what crosses threads goes
// through the mutex, where ThreadSanitizer sees it, not through Qt's event queue, whose
// atomics it cannot see. Once the owner closes it (in its destructor, under the same lock),
// work posted later is dropped, so nothing reaches freed memory: work may use the owner.
// Posters hold the mailbox by weak_ptr.

#include <QMetaObject>
#include <QObject>
#include <deque>
#include <functional>
#include <mutex>

namespace copperline {

class ThreadMailbox {
public:
    explicit ThreadMailbox(QObject* owner) : owner_(owner) {}

    // Runs f on the owner's thread, if the owner is still there.
    void post(std::function<void()> f) {
        std::lock_guard lock(mutex_);
        if (!owner_) return;
        queue_.push_back(std::move(f));
        if (queue_.size() > 1) return; // a wake-up is on its way
        QMetaObject::invokeMethod(owner_, "drainMailbox", Qt::QueuedConnection);
    }
    // On the owner's thread: everything posted so far, in order.
    void drain() {
        std::deque<std::function<void()>> work;
        {
            std::lock_guard lock(mutex_);
            if (!owner_) {
                queue_.clear();
                return;
            }
            work.swap(queue_);
        }
        for (auto& f : work) f();
    }
    // The owner is going: later posts are dropped.
    void close() {
        std::lock_guard lock(mutex_);
        owner_ = nullptr;
        queue_.clear();
    }

private:
    std::mutex mutex_;
    QObject* owner_;
    std::deque<std::function<void()>> queue_;
};

} // namespace copperline
