#include "vision/image_io.h"

#include <opencv2/imgcodecs.hpp>

#include "engine/atomic_file.h"

namespace meeplecam::vision {

Status ImageLoadOptions::check() const {
    if (min_side < 1) return invalid("ImageLoadOptions", "min_side must be >= 1");
    if (max_pixels < 1) return invalid("ImageLoadOptions", "max_pixels must be >= 1");
    return Ok{};
}

Result<cv::Mat> load_image(const std::string& path, const ImageLoadOptions& options) {
    if (auto st = options.check(); !st) return st.error();
    auto bytes = read_whole_file(path);
    if (!bytes) return bytes.error();
    if (bytes.value().empty()) return invalid(path, "the image file is empty");
    const cv::Mat buffer(1, static_cast<int>(bytes.value().size()), CV_8UC1, bytes.value().data());
    cv::Mat image;
    try {
        // Reject huge images before a full decode: a 1/8-scale decode is cheap (JPEG decodes it
        // directly). It throws on images too small to reduce; those are handled below.
        cv::Mat probe;
        try {
            probe = cv::imdecode(buffer, cv::IMREAD_REDUCED_GRAYSCALE_8);
        } catch (const cv::Exception&) {
            probe.release();
        }
        if (!probe.empty() && static_cast<long long>(probe.cols) * probe.rows * 64 > options.max_pixels) {
            return invalid(path, "the image is too large (about " + std::to_string(probe.cols * 8) + "x" +
                                     std::to_string(probe.rows * 8) + " pixels; limit " +
                                     std::to_string(options.max_pixels) + " pixels)");
        }
        image = cv::imdecode(buffer, cv::IMREAD_COLOR);
    } catch (const cv::Exception& e) {
        return invalid(path, std::string("cannot decode the image: ") + e.what());
    }
    if (image.empty()) return invalid(path, "not a readable image (corrupt or unsupported format)");
    if (image.cols < options.min_side || image.rows < options.min_side) {
        return invalid(path, "the image is only " + std::to_string(image.cols) + "x" + std::to_string(image.rows) +
                                 " pixels; at least " + std::to_string(options.min_side) + " per side is needed");
    }
    return image;
}

}  // namespace meeplecam::vision
