// The one QApplication of the ui tests (offscreen unless QT_QPA_PLATFORM says otherwise).
#pragma once

#include <QApplication>
#include <QString>

#include <functional>

namespace meeplecam::test {

QApplication& qt_app();
// A fresh empty folder under the temporary directory for one test.
QString fresh_dir(const QString& name);
// Processes Qt events until `done` holds or `timeout_ms` passes; returns whether it held.
// Use it as REQUIRE(wait_until(...)): QTest's QTRY_* macros only `return` from the function
// when they fail outside QTest::qExec, so under Catch a failed wait would pass silently.
bool wait_until(const std::function<bool()>& done, int timeout_ms);

}  // namespace meeplecam::test
