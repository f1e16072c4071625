// Worker threads of the windows (the match worker, the photo worker): a QObject moved to its
// own QThread. Stopping one never waits for it: the GUI thread goes on at once, the thread
// finishes what was queued on it and cleans up after itself.
#pragma once

class QObject;
class QThread;

namespace meeplecam::ui {

// Asks `thread` to quit behind the requests already queued on `worker` (a move or a save sent
// just before closing still runs); `worker` is deleted on its thread as the thread finishes,
// the QThread itself on the GUI thread (or by wait_for_stopped_workers). Returns at once;
// signals the worker sends meanwhile reach only receivers still alive. Call on the GUI thread;
// both pointers are the callee's from then on (a thread not running is deleted at once, with its worker).
void stop_worker_thread(QThread* thread, QObject* worker);

// Waits until every worker thread asked to stop has finished and deletes those QThreads (at
// the end of a program or a test, off the event loop, on the GUI thread). Returns false if one
// is still running after `ms`.
bool wait_for_stopped_workers(int ms = 5000);

}  // namespace meeplecam::ui
