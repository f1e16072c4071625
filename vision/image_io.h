// Image loading with clear errors: unreadable, empty, too small or too large images.
#pragma once

#include <string>

#include <opencv2/core.hpp>

#include "engine/error.h"

namespace meeplecam::vision {

struct ImageLoadOptions {
    int min_side = 64;                    // smaller images cannot show a tile (pixels)
    long long max_pixels = 80'000'000;    // larger images are refused before decoding (memory bound)
    Status check() const;
};

// Loads a colour image (8-bit BGR). Errors name the file and the reason.
Result<cv::Mat> load_image(const std::string& path, const ImageLoadOptions& options = {});

}  // namespace meeplecam::vision
