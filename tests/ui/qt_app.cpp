#include "tests/ui/qt_app.h"

#define CATCH_CONFIG_EXTERNAL_INTERFACES  // the listener below
#include <catch2/catch.hpp>

#include <QDeadlineTimer>
#include <QDir>
#include <QHash>
#include <QStandardPaths>

#include <cstdlib>

#include "ui/frame_source.h"
#include "ui/match_worker.h"
#include "ui/worker_thread.h"

namespace meeplecam::test {

QApplication& qt_app() {
    static int argc = 1;
    static char name[] = "ui_tests";
    static char* argv[] = {name, nullptr};
    if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
    QStandardPaths::setTestModeEnabled(true);  // QSettings and app data go to a test location
    // Never destroyed: a QApplication torn down by the exit handlers, after Qt's own statics,
    // crashes in ~QPointingDevice once a window was shown.
    static QApplication* instance = new QApplication(argc, argv);
    ui::register_meta_types();
    return *instance;
}

bool wait_until(const std::function<bool()>& done, int timeout_ms) {
    const QDeadlineTimer deadline(timeout_ms);
    while (!done()) {
        if (deadline.hasExpired()) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
    return true;
}

QString fresh_dir(const QString& name) {
    // One tree per build folder: test runs of two checkouts (or a plain and a sanitizer build)
    // at the same time must not wipe each other's files.
    const QString build = QString::number(qHash(QStringLiteral(MEEPLECAM_BINARY_DIR)), 16);
    QDir dir(QDir::tempPath() + "/meeplecam_ui_test/" + build + "/" + name);
    dir.removeRecursively();
    dir.mkpath(".");
    return dir.absolutePath();
}

namespace {

// After every test case: the capture and match threads its windows left finishing are waited
// for (off the event loop), so none still runs into the next test case or the process's end.
struct WorkerThreadsJoined : Catch::TestEventListenerBase {
    using TestEventListenerBase::TestEventListenerBase;
    void testCaseEnded(const Catch::TestCaseStats&) override {
        if (!QCoreApplication::instance()) return;
        ui::wait_for_stopped_captures();
        ui::wait_for_stopped_workers();
    }
};
CATCH_REGISTER_LISTENER(WorkerThreadsJoined)

}  // namespace

}  // namespace meeplecam::test
