// Frame sources for the headless pipeline: an image folder (frames in name order) or a video file.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/error.h"

namespace meeplecam::session {

class FrameSource {
public:
    virtual ~FrameSource() = default;
    // Reads the next frame (8-bit BGR) into `frame`; false at the end. Errors name the frame.
    virtual Result<bool> next(cv::Mat& frame) = 0;
    // Name of the frame last read (file name, or "frame N" of a video).
    virtual std::string last_name() const = 0;
};

// Opens a folder of .jpg/.jpeg/.png frames, read in file-name order. Invalid when the folder
// cannot be read or holds no frames.
Result<std::unique_ptr<FrameSource>> open_image_folder(const std::string& dir);
// Opens a video file (any format OpenCV's videoio reads). Invalid when it cannot be opened.
Result<std::unique_ptr<FrameSource>> open_video_file(const std::string& path);

}  // namespace meeplecam::session
