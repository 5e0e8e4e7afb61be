#pragma once

// Work made on the emulator thread (replies, notifications, stops) for a QObject that lives
// on the thread running the Qt event loop. The mailbox queues it under its lock and wakes
// the owner's thread with a queued call of the owner's Q_INVOKABLE drainMailbox() by name,
// which carries nothing: what crosses threads goes through the mutex, where
// ThreadSanitizer sees it, not through Qt's event queue, whose atomics it cannot see. Once
// the owner closes it (under the same lock), work posted later is dropped: nothing reaches
// freed memory. Posters hold it by weak_ptr.

#include <QMetaObject>
#include <deque>
#include <functional>
#include <mutex>

namespace copperline {

template <class Owner>
class ThreadMailbox {
public:
    explicit ThreadMailbox(Owner* owner) : owner_(owner) {}

    // Runs f(owner) on the owner's thread, if the owner is still there.
    void post(std::function<void(Owner*)> f) {
        std::lock_guard lock(mutex_);
        if (!owner_) return;
        queue_.push_back(std::move(f));
        if (queue_.size() > 1) return; // a wake-up is on its way
        QMetaObject::invokeMethod(owner_, "drainMailbox", Qt::QueuedConnection);
    }
    // On the owner's thread: everything posted so far, in order.
    void drain() {
        std::deque<std::function<void(Owner*)>> work;
        Owner* o = nullptr;
        {
            std::lock_guard lock(mutex_);
            work.swap(queue_);
            o = owner_;
        }
        if (!o) return;
        for (auto& f : work) f(o);
    }
    // The owner is going: later posts are dropped.
    void close() {
        std::lock_guard lock(mutex_);
        owner_ = nullptr;
        queue_.clear();
    }

private:
    std::mutex mutex_;
    Owner* owner_;
    std::deque<std::function<void(Owner*)>> queue_;
};

} // namespace copperline
