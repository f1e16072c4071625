#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "vision/image_io.h"

using namespace meeplecam;

namespace {
std::string temp_path(const char* name) { return (std::filesystem::temp_directory_path() / name).string(); }
}  // namespace

TEST_CASE("bad image files give a clear error", "[vision][bad-input]") {
    SECTION("missing") {
        auto r = vision::load_image("/nonexistent/photo.jpg");
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().to_string(), Catch::Contains("/nonexistent/photo.jpg"));
    }
    SECTION("empty") {
        const auto p = temp_path("meeplecam_empty.jpg");
        { std::ofstream(p).flush(); }
        auto r = vision::load_image(p);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("empty"));
    }
    SECTION("corrupt") {
        const auto p = temp_path("meeplecam_corrupt.jpg");
        { std::ofstream(p) << "\xff\xd8\xff\xe0 this is not really a jpeg"; }
        auto r = vision::load_image(p);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("not a readable image"));
    }
    SECTION("1x1") {
        const auto p = temp_path("meeplecam_tiny.png");
        cv::imwrite(p, cv::Mat(1, 1, CV_8UC3, cv::Scalar(1, 2, 3)));
        auto r = vision::load_image(p);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("only 1x1 pixels"));
    }
    SECTION("larger than the pixel budget") {
        const auto p = temp_path("meeplecam_big.png");
        cv::imwrite(p, cv::Mat(800, 800, CV_8UC3, cv::Scalar(9, 9, 9)));
        vision::ImageLoadOptions opt;
        opt.max_pixels = 100'000;
        auto r = vision::load_image(p, opt);
        REQUIRE_FALSE(r);
        CHECK_THAT(r.error().message, Catch::Contains("too large"));
    }
}

TEST_CASE("a good image loads as 8-bit BGR", "[vision]") {
    const auto p = temp_path("meeplecam_ok.png");
    cv::imwrite(p, cv::Mat(120, 90, CV_8UC3, cv::Scalar(10, 20, 30)));
    auto r = vision::load_image(p);
    REQUIRE(r);
    CHECK(r->cols == 90);
    CHECK(r->rows == 120);
    CHECK(r->type() == CV_8UC3);
}

namespace {
// A PNG signature and IHDR chunk claiming `w` x `h` (CRC left zero: only the header is read).
std::string png_header(std::uint32_t w, std::uint32_t h) {
    std::string b = "\x89PNG\r\n\x1a\n";
    b += std::string("\0\0\0\x0d", 4) + "IHDR";
    for (std::uint32_t v : {w, h}) {
        for (int s = 24; s >= 0; s -= 8) b += static_cast<char>((v >> s) & 0xFF);
    }
    b += std::string("\x08\x02\0\0\0", 5) + std::string(4, '\0');
    return b;
}
std::string encode(const char* ext, const cv::Mat& image) {
    std::vector<unsigned char> buf;
    REQUIRE(cv::imencode(ext, image, buf));
    return {buf.begin(), buf.end()};
}
}  // namespace

TEST_CASE("image sizes are read from the header before decoding", "[vision][bad-input]") {
    const cv::Mat picture(70, 90, CV_8UC3, cv::Scalar(10, 200, 30));
    for (const char* ext : {".png", ".jpg", ".bmp", ".webp"}) {
        INFO(ext);
        auto size = vision::encoded_image_size(encode(ext, picture), "p");
        REQUIRE(size);
        CHECK(size->width == 90);
        CHECK(size->height == 70);
    }
    SECTION("a PNG claiming 100000x100000 is refused from its header (no 30 GB allocation)") {
        // A valid PNG (CRCs right) of 69 bytes whose IHDR says 100000 x 100000.
        const std::string path = std::string(MEEPLECAM_SOURCE_DIR) + "/tests/data/bad/images/huge_dimensions.png";
        auto r = vision::load_image(path);
        REQUIRE_FALSE(r);
        CHECK(r.error().message == "the image is too large (100000x100000 pixels; limit 80000000 pixels)");
    }
    SECTION("a JPEG cut short is refused, not decoded as grey") {
        cv::Mat noise(96, 96, CV_8UC3);
        cv::randu(noise, cv::Scalar::all(0), cv::Scalar::all(255));
        const std::string jpeg = encode(".jpg", noise);
        CHECK(vision::decode_image(jpeg, "whole.jpg"));
        CHECK(vision::decode_image(jpeg.substr(0, jpeg.size() - 100), "cut.jpg").error().message ==
              "not a readable image (the JPEG is cut short: no end-of-image marker)");
        CHECK(vision::decode_image(jpeg.substr(0, 200), "head.jpg").error().message ==
              "not a readable image (the JPEG is cut short: no image data)");
    }
    SECTION("a PNG cut short or with a wrong CRC is refused") {
        const std::string png = encode(".png", picture);
        CHECK(vision::decode_image(png, "whole.png"));
        std::string bad_crc = png;
        bad_crc[bad_crc.size() - 20] ^= 0x01;  // inside the last IDAT chunk's data
        CHECK_THAT(vision::decode_image(bad_crc, "crc.png").error().message,
                   Catch::StartsWith("not a readable image (corrupt PNG: chunk IDAT at byte ") &&
                       Catch::EndsWith(" fails its CRC check)"));
        CHECK_THAT(vision::decode_image(png.substr(0, png.size() - 30), "cut.png").error().message,
                   Catch::StartsWith("not a readable image (the PNG is cut short: chunk IDAT at byte "));
        CHECK(vision::decode_image(png.substr(0, png.size() - 12), "no_end.png").error().message ==
              "not a readable image (the PNG is cut short: no IEND chunk)");
    }
    SECTION("other formats and cut headers") {
        CHECK(vision::encoded_image_size("GIF89a....", "a.gif").error().message ==
              "not a readable image (unsupported format; meeplecam reads PNG, JPEG, BMP and WebP)");
        CHECK(vision::encoded_image_size(png_header(5, 5).substr(0, 20), "a.png").error().message ==
              "not a readable image (corrupt PNG: no IHDR header)");
        CHECK(vision::encoded_image_size("BM\x10\0", "a.bmp").error().message ==
              "not a readable image (corrupt BMP: header cut short)");
    }
}
