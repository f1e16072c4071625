#include "ui/worker_thread.h"

#include <QDeadlineTimer>
#include <QObject>
#include <QPointer>
#include <QThread>

#include <algorithm>
#include <vector>

namespace meeplecam::ui {
namespace {

// Worker threads asked to stop and not yet deleted (touched on the GUI thread only).
std::vector<QPointer<QThread>>& stopping_threads() {
    static std::vector<QPointer<QThread>> threads;
    return threads;
}

void forget_deleted(std::vector<QPointer<QThread>>& threads) {
    threads.erase(std::remove_if(threads.begin(), threads.end(), [](const QPointer<QThread>& t) { return t.isNull(); }), threads.end());
}

}  // namespace

void stop_worker_thread(QThread* thread, QObject* worker) {
    if (!thread->isRunning()) {  // never started or already over: nothing runs there
        delete worker;
        delete thread;
        return;
    }
    // finished is emitted on the worker's thread: the worker's deferred delete runs there as
    // the thread finishes; the QThread is deleted on the GUI thread.
    QObject::connect(thread, &QThread::finished, worker, &QObject::deleteLater);
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    QMetaObject::invokeMethod(worker, [thread] { thread->quit(); }, Qt::QueuedConnection);
    auto& stopping = stopping_threads();
    forget_deleted(stopping);
    stopping.emplace_back(thread);
}

bool wait_for_stopped_workers(int ms) {
    QDeadlineTimer deadline(ms);
    bool all = true;
    auto& stopping = stopping_threads();
    for (QPointer<QThread>& t : stopping) {
        if (!t) continue;
        if (t->wait(deadline)) {
            delete t.data();  // finished: its pending deferred delete goes with it
        } else {
            all = false;
        }
    }
    forget_deleted(stopping);
    return all;
}

}  // namespace meeplecam::ui
