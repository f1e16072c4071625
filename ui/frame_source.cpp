#include "ui/frame_source.h"

#include <QDeadlineTimer>
#include <QMetaObject>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

namespace meeplecam::ui {
namespace {

// Camera index -> the claim a FrameSource holds while it has that device open (one at a time
// in this process: a source stopping releases it on its thread while the next one opens it).
std::timed_mutex& camera_claim(int camera) {
    static std::mutex guard;
    static std::map<int, std::timed_mutex> claims;
    std::lock_guard lock(guard);
    return claims[camera];
}

// Capture threads asked to stop that may still be running (touched on the owners' thread).
std::vector<QPointer<QThread>>& stopping_threads() {
    static std::vector<QPointer<QThread>> threads;
    return threads;
}

}  // namespace

std::int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

Status FrameSourceOptions::check() const {
    if (kind == Kind::Camera && camera < 0) return invalid("source", "camera index must be >= 0");
    if (kind != Kind::Camera && path.empty()) return invalid("source", "a video file or image folder is needed");
    if (width < 16 || height < 16 || width > 8192 || height > 8192) return invalid("source", "frame size must be 16..8192");
    if (!(fps > 0 && fps <= 240)) return invalid("source", "fps must be in (0, 240]");
    if (on_request && kind == Kind::Camera) return invalid("source", "a camera cannot send frames on request");
    if (reconnect_ms < 10 || reconnect_ms > 60000) return invalid("source", "reconnect_ms must be 10..60000");
    if (lost_after_failures < 1) return invalid("source", "lost_after_failures must be >= 1");
    return Ok{};
}

QString FrameSourceOptions::describe() const {
    switch (kind) {
    case Kind::Camera: return QStringLiteral("camera %1").arg(camera);
    case Kind::Video: return QStringLiteral("video %1").arg(QString::fromStdString(path));
    case Kind::Images: return QStringLiteral("images %1").arg(QString::fromStdString(path));
    }
    return {};
}

Result<std::vector<std::string>> list_images(const std::string& folder) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) return invalid(folder, "not a readable folder");
    std::vector<std::string> out;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        std::string ext = it->path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp") out.push_back(it->path().string());
    }
    if (ec) return invalid(folder, "cannot list: " + ec.message());
    std::sort(out.begin(), out.end());
    return out;
}

FrameSource::FrameSource(FrameSourceOptions options, QObject* parent) : QObject(parent), options_(std::move(options)) {}

FrameSource::~FrameSource() = default;

void FrameSource::silence() {
    std::lock_guard lock(emit_mutex_);
    silenced_ = true;
}

void FrameSource::release_device() {
    capture_.reset();
    if (device_claim_.owns_lock()) device_claim_.unlock();
}

void FrameSource::start() {
    if (!timer_) {
        timer_ = new QTimer(this);
        timer_->setTimerType(Qt::PreciseTimer);
        connect(timer_, &QTimer::timeout, this, &FrameSource::tick);
    }
    if (open_source()) {
        set_state(State::Running, tr("%1 running").arg(options_.describe()));
    } else {
        enter_lost(tr("cannot open %1").arg(options_.describe()));
    }
}

void FrameSource::stop() {
    if (timer_) timer_->stop();
    release_device();
    set_state(State::Stopped, tr("stopped"));
}

// Opens the device, file or folder and sets the timer to its pace; false when it is not there.
bool FrameSource::open_source() {
    release_device();
    if (options_.kind == FrameSourceOptions::Kind::Images) {
        auto files = list_images(options_.path);
        if (!files || files->empty()) return false;
        images_ = std::move(files.value());
        if (image_pos_ > images_.size()) image_pos_ = images_.size();
    } else {
        if (options_.kind == FrameSourceOptions::Kind::Camera) {
            // A source stopped a moment ago may still be releasing this camera on its thread.
            device_claim_ = std::unique_lock(camera_claim(options_.camera), std::chrono::milliseconds(1000));
            if (!device_claim_.owns_lock()) return false;
        }
        auto cap = std::make_unique<cv::VideoCapture>();
        const bool ok = options_.kind == FrameSourceOptions::Kind::Camera ? cap->open(options_.camera, cv::CAP_V4L2)
                                                                          : cap->open(options_.path);
        if (!ok || !cap->isOpened()) {
            release_device();
            return false;
        }
        if (options_.kind == FrameSourceOptions::Kind::Camera) {
            cap->set(cv::CAP_PROP_FRAME_WIDTH, options_.width);
            cap->set(cv::CAP_PROP_FRAME_HEIGHT, options_.height);
        }
        capture_ = std::move(cap);
    }
    failures_ = 0;
    // A camera's read() waits for the next frame itself; files are paced by the timer, or by
    // next_frame() calls.
    if (options_.on_request) {
        timer_->stop();
    } else {
        timer_->start(options_.kind == FrameSourceOptions::Kind::Camera ? 0 : static_cast<int>(1000.0 / options_.fps));
    }
    return true;
}

