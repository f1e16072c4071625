// Fuzzes image decoding and recognition of small images: any bytes either give an error naming
// the source, or an 8-bit BGR image within the pixel bound that the board reader and the tile
// classifier process without crashing (a reading, "no board", or an error that says why).
// The pixel bound and small working sizes (same code paths, smaller views, fewer iterations)
// keep one run fast; sizes are refused from the header, before decoding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/catalog.h"
#include "fuzz/fuzz_check.h"
#include "vision/board_reader.h"
#include "vision/image_io.h"
#include "vision/tile_classifier.h"

using namespace meeplecam;

namespace {
constexpr long long kMaxPixels = 256 * 256;

// The reader with small working views: fuzzing looks for crashes, not for good readings.
vision::ReaderOptions reader_options() {
    vision::ReaderOptions o;
    o.lattice.work_side = 200;
    o.lattice.mask_side = 100;
    o.lattice.affine_side = 200;
    o.lattice.ransac_iterations = 40;
    o.lattice.max_pitch_px = 80;
    o.classifier.samples = 6;
    o.classifier.clusters = 4;
    o.classifier.em_rounds = 3;
    return o;
}

const Catalog& base_catalog() {
    static const Catalog catalog = [] {
        auto c = Catalog::embedded("carcassonne-base");
        FUZZ_REQUIRE(c.has_value(), "the base catalog is embedded");
        return std::move(c.value());
    }();
    return catalog;
}

const vision::TileClassifier& classifier() {
    static const vision::TileClassifier tiles = [] {
        vision::TileClassifierOptions o;
        o.canonical_px = 32;
        o.model_px = 8;
        auto c = vision::TileClassifier::create(base_catalog(), o);
        FUZZ_REQUIRE(c.has_value(), "the tile classifier builds");
        return std::move(c.value());
    }();
    return tiles;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    vision::ImageLoadOptions load;
    load.min_side = 16;
    load.max_pixels = kMaxPixels;
    auto image = vision::decode_image(bytes, "fuzz.img", load);
    if (!image) {
        FUZZ_REQUIRE(image.error().to_string().starts_with("fuzz.img"), "errors name the image");
        return 0;
    }
    FUZZ_REQUIRE(image->type() == CV_8UC3, "decoded images are 8-bit BGR");
    FUZZ_REQUIRE(static_cast<long long>(image->cols) * image->rows <= kMaxPixels, "the pixel bound holds");
    FUZZ_REQUIRE(image->cols >= 16 && image->rows >= 16, "the side bound holds");

    static const vision::ReaderOptions options = reader_options();
    auto reading = vision::read_board(image.value(), base_catalog(), options);
    FUZZ_REQUIRE(reading.has_value() || !reading.error().to_string().empty(), "reader errors say why");
    if (reading && reading->found) {
        for (const auto& t : reading->tiles) {
            FUZZ_REQUIRE(t.type >= 0 && t.type < static_cast<int>(base_catalog().tiles().size()), "tile types exist");
            FUZZ_REQUIRE(t.rot >= 0 && t.rot < 4, "rotations are quarter turns");
            FUZZ_REQUIRE(t.confidence >= 0 && t.confidence <= 1, "confidences are probabilities");
        }
    } else if (reading) {
        FUZZ_REQUIRE(!reading->message.empty(), "no board says why");
    }

    auto tile = classifier().classify(image.value());
    if (tile) {
        FUZZ_REQUIRE(base_catalog().find(tile->best.tile) != nullptr, "the best tile exists");
        FUZZ_REQUIRE(tile->best.confidence >= 0 && tile->best.confidence <= 1, "confidences are probabilities");
    }
    return 0;
}
