// Random source: portable draws from a std::mt19937_64 (the std:: distributions are
// implementation-defined, so the renderer uses these to stay reproducible everywhere).
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string_view>

namespace meeplecam::vision {

class RandomSource {
public:
    explicit RandomSource(std::mt19937_64& engine) : engine_(&engine) {}

    // Returns a double uniform in [lo, hi).
    double uniform(double lo, double hi) {
        const double unit = static_cast<double>((*engine_)() >> 11) * 0x1.0p-53;
        return lo + (hi - lo) * unit;
    }
    // Returns an integer uniform in [lo, hi]. Assumes lo <= hi.
    int integer(int lo, int hi) {
        const auto span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo + 1);
        return lo + static_cast<int>((*engine_)() % span);
    }
    // Returns true with probability p.
    bool chance(double p) { return uniform(0.0, 1.0) < p; }
    // Returns a standard normal draw (Box-Muller).
    double normal() {
        const double u1 = uniform(0x1.0p-53, 1.0);
        const double u2 = uniform(0.0, 1.0);
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    }
    // Returns a fresh 64-bit value (to seed another engine or cv::RNG).
    std::uint64_t bits() { return (*engine_)(); }

private:
    std::mt19937_64* engine_;
};

// Returns the FNV-1a hash of `text` (stable seeds derived from names).
constexpr std::uint64_t stable_hash(std::string_view text, std::uint64_t h = 1469598103934665603ULL) {
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

}  // namespace meeplecam::vision
