// FrameSource: camera capture off the GUI thread — a worker object living on its own QThread
// that reads a V4L2 camera, a video file or an image folder with OpenCV and sends every frame
// as a value through a queued signal. A source that disappears (camera unplugged, folder
// removed) is reported as lost and retried until it comes back; the frame count goes on.
#pragma once

#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/error.h"

class QTimer;
class QThread;

namespace cv {
class VideoCapture;
}

namespace meeplecam::ui {

// One captured frame, passed by value between threads (cv::Mat shares its pixels; the source
// never writes into a frame it has sent).
struct Frame {
    cv::Mat image;              // CV_8UC3, BGR
    std::int64_t index = -1;    // 0, 1, 2, ... over the whole run (a reconnect does not restart it)
    std::int64_t captured_ns = 0;  // steady-clock time the frame was read (ns, see steady_now_ns())
};

// Returns the steady clock in nanoseconds (the time base of Frame::captured_ns).
std::int64_t steady_now_ns();

struct FrameSourceOptions {
    enum class Kind { Camera, Video, Images };
    Kind kind = Kind::Images;
    int camera = 0;              // V4L2 device index (/dev/videoN), Camera only
    std::string path;            // video file or image folder
    int width = 1920;            // requested camera frame size (the camera may give another)
    int height = 1080;
    double fps = 10;             // pace of video files and image folders (a camera runs at its own rate)
    bool loop = false;           // start again at the end of a video or folder instead of ending
    // Send a frame only when next_frame() is called, not on a timer (video files and image
    // folders): a simulated session feeds frames as fast as the pipeline takes them, each one
    // standing for 1/fps seconds of session time, none skipped.
    bool on_request = false;
    int reconnect_ms = 500;      // wait between attempts to reopen a lost source
    int lost_after_failures = 3; // consecutive failed reads before the source counts as lost

    // Refuses impossible values (an Invalid error naming the field).
    Status check() const;
    // Describes the source for the status bar ("camera 0", "images samples/footage").
    QString describe() const;
};

// Lists the images (.png, .jpg, .jpeg, .bmp) of a folder, sorted by name; an error when the
// folder cannot be read.
Result<std::vector<std::string>> list_images(const std::string& folder);

class FrameSource : public QObject {
    Q_OBJECT
public:
    enum class State { Stopped, Running, Lost, Ended };
    Q_ENUM(State)

    explicit FrameSource(FrameSourceOptions options, QObject* parent = nullptr);
    ~FrameSource() override;

    const FrameSourceOptions& options() const { return options_; }
    // Frames sent so far (any thread).
    std::int64_t frames_sent() const { return next_index_.load(); }
    // Any thread: sends nothing more from now on (no frame, no state), also not from a read in
    // progress; when it returns no signal of this source is being emitted. Reading and the
    // device are stopped by stop() on the source's own thread.
    void silence();

public slots:
    // Opens the source and starts reading (call on the worker thread: a queued call or started()).
    void start();
    // Stops reading and releases the device (on the worker thread).
    void stop();
    // Reads and sends the next frame, or reports the end (on_request sources; on the worker thread).
    void next_frame();

signals:
    void frame_ready(meeplecam::ui::Frame frame);
    // Running, Lost ("camera lost — reconnecting"), Ended (the end of a file or folder).
    void state_changed(meeplecam::ui::FrameSource::State state, QString message);

private:
    void tick();
    bool open_source();
    bool read_frame(cv::Mat& out);
    void enter_lost(const QString& why);
    void set_state(State s, const QString& message);
    // Releases the capture device (and this process's claim on it).
    void release_device();

    FrameSourceOptions options_;
    std::mutex emit_mutex_;            // held while a signal is emitted, and by silence()
    bool silenced_ = false;            // guarded by emit_mutex_
    std::unique_lock<std::timed_mutex> device_claim_;  // a camera: held while this source has it open
    QTimer* timer_ = nullptr;
    std::unique_ptr<cv::VideoCapture> capture_;
    std::vector<std::string> images_;
    std::size_t image_pos_ = 0;
    int failures_ = 0;
    State state_ = State::Stopped;
    std::atomic<std::int64_t> next_index_{0};
};

// Keeps camera frames out of malloc's heaps for the whole process (glibc; once, idempotent):
// blocks from 256 KiB up are always mapped and go back to the system when freed. By default
// glibc raises that threshold to the size of the first large block freed, after which freed
// frames stay in the heaps of the three threads that touch them and RSS ratchets up in frame-
// sized steps (measured in docs/ui.md, "Memory"). CaptureThread calls it.
void map_frames_outside_the_heap();

// Owns a FrameSource on its own QThread. Stopping never waits for the capture thread: the
// source is silenced at once, then stops reading and releases the device on its own thread,
// and the thread quits and is deleted when it has finished (a new source on the same camera
// waits on its own thread until the device is released).
class CaptureThread {
public:
    explicit CaptureThread(FrameSourceOptions options);
    ~CaptureThread();  // stop()
    CaptureThread(const CaptureThread&) = delete;
    CaptureThread& operator=(const CaptureThread&) = delete;

    // The source; null once stopped.
    FrameSource* source() const { return source_; }
    // The capture thread; null once stopped (it finishes and deletes itself then).
    QThread* thread() const { return thread_; }
    // Starts the thread and the source.
    void start();
    // Silences the source and asks its thread to stop reading, release the device and quit;
    // returns at once (idempotent).
    void stop();

private:
    QThread* thread_ = nullptr;
    FrameSource* source_ = nullptr;
};

// Waits until every capture thread asked to stop has finished (at the end of a program, off
// the event loop: the headless app, tests). Returns false if one is still running after `ms`.
bool wait_for_stopped_captures(int ms = 5000);

}  // namespace meeplecam::ui

Q_DECLARE_METATYPE(meeplecam::ui::Frame)