// Reads the next frame; false on a failed read (the caller counts failures).
bool FrameSource::read_frame(cv::Mat& out) {
    if (options_.kind == FrameSourceOptions::Kind::Images) {
        if (image_pos_ >= images_.size()) return false;
        out = cv::imread(images_[image_pos_], cv::IMREAD_COLOR);
        if (out.empty()) return false;
        ++image_pos_;
        return true;
    }
    return capture_ && capture_->read(out) && !out.empty();
}

void FrameSource::tick() {
    if (state_ == State::Lost) {
        if (open_source()) set_state(State::Running, tr("%1 back").arg(options_.describe()));
        return;
    }
    if (state_ != State::Running) return;
    const bool at_end = options_.kind == FrameSourceOptions::Kind::Images
                            ? image_pos_ >= images_.size()
                            : (options_.kind == FrameSourceOptions::Kind::Video && capture_ &&
                               capture_->get(cv::CAP_PROP_POS_FRAMES) >= capture_->get(cv::CAP_PROP_FRAME_COUNT) &&
                               capture_->get(cv::CAP_PROP_FRAME_COUNT) > 0);
    if (at_end) {
        if (options_.loop) {
            image_pos_ = 0;
            if (capture_) capture_->set(cv::CAP_PROP_POS_FRAMES, 0);
        } else {
            timer_->stop();
            set_state(State::Ended, tr("%1 ended").arg(options_.describe()));
            return;
        }
    }
    Frame frame;
    if (!read_frame(frame.image)) {
        if (++failures_ >= options_.lost_after_failures) enter_lost(tr("read failed"));
        return;
    }
    failures_ = 0;
    frame.captured_ns = steady_now_ns();
    std::lock_guard lock(emit_mutex_);
    if (silenced_) return;
    frame.index = next_index_.fetch_add(1);
    emit frame_ready(std::move(frame));
}

void FrameSource::next_frame() {
    if (options_.on_request) tick();
}

// Releases the source and retries opening it every reconnect_ms.
void FrameSource::enter_lost(const QString& why) {
    release_device();
    timer_->start(options_.reconnect_ms);
    set_state(State::Lost, tr("camera lost — reconnecting (%1: %2)").arg(options_.describe(), why));
}

void FrameSource::set_state(State s, const QString& message) {
    state_ = s;
    std::lock_guard lock(emit_mutex_);
    if (!silenced_) emit state_changed(s, message);
}

void map_frames_outside_the_heap() {
#if defined(__GLIBC__)
    static const bool done = [] { return mallopt(M_MMAP_THRESHOLD, 256 * 1024) == 1; }();
    (void)done;
#endif
}

CaptureThread::CaptureThread(FrameSourceOptions options) {
    map_frames_outside_the_heap();
    thread_ = new QThread;
    thread_->setObjectName(QStringLiteral("capture"));
    source_ = new FrameSource(std::move(options));
    source_->moveToThread(thread_);
    QObject::connect(thread_, &QThread::started, source_, &FrameSource::start);
}

CaptureThread::~CaptureThread() { stop(); }

void CaptureThread::start() { thread_->start(); }

void CaptureThread::stop() {
    if (!thread_) return;
    QThread* thread = std::exchange(thread_, nullptr);
    FrameSource* source = std::exchange(source_, nullptr);
    source->silence();  // from here on nothing reaches the receivers, which may go away at once
    if (!thread->isRunning()) {  // never started: nothing runs there
        delete source;
        delete thread;
        return;
    }
    QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    // On the capture thread, after a read in progress: stop, release the device, delete the
    // source (its deferred delete runs as the thread finishes) and quit.
    QMetaObject::invokeMethod(
        source,
        [source, thread] {
            source->stop();
            source->deleteLater();
            thread->quit();
        },
        Qt::QueuedConnection);
    auto& stopping = stopping_threads();
    stopping.erase(std::remove_if(stopping.begin(), stopping.end(), [](const QPointer<QThread>& t) { return t.isNull(); }), stopping.end());
    stopping.emplace_back(thread);
}

bool wait_for_stopped_captures(int ms) {
    QDeadlineTimer deadline(ms);
    bool all = true;
    for (const QPointer<QThread>& t : stopping_threads()) {
        if (t && !t->wait(deadline)) all = false;
    }
    return all;
}

}  // namespace meeplecam::ui
