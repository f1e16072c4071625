// The one QApplication of the ui tests (offscreen unless QT_QPA_PLATFORM says otherwise).
#pragma once

#include <QApplication>
#include <QString>

namespace meeplecam::test {

QApplication& qt_app();
// A fresh empty folder under the temporary directory for one test.
QString fresh_dir(const QString& name);

}  // namespace meeplecam::test
