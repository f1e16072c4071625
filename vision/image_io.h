// Image loading with clear errors: unreadable, empty, too small or too large images.
#pragma once

#include <string>

#include <opencv2/core.hpp>

#include "engine/error.h"

namespace meeplecam::vision {

struct ImageLoadOptions {
    int min_side = 64;                    // smaller images cannot show a tile (pixels)
    long long max_pixels = 80'000'000;    // larger images are refused from their header, before decoding (memory bound)
    Status check() const;
};

// Loads a colour image (8-bit BGR). Errors name the file and the reason.
Result<cv::Mat> load_image(const std::string& path, const ImageLoadOptions& options = {});
// Reads the width and height from an encoded image's header without decoding it (PNG, JPEG,
// BMP, WebP: the formats meeplecam reads). Errors: an unsupported format, a header that is
// cut short or names no size, a PNG chunk that fails its CRC or runs past the end, a JPEG
// without image data or end-of-image marker (a file cut short).
Result<cv::Size> encoded_image_size(const std::string& bytes, const std::string& source);
// Decodes an encoded image (PNG, JPEG, ...) held in memory; errors name `source`.
Result<cv::Mat> decode_image(const std::string& bytes, const std::string& source, const ImageLoadOptions& options = {});

}  // namespace meeplecam::vision
