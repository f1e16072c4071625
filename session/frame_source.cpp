#include "session/frame_source.h"

#include <algorithm>
#include <filesystem>

#include <opencv2/videoio.hpp>

#include "vision/image_io.h"

namespace meeplecam::session {
namespace {

class ImageFolder : public FrameSource {
public:
    explicit ImageFolder(std::vector<std::string> files) : files_(std::move(files)) {}
    Result<bool> next(cv::Mat& frame) override {
        if (next_ >= files_.size()) return false;
        name_ = files_[next_++];
        auto img = vision::load_image(name_);
        if (!img) return img.error();
        frame = img.value();
        return true;
    }
    std::string last_name() const override { return name_; }

private:
    std::vector<std::string> files_;
    std::size_t next_ = 0;
    std::string name_;
};

class VideoFile : public FrameSource {
public:
    VideoFile(std::string path, cv::VideoCapture cap) : path_(std::move(path)), cap_(std::move(cap)) {}
    Result<bool> next(cv::Mat& frame) override {
        if (!cap_.read(frame) || frame.empty()) return false;
        ++index_;
        if (frame.type() != CV_8UC3) return invalid(last_name(), "the video decoder gave a frame that is not 8-bit BGR");
        return true;
    }
    std::string last_name() const override { return path_ + ": frame " + std::to_string(index_ - 1); }

private:
    std::string path_;
    cv::VideoCapture cap_;
    int index_ = 0;
};

}  // namespace

Result<std::unique_ptr<FrameSource>> open_image_folder(const std::string& dir) {
    std::error_code ec;
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        std::string ext = entry.path().extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        if (entry.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".png")) files.push_back(entry.path().string());
    }
    if (ec) return invalid(dir, "cannot read the folder: " + ec.message());
    if (files.empty()) return invalid(dir, "holds no .jpg, .jpeg or .png frames");
    std::sort(files.begin(), files.end());
    return std::unique_ptr<FrameSource>(std::make_unique<ImageFolder>(std::move(files)));
}

Result<std::unique_ptr<FrameSource>> open_video_file(const std::string& path) {
    if (!std::filesystem::is_regular_file(path)) return invalid(path, "no such video file");
    cv::VideoCapture cap(path);
    if (!cap.isOpened()) return invalid(path, "cannot open the video (unknown format or codec)");
    return std::unique_ptr<FrameSource>(std::make_unique<VideoFile>(path, std::move(cap)));
}

}  // namespace meeplecam::session
