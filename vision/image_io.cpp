#include "vision/image_io.h"

#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include <opencv2/imgcodecs.hpp>

#include "engine/atomic_file.h"

namespace meeplecam::vision {
namespace {

// Reads an unsigned big-endian (be) or little-endian integer of `n` bytes at `at`.
std::uint32_t read_be(const std::string& b, std::size_t at, int n) {
    std::uint32_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
    return v;
}
std::uint32_t read_le(const std::string& b, std::size_t at, int n) {
    std::uint32_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + static_cast<std::size_t>(i)]);
    return v;
}
bool starts_with(const std::string& b, std::string_view magic, std::size_t at = 0) {
    return b.size() >= at + magic.size() && std::string_view(b).substr(at, magic.size()) == magic;
}

// CRC-32 (ISO 3309, as in PNG chunks) of b[at, at + n).
std::uint32_t crc32(const std::string& b, std::size_t at, std::size_t n) {
    static const auto table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t c = 0xFFFFFFFFu;
    for (std::size_t i = at; i < at + n; ++i) c = table[(c ^ static_cast<unsigned char>(b[i])) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

// Walks the PNG chunks after the IHDR: each must fit in the file and match its CRC, up to IEND
// (libpng would print its own complaint and give nothing, or decode a cut file partly).
Status check_png_chunks(const std::string& b, const std::string& source) {
    std::size_t at = 8;
    while (at + 12 <= b.size()) {
        const std::size_t length = read_be(b, at, 4);
        const std::string type = b.substr(at + 4, 4);
        const std::string name = type.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") ==
                                         std::string::npos
                                     ? type
                                     : "?";
        if (length > b.size() - at - 12) {
            return invalid(source, "not a readable image (the PNG is cut short: chunk " + name + " at byte " +
                                       std::to_string(at) + " runs past the end)");
        }
        if (crc32(b, at + 4, 4 + length) != read_be(b, at + 8 + length, 4)) {
            return invalid(source, "not a readable image (corrupt PNG: chunk " + name + " at byte " + std::to_string(at) +
                                       " fails its CRC check)");
        }
        if (type == "IEND") return Ok{};
        at += 12 + length;
    }
    return invalid(source, "not a readable image (the PNG is cut short: no IEND chunk)");
}

// Walks the JPEG markers to the first start-of-frame (which holds the size), then on to the
// first start-of-scan: the entropy-coded data after it must end in an end-of-image marker
// (it cannot hold FF D9 itself), else the file was cut short and would decode as grey.
Result<cv::Size> jpeg_size(const std::string& b, const std::string& source) {
    std::size_t at = 2;  // after SOI
    std::optional<cv::Size> size;
    while (at + 4 <= b.size()) {
        if (static_cast<unsigned char>(b[at]) != 0xFF) {
            return invalid(source, "not a readable image (corrupt JPEG: no marker at byte " + std::to_string(at) + ")");
        }
        const auto marker = static_cast<unsigned char>(b[at + 1]);
        if (marker == 0xFF) {  // fill byte
            ++at;
            continue;
        }
        if (marker == 0xD8 || marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // markers without a length
            at += 2;
            continue;
        }
        if (marker == 0xD9) break;  // end of image before any scan
        if (marker == 0xDA) {       // start of scan
            if (!size) break;
            if (b.find("\xff\xd9", at + 2) == std::string::npos) {
                return invalid(source, "not a readable image (the JPEG is cut short: no end-of-image marker)");
            }
            return *size;
        }
        const std::size_t length = read_be(b, at + 2, 2);
        if (length < 2) break;
        const bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
        if (sof && !size) {
            if (at + 9 > b.size()) break;
            size = cv::Size(static_cast<int>(read_be(b, at + 7, 2)), static_cast<int>(read_be(b, at + 5, 2)));
        }
        at += 2 + length;
    }
    if (size) return invalid(source, "not a readable image (the JPEG is cut short: no image data)");
    return invalid(source, "not a readable image (corrupt JPEG: no frame header)");
}

Result<cv::Size> webp_size(const std::string& b, const std::string& source) {
    if (starts_with(b, "VP8X", 12) && b.size() >= 30) {
        return cv::Size(static_cast<int>(read_le(b, 24, 3)) + 1, static_cast<int>(read_le(b, 27, 3)) + 1);
    }
    if (starts_with(b, "VP8L", 12) && b.size() >= 25 && static_cast<unsigned char>(b[20]) == 0x2F) {
        const std::uint32_t bits = read_le(b, 21, 4);
        return cv::Size(static_cast<int>(bits & 0x3FFF) + 1, static_cast<int>((bits >> 14) & 0x3FFF) + 1);
    }
    if (starts_with(b, "VP8 ", 12) && b.size() >= 30 && starts_with(b, "\x9d\x01\x2a", 23)) {
        return cv::Size(static_cast<int>(read_le(b, 26, 2) & 0x3FFF), static_cast<int>(read_le(b, 28, 2) & 0x3FFF));
    }
    return invalid(source, "not a readable image (corrupt WebP header)");
}

}  // namespace

Status ImageLoadOptions::check() const {
    if (min_side < 1) return invalid("ImageLoadOptions", "min_side must be >= 1");
    if (max_pixels < 1) return invalid("ImageLoadOptions", "max_pixels must be >= 1");
    return Ok{};
}

Result<cv::Size> encoded_image_size(const std::string& b, const std::string& source) {
    if (starts_with(b, "\x89PNG\r\n\x1a\n")) {
        if (b.size() < 24 || !starts_with(b, "IHDR", 12)) {
            return invalid(source, "not a readable image (corrupt PNG: no IHDR header)");
        }
        const std::uint32_t w = read_be(b, 16, 4), h = read_be(b, 20, 4);
        if (w > INT_MAX || h > INT_MAX) return invalid(source, "not a readable image (corrupt PNG: size out of range)");
        if (auto st = check_png_chunks(b, source); !st) return st.error();
        return cv::Size(static_cast<int>(w), static_cast<int>(h));
    }
    if (starts_with(b, "\xff\xd8\xff")) return jpeg_size(b, source);
    if (starts_with(b, "BM")) {
        if (b.size() < 26) return invalid(source, "not a readable image (corrupt BMP: header cut short)");
        if (read_le(b, 14, 4) == 12) {  // OS/2 core header: 16-bit sizes
            return cv::Size(static_cast<int>(read_le(b, 18, 2)), static_cast<int>(read_le(b, 20, 2)));
        }
        const auto w = static_cast<std::int32_t>(read_le(b, 18, 4));
        const auto h = static_cast<std::int32_t>(read_le(b, 22, 4));  // negative: stored top-down
        if (w < 0 || h == INT_MIN) return invalid(source, "not a readable image (corrupt BMP: size out of range)");
        return cv::Size(w, std::abs(h));
    }
    if (starts_with(b, "RIFF") && starts_with(b, "WEBP", 8)) return webp_size(b, source);
    return invalid(source, "not a readable image (unsupported format; meeplecam reads PNG, JPEG, BMP and WebP)");
}

Result<cv::Mat> load_image(const std::string& path, const ImageLoadOptions& options) {
    if (auto st = options.check(); !st) return st.error();
    auto bytes = read_whole_file(path);
    if (!bytes) return bytes.error();
    return decode_image(bytes.value(), path, options);
}

Result<cv::Mat> decode_image(const std::string& bytes, const std::string& path, const ImageLoadOptions& options) {
    if (auto st = options.check(); !st) return st.error();
    if (bytes.empty()) return invalid(path, "the image file is empty");
    if (bytes.size() > static_cast<std::size_t>(INT_MAX)) return invalid(path, "the image file is larger than 2 GiB");
    // Refuse huge images from the header alone: decoding would allocate width x height x 3 bytes.
    auto size = encoded_image_size(bytes, path);
    if (!size) return size.error();
    const long long pixels = static_cast<long long>(size->width) * size->height;
    if (pixels > options.max_pixels) {
        return invalid(path, "the image is too large (" + std::to_string(size->width) + "x" +
                                 std::to_string(size->height) + " pixels; limit " + std::to_string(options.max_pixels) +
                                 " pixels)");
    }
    // cv::Mat wants a mutable pointer; imdecode only reads the buffer.
    const cv::Mat buffer(1, static_cast<int>(bytes.size()), CV_8UC1, const_cast<char*>(bytes.data()));
    cv::Mat image;
    try {
        image = cv::imdecode(buffer, cv::IMREAD_COLOR);
    } catch (const cv::Exception& e) {
        return invalid(path, std::string("cannot decode the image: ") + e.what());
    }
    if (image.empty()) return invalid(path, "not a readable image (corrupt or unsupported format)");
    // The decoder may disagree with the header (EXIF rotation swaps the sides; nothing else may grow).
    if (static_cast<long long>(image.cols) * image.rows > pixels) {
        return invalid(path, "not a readable image (decoded size differs from the header)");
    }
    if (image.cols < options.min_side || image.rows < options.min_side) {
        return invalid(path, "the image is only " + std::to_string(image.cols) + "x" + std::to_string(image.rows) +
                                 " pixels; at least " + std::to_string(options.min_side) + " per side is needed");
    }
    return image;
}

}  // namespace meeplecam::vision
