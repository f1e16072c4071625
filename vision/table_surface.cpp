#include "vision/table_surface.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "vision/random_source.h"

namespace meeplecam::vision {
namespace {

constexpr double kTwoPi = 6.283185307179586;

// Smooth noise in about [-1, 1] whose blobs are `cell_x` x `cell_y` pixels.
cv::Mat smooth_noise(cv::Size size, double cell_x, double cell_y, RandomSource& r) {
    const int gx = std::clamp(static_cast<int>(std::ceil(size.width / std::max(cell_x, 1.0))) + 2, 2, 4096);
    const int gy = std::clamp(static_cast<int>(std::ceil(size.height / std::max(cell_y, 1.0))) + 2, 2, 4096);
    cv::Mat grid(gy, gx, CV_32FC1);
    cv::RNG cv_rng(r.bits());
    cv_rng.fill(grid, cv::RNG::UNIFORM, -1.0, 1.0);
    cv::Mat out;
    cv::resize(grid, out, size, 0, 0, cv::INTER_CUBIC);
    return out;
}

cv::Vec3f mix(const cv::Vec3f& a, const cv::Vec3f& b, float t) { return a + (b - a) * t; }

cv::Vec3f pick(const std::vector<cv::Vec3f>& colours, RandomSource& r) {
    return colours[static_cast<std::size_t>(r.integer(0, static_cast<int>(colours.size()) - 1))];
}

// Planks with grain, growth rings and seams.
cv::Mat wood(cv::Size size, double ppm, RandomSource& r) {
    struct Timber {
        cv::Vec3f light, dark;
    };
    const std::vector<Timber> timbers = {
        {{110, 165, 205}, {70, 115, 160}},   // oak
        {{55, 80, 115}, {25, 40, 65}},       // walnut
        {{140, 190, 225}, {95, 145, 190}},   // pine
        {{50, 75, 135}, {25, 35, 80}},       // mahogany
        {{150, 160, 165}, {105, 115, 122}},  // grey-washed
        {{35, 45, 60}, {15, 20, 30}},        // dark stained
    };
    const Timber timber = timbers[static_cast<std::size_t>(r.integer(0, static_cast<int>(timbers.size()) - 1))];
    const double plank_mm = r.uniform(90, 210);
    const double plank_len_mm = r.uniform(700, 1800);
    const double ring_mm = r.uniform(4, 11);
    const double seam_mm = r.uniform(0.6, 1.6);
    std::vector<float> tint(64), shift(64);
    for (std::size_t i = 0; i < tint.size(); ++i) {
        tint[i] = static_cast<float>(r.uniform(0.86, 1.12));
        shift[i] = static_cast<float>(r.uniform(0, plank_len_mm));
    }
    const cv::Mat streaks = smooth_noise(size, 60 * ppm, 1.2 * ppm, r);
    const cv::Mat bands = smooth_noise(size, 260 * ppm, 5 * ppm, r);
    const cv::Mat warp = smooth_noise(size, 300 * ppm, 40 * ppm, r);
    cv::Mat out(size, CV_32FC3);
    for (int y = 0; y < size.height; ++y) {
        const double y_mm = y / ppm;
        const auto plank = static_cast<long long>(std::floor(y_mm / plank_mm));
        const auto pi = static_cast<std::size_t>(((plank % 64) + 64) % 64);
        const double local = y_mm - static_cast<double>(plank) * plank_mm;
        const bool seam_row = local < seam_mm;
        auto* row = out.ptr<cv::Vec3f>(y);
        const auto* s = streaks.ptr<float>(y);
        const auto* b = bands.ptr<float>(y);
        const auto* w = warp.ptr<float>(y);
        for (int x = 0; x < size.width; ++x) {
            const double ring = std::sin(kTwoPi * (local + 30.0 * w[x] + static_cast<double>(pi) * 7.3) / ring_mm);
            const double v = 0.45 * s[x] + 0.35 * b[x] + 0.22 * ring * ring * ring;
            const auto t = static_cast<float>(std::clamp(0.5 + 0.5 * v, 0.0, 1.0));
            cv::Vec3f c = mix(timber.dark, timber.light, t) * tint[pi];
            const double along = std::fmod(x / ppm + shift[pi], plank_len_mm);
            if (seam_row || along < seam_mm) c *= 0.45f;
            row[x] = c;
        }
    }
    return out;
}

// Felt or cotton with soft folds.
cv::Mat cloth(cv::Size size, double ppm, RandomSource& r) {
    const std::vector<cv::Vec3f> colours = {
        {45, 110, 45}, {95, 55, 30}, {45, 35, 120}, {115, 112, 110}, {150, 170, 190}, {60, 60, 65}, {130, 90, 60}};
    const cv::Vec3f base = pick(colours, r);
    const cv::Mat wrinkles = smooth_noise(size, 120 * ppm, 120 * ppm, r);
    cv::Mat fibre(size, CV_32FC1);
    cv::RNG cv_rng(r.bits());
    cv_rng.fill(fibre, cv::RNG::NORMAL, 0.0, 0.035);
    struct Fold {
        double nx, ny, offset, width, amp;
    };
    std::vector<Fold> folds;
    const int fold_count = r.integer(1, 4);
    for (int i = 0; i < fold_count; ++i) {
        const double a = r.uniform(0, kTwoPi);
        folds.push_back({std::cos(a), std::sin(a), r.uniform(0, 1) * (size.width * std::abs(std::cos(a)) + size.height * std::abs(std::sin(a))),
                         r.uniform(8, 30) * ppm, r.uniform(0.08, 0.2)});
    }
    cv::Mat out(size, CV_32FC3);
    for (int y = 0; y < size.height; ++y) {
        auto* row = out.ptr<cv::Vec3f>(y);
        const auto* wr = wrinkles.ptr<float>(y);
        const auto* fb = fibre.ptr<float>(y);
        for (int x = 0; x < size.width; ++x) {
            double shade = 1.0 + 0.05 * wr[x] + fb[x];
            for (const auto& f : folds) {
                const double d = (x * std::abs(f.nx) + y * std::abs(f.ny) - f.offset) / f.width;
                shade += f.amp * d * std::exp(-d * d);  // one side of the fold lit, the other in shade
            }
            row[x] = base * static_cast<float>(shade);
        }
    }
    return out;
}

// A plain top: laminate, painted wood or a white cloth.
cv::Mat plain(cv::Size size, double ppm, RandomSource& r) {
    const std::vector<cv::Vec3f> colours = {
        {228, 228, 225}, {190, 192, 195}, {170, 195, 215}, {70, 70, 72}, {32, 32, 35}, {200, 215, 225}};
    const cv::Vec3f base = pick(colours, r);
    const cv::Mat low = smooth_noise(size, 300 * ppm, 300 * ppm, r);
    cv::Mat fine(size, CV_32FC1);
    cv::RNG cv_rng(r.bits());
    cv_rng.fill(fine, cv::RNG::NORMAL, 0.0, 0.012);
    cv::Mat out(size, CV_32FC3);
    for (int y = 0; y < size.height; ++y) {
        auto* row = out.ptr<cv::Vec3f>(y);
        const auto* l = low.ptr<float>(y);
        const auto* f = fine.ptr<float>(y);
        for (int x = 0; x < size.width; ++x) row[x] = base * (1.0f + 0.04f * l[x] + f[x]);
    }
    return out;
}

// A patterned tablecloth: tartan, or flowers on a plain ground. Made to distract a reader.
cv::Mat busy(cv::Size size, double ppm, RandomSource& r) {
    const std::vector<cv::Vec3f> vivid = {{40, 40, 190}, {180, 80, 30}, {40, 160, 60}, {30, 190, 230},
                                          {230, 230, 230}, {40, 40, 40}, {150, 60, 150}, {60, 120, 200}};
    cv::Mat out(size, CV_32FC3);
    if (r.chance(0.5)) {
        // Tartan: colour bands across and along, woven together.
        auto bands = [&](int length) {
            std::vector<int> index(static_cast<std::size_t>(length));
            int pos = 0, colour = 0;
            while (pos < length) {
                const int w = std::max(1, static_cast<int>(r.uniform(4, 35) * ppm));
                colour = r.integer(0, 3);
                for (int i = pos; i < std::min(length, pos + w); ++i) index[static_cast<std::size_t>(i)] = colour;
                pos += w;
            }
            return index;
        };
        std::array<cv::Vec3f, 4> palette;
        for (auto& c : palette) c = pick(vivid, r);
        const auto across = bands(size.width), along = bands(size.height);
        for (int y = 0; y < size.height; ++y) {
            auto* row = out.ptr<cv::Vec3f>(y);
            const cv::Vec3f cy = palette[static_cast<std::size_t>(along[static_cast<std::size_t>(y)])];
            for (int x = 0; x < size.width; ++x) {
                const cv::Vec3f cx = palette[static_cast<std::size_t>(across[static_cast<std::size_t>(x)])];
                // A 2x2 twill: alternate which thread shows.
                row[x] = ((x + y) / std::max(1, static_cast<int>(ppm))) % 2 ? cx * 0.55f + cy * 0.45f : cx * 0.45f + cy * 0.55f;
            }
        }
    } else {
        out.setTo(cv::Scalar(pick(vivid, r)) * 0.8);
        const double area_mm2 = size.area() / (ppm * ppm);
        const int flowers = std::clamp(static_cast<int>(area_mm2 / (55.0 * 55.0)), 1, 20000);
        for (int i = 0; i < flowers; ++i) {
            const cv::Point2d c(r.uniform(0, size.width), r.uniform(0, size.height));
            const double radius = r.uniform(5, 22) * ppm;
            const cv::Scalar petal(pick(vivid, r));
            for (int k = 0; k < 5; ++k) {
                const double a = kTwoPi * k / 5;
                cv::circle(out, c + cv::Point2d(std::cos(a), std::sin(a)) * radius * 0.6, std::max(1, static_cast<int>(radius * 0.5)),
                           petal, cv::FILLED, cv::LINE_AA);
            }
            cv::circle(out, c, std::max(1, static_cast<int>(radius * 0.3)), cv::Scalar(pick(vivid, r)), cv::FILLED, cv::LINE_AA);
        }
    }
    cv::Mat fine(size, CV_32FC3);
    cv::RNG cv_rng(r.bits());
    cv_rng.fill(fine, cv::RNG::NORMAL, 0.0, 5.0);
    out += fine;
    return out;
}

}  // namespace

std::string_view table_surface_name(TableSurface s) {
    switch (s) {
        case TableSurface::Wood: return "wood";
        case TableSurface::Cloth: return "cloth";
        case TableSurface::Plain: return "plain";
        case TableSurface::Busy: return "busy";
    }
    return "?";
}

cv::Mat render_table_surface(TableSurface kind, cv::Size size, double px_per_mm, std::mt19937_64& rng) {
    RandomSource r(rng);
    cv::Mat surface;
    switch (kind) {
        case TableSurface::Wood: surface = wood(size, px_per_mm, r); break;
        case TableSurface::Cloth: surface = cloth(size, px_per_mm, r); break;
        case TableSurface::Plain: surface = plain(size, px_per_mm, r); break;
        case TableSurface::Busy: surface = busy(size, px_per_mm, r); break;
    }
    cv::Mat out;
    surface.convertTo(out, CV_8UC3);
    return out;
}

}  // namespace meeplecam::vision
