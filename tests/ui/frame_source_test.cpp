// FrameSource: frames from an image folder on a worker thread; a folder that disappears
// mid-run is reported lost, retried, and reading resumes where it stopped; stopping never
// waits for the capture thread.
#include <catch2/catch.hpp>

#include <QDir>
#include <QElapsedTimer>
#include <QPointer>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "tests/ui/qt_app.h"
#include "ui/frame_source.h"

using namespace meeplecam;
using ui::FrameSource;

namespace {

// Writes `count` numbered 64x48 frames (the number drawn as grey level 10 * i) into `dir`.
void write_frames(const QString& dir, int count) {
    for (int i = 0; i < count; ++i) {
        cv::Mat img(48, 64, CV_8UC3, cv::Scalar(10 * i, 10 * i, 10 * i));
        cv::imwrite(QString("%1/frame_%2.png").arg(dir).arg(i, 3, 10, QChar('0')).toStdString(), img);
    }
}

}  // namespace

TEST_CASE("frame source options refuse impossible values", "[ui][capture]") {
    ui::FrameSourceOptions o;
    o.path = "x";
    CHECK(o.check());
    o.fps = 0;
    CHECK_FALSE(o.check());
    o.fps = 10;
    o.path.clear();
    CHECK_FALSE(o.check());
    o.kind = ui::FrameSourceOptions::Kind::Camera;
    CHECK(o.check());
    o.camera = -1;
    CHECK_FALSE(o.check());
}

TEST_CASE("an image folder is read in order on the capture thread", "[ui][capture]") {
    test::qt_app();
    const QString dir = test::fresh_dir("frames_in_order");
    write_frames(dir, 6);
    ui::FrameSourceOptions o;
    o.path = dir.toStdString();
    o.fps = 100;
    ui::CaptureThread capture(o);
    std::vector<int> grey;
    std::vector<std::int64_t> index;
    QObject receiver;
    QObject::connect(capture.source(), &FrameSource::frame_ready, &receiver, [&](const ui::Frame& f) {
        CHECK(QThread::currentThread() == receiver.thread());  // queued to the receiver's (GUI) thread
        grey.push_back(f.image.at<cv::Vec3b>(0, 0)[0]);
        index.push_back(f.index);
    });
    QSignalSpy states(capture.source(), &FrameSource::state_changed);
    capture.start();
    REQUIRE(test::wait_until([&] { return grey.size() == 6; }, 5000));
    REQUIRE(test::wait_until([&] { return !states.isEmpty() && states.last().at(0).value<FrameSource::State>() == FrameSource::State::Ended; }, 5000));
    CHECK(grey == std::vector<int>{0, 10, 20, 30, 40, 50});
    CHECK(index == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5});
    capture.stop();
}

TEST_CASE("a source that disappears is reported lost, retried and resumed", "[ui][capture]") {
    test::qt_app();
    const QString dir = test::fresh_dir("frames_lost");
    write_frames(dir, 20);
    ui::FrameSourceOptions o;
    o.path = dir.toStdString();
    o.fps = 50;
    o.reconnect_ms = 50;
    o.lost_after_failures = 1;
    ui::CaptureThread capture(o);
    std::vector<int> grey;
    QObject receiver;
    QObject::connect(capture.source(), &FrameSource::frame_ready, &receiver,
                     [&](const ui::Frame& f) { grey.push_back(f.image.at<cv::Vec3b>(0, 0)[0]); });
    QStringList messages;
    QList<FrameSource::State> states;
    QObject::connect(capture.source(), &FrameSource::state_changed, &receiver, [&](FrameSource::State s, const QString& m) {
        states << s;
        messages << m;
    });
    capture.start();
    REQUIRE(test::wait_until([&] { return grey.size() >= 3; }, 5000));
    // Unplug: the folder goes away mid-run.
    REQUIRE(QDir().rename(dir, dir + "_gone"));
    REQUIRE(test::wait_until([&] { return states.contains(FrameSource::State::Lost); }, 5000));
    CHECK(std::any_of(messages.begin(), messages.end(), [](const QString& m) { return m.contains("camera lost — reconnecting"); }));
    const std::size_t seen_before = grey.size();
    QTest::qWait(300);  // several reconnection attempts fail meanwhile
    CHECK(grey.size() == seen_before);
    // Plug back in: reading resumes where it stopped, nothing read twice, up to the end.
    REQUIRE(QDir().rename(dir + "_gone", dir));
    REQUIRE(test::wait_until([&] { return states.last() == FrameSource::State::Ended; }, 5000));
    CHECK(states.count(FrameSource::State::Running) >= 2);  // started, and back after the loss
    REQUIRE(grey.size() == 20);
    for (std::size_t i = 0; i < grey.size(); ++i) CHECK(grey[i] == static_cast<int>(10 * i) % 256);
    capture.stop();
}

TEST_CASE("stopping capture never waits for the capture thread, which stops and goes away on its own", "[ui][capture]") {
    test::qt_app();
    const QString dir = test::fresh_dir("frames_stop");
    write_frames(dir, 20);
    ui::FrameSourceOptions o;
    o.path = dir.toStdString();
    o.fps = 50;
    o.loop = true;
    ui::CaptureThread capture(o);
    std::size_t frames = 0;
    QObject receiver;
    QObject::connect(capture.source(), &FrameSource::frame_ready, &receiver, [&](const ui::Frame&) { ++frames; });
    capture.start();
    REQUIRE(test::wait_until([&] { return frames >= 3; }, 5000));
    // The capture thread is busy for a second (a camera read that hangs): stop must not wait for it.
    std::atomic<bool> busy{false};
    QMetaObject::invokeMethod(
        capture.source(),
        [&busy] {
            busy = true;
            QThread::msleep(1000);
        },
        Qt::QueuedConnection);
    REQUIRE(test::wait_until([&] { return busy.load(); }, 5000));
    const QPointer<QThread> thread = capture.thread();
    REQUIRE(thread);
    QElapsedTimer clock;
    clock.start();
    capture.stop();
    const qint64 stop_ms = clock.elapsed();
    WARN("CaptureThread::stop() took " << stop_ms << " ms with the capture thread busy for 1 s");
    CHECK(stop_ms < 200);  // the blocking stop took the rest of the busy second
    CHECK(capture.source() == nullptr);
    // The thread finishes its work, stops the source and deletes itself.
    REQUIRE(test::wait_until([&] { return thread.isNull(); }, 5000));
    CHECK(clock.elapsed() >= 500);
    // Nothing comes from the stopped source any more.
    const std::size_t after = frames;
    QTest::qWait(200);
    CHECK(frames == after);
    CHECK(ui::wait_for_stopped_captures(1000));
}
