#include "vision/tile_classifier.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include <opencv2/imgproc.hpp>

#include "vision/tile_art.h"
#include "vision/tile_library.h"

namespace meeplecam::vision {
namespace {

constexpr int kField = 0, kRoad = 1, kCity = 2, kBuilding = 3, kLake = 4, kKinds = 5;

Status range(double v, double lo, double hi, const char* name) {
    if (!(v >= lo && v <= hi)) {
        return invalid("TileClassifierOptions", std::string(name) + " must be in [" + std::to_string(lo) + ", " +
                                                    std::to_string(hi) + "], got " + std::to_string(v));
    }
    return Ok{};
}

int kind_of(FeatureKind k) {
    switch (k) {
        case FeatureKind::Field: return kField;
        case FeatureKind::Road: return kRoad;
        case FeatureKind::City: return kCity;
        case FeatureKind::Monastery: return kBuilding;
        case FeatureKind::Lake: return kLake;
        default: break;  // the spin-offs' kinds (streets, markets, ...): not classified yet
    }
    return -1;
}

// Float Lab (L 0..100) of an 8-bit BGR image.
cv::Mat to_lab(const cv::Mat& bgr) {
    cv::Mat f, lab;
    bgr.convertTo(f, CV_32F, 1.0 / 255.0);
    cv::cvtColor(f, lab, cv::COLOR_BGR2Lab);
    return lab;
}

Result<cv::Mat> as_bgr(const cv::Mat& image) {
    if (image.empty()) return invalid("image", "is empty");
    if (image.depth() != CV_8U) return invalid("image", "must be 8-bit");
    if (std::min(image.cols, image.rows) < 16) {
        return invalid("image", "is too small to show a tile (" + std::to_string(image.cols) + "x" +
                                    std::to_string(image.rows) + ", at least 16x16)");
    }
    cv::Mat bgr;
    if (image.channels() == 3) {
        bgr = image;
    } else if (image.channels() == 4) {
        cv::cvtColor(image, bgr, cv::COLOR_BGRA2BGR);
    } else if (image.channels() == 1) {
        cv::cvtColor(image, bgr, cv::COLOR_GRAY2BGR);
    } else {
        return invalid("image", "must have 1, 3 or 4 channels");
    }
    return bgr;
}

// Orders four points TL, TR, BR, BL in image terms.
std::array<cv::Point2f, 4> order_corners(const std::vector<cv::Point2f>& pts) {
    std::array<cv::Point2f, 4> out{};
    cv::Point2f c(0, 0);
    for (const auto& p : pts) c += p * 0.25f;
    std::vector<std::pair<double, cv::Point2f>> by_angle;
    for (const auto& p : pts) by_angle.emplace_back(std::atan2(p.y - c.y, p.x - c.x), p);
    std::sort(by_angle.begin(), by_angle.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    // atan2 in image coordinates grows clockwise; start with the point of smallest x + y.
    std::size_t first = 0;
    for (std::size_t i = 1; i < 4; ++i) {
        if (by_angle[i].second.x + by_angle[i].second.y < by_angle[first].second.x + by_angle[first].second.y) first = i;
    }
    for (std::size_t i = 0; i < 4; ++i) out[i] = by_angle[(first + i) % 4].second;
    return out;
}

// Turns a box in tile fractions clockwise by `quarters` quarter turns about the centre.
cv::Rect2d turned_box(cv::Rect2d box, int quarters) {
    for (int q = 0; q < quarters; ++q) box = cv::Rect2d(1 - box.br().y, box.x, box.height, box.width);  // (x, y) -> (1 - y, x)
    return box;
}

// A near-vertical straight edge sought from one side of a crop: x = near + (far - near) * y / (rows - 1)
// columns in from that side; `step` is the lightness step that edge_min_cover of its middle reaches.
struct EdgeLine {
    int near = 0, far = 0;
    double step = -1, mean = 0;
    double inset() const { return 0.5 * (near + far); }
};

// The edges within the band of the crop's left (or right) side in `grad` (CV_32F, the step across
// columns, each pixel the largest within 1 px across): per distance from the side, the line (of
// all its leans) whose middle 80 % steps most consistently (the step edge_min_cover of it reaches;
// ties: the larger mean); kept where that step reaches `least` and no line within 2 px of it steps
// more (one edge, not its flanks). At most the 6 strongest.
std::vector<EdgeLine> edge_candidates(const cv::Mat& grad, bool from_right, double least, const TileClassifierOptions& o) {
    const int w = grad.cols, h = grad.rows;
    const int band = std::max(2, static_cast<int>(o.edge_band * w));
    const int tilt = static_cast<int>(o.edge_max_tilt * w);
    const int y0 = h / 10, y1 = h - h / 10;
    const auto column = [&](int from_side) { return from_right ? w - 1 - from_side : from_side; };
    std::vector<float> along(static_cast<std::size_t>(std::max(1, y1 - y0)));
    const auto k = static_cast<long>((1.0 - o.edge_min_cover) * static_cast<double>(along.size() - 1));
    std::vector<EdgeLine> by_near(static_cast<std::size_t>(band));
    for (int near = 1; near < band; ++near) {
        EdgeLine& best = by_near[static_cast<std::size_t>(near)];
        for (int far = std::max(1, near - tilt); far <= std::min(band - 1, near + tilt); ++far) {
            double sum = 0;
            for (int y = y0; y < y1; ++y) {
                const int x = column(near + static_cast<int>(std::lround(static_cast<double>(far - near) * y / std::max(1, h - 1))));
                along[static_cast<std::size_t>(y - y0)] = grad.at<float>(y, x);
                sum += grad.at<float>(y, x);
            }
            // The step edge_min_cover of the line reaches is at most its mean / edge_min_cover: skip
            // lines that cannot reach `least` or beat the best at this distance.
            const double mean = sum / static_cast<double>(along.size());
            if (mean / o.edge_min_cover < std::max(least, best.step)) continue;
            std::nth_element(along.begin(), along.begin() + k, along.end());
            const double step = along[static_cast<std::size_t>(k)];
            if (step > best.step || (step == best.step && mean > best.mean)) best = {near, far, step, mean};
        }
    }
    std::vector<EdgeLine> out;
    for (int near = 1; near < band; ++near) {
        const EdgeLine& e = by_near[static_cast<std::size_t>(near)];
        bool peak = e.step >= least;
        for (int d = -2; d <= 2 && peak; ++d) {
            const int other = near + d;
            if (d == 0 || other < 1 || other >= band) continue;
            const EdgeLine& f = by_near[static_cast<std::size_t>(other)];
            peak = f.step < e.step || (f.step == e.step && (f.mean < e.mean || (f.mean == e.mean && d > 0)));
        }
        if (peak) out.push_back(e);
    }
    std::sort(out.begin(), out.end(), [](const EdgeLine& a, const EdgeLine& b) { return a.step > b.step; });
    if (out.size() > 6) out.resize(6);
    return out;
}

// The `q`-quantile of a float image's values.
double quantile_of(const cv::Mat& values, double q) {
    std::vector<float> v(values.begin<float>(), values.end<float>());
    const auto k = static_cast<std::size_t>(std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
    return v[k];
}

// Finds the tile's square in `bgr` (a small, unblurred crop) from its four straight edges: per
// side the candidate near-axis lines within edge_band where the lightness steps across them (a
// cut edge against any background, a printed cut line, the seam to the next tile) over
// edge_min_cover of their middle; of the four-line choices whose sides agree (edge_min_aspect),
// the one whose weakest edge steps most. Corners TL, TR, BR, BL in `bgr` pixels; none when a side
// has no edge (a tight crop has its edges at the crop's border) or no choice makes a square.
std::optional<std::array<cv::Point2f, 4>> square_from_edges(const cv::Mat& bgr, const TileClassifierOptions& o) {
    // The lightness step across columns and across rows: L(x + 1) - L(x - 1) (a printed city wall
    // steps in hue more than in lightness; a cut edge or a dark cut line steps in lightness).
    cv::Mat lightness, gx, gy;
    cv::extractChannel(to_lab(bgr), lightness, 0);
    cv::Sobel(lightness, gx, CV_32F, 1, 0, 1);
    cv::Sobel(lightness, gy, CV_32F, 0, 1, 1);
    gx = cv::abs(gx);
    gy = cv::abs(gy).t();  // rows' edges as columns
    // Per direction: the edges along both sides, each stepping at least edge_min_step and
    // edge_contrast times the crop's median step in that direction (texture steps too, but not
    // along a line); the pairs of them and the side they span.
    struct Span {
        EdgeLine near_side, far_side;
        double side = 0, weakest = 0;
    };
    const auto spans_of = [&](const cv::Mat& grad) {
        cv::Mat near_max;  // within 1 px across the line
        cv::dilate(grad, near_max, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 1)));
        const double least = std::max(o.edge_min_step, o.edge_contrast * quantile_of(grad, 0.5));
        std::vector<Span> spans;
        const std::vector<EdgeLine> near_sides = edge_candidates(near_max, false, least, o), far_sides = edge_candidates(near_max, true, least, o);
        for (const EdgeLine& a : near_sides) {
            for (const EdgeLine& b : far_sides) {
                spans.push_back({a, b, grad.cols - a.inset() - b.inset(), std::min(a.step, b.step)});
            }
        }
        return spans;
    };
    // The four edges that make a square (edge_min_aspect) whose weakest edge steps most.
    const std::vector<Span> across = spans_of(gx), down = spans_of(gy);
    const Span* best_x = nullptr;
    const Span* best_y = nullptr;
    for (const Span& x : across) {
        for (const Span& y : down) {
            if (std::min(x.side, y.side) < o.edge_min_aspect * std::max(x.side, y.side)) continue;
            const double weakest = std::min(x.weakest, y.weakest);
            if (best_x == nullptr || weakest > std::min(best_x->weakest, best_y->weakest)) {
                best_x = &x;
                best_y = &y;
            }
        }
    }
    if (best_x == nullptr) return std::nullopt;
    const EdgeLine &left = best_x->near_side, &right = best_x->far_side, &top = best_y->near_side, &bottom = best_y->far_side;
    const double w = bgr.cols, h = bgr.rows;
    // Each edge as u = a + b * v: columns x = a + b y, rows y = a + b x (pixel coordinates).
    struct Axis { double a, b; };
    const auto vertical = [&](const EdgeLine& e, bool from_right) {
        const double b = (e.far - e.near) / std::max(1.0, h - 1);
        return from_right ? Axis{w - 1 - e.near, -b} : Axis{static_cast<double>(e.near), b};
    };
    const auto horizontal = [&](const EdgeLine& e, bool from_bottom) {
        const double b = (e.far - e.near) / std::max(1.0, w - 1);
        return from_bottom ? Axis{h - 1 - e.near, -b} : Axis{static_cast<double>(e.near), b};
    };
    const auto meet = [](const Axis& col, const Axis& row) {
        const double y = (row.a + row.b * col.a) / (1 - row.b * col.b);
        return cv::Point2f(static_cast<float>(col.a + col.b * y), static_cast<float>(y));
    };
    const Axis l = vertical(left, false), r = vertical(right, true), t = horizontal(top, false), b = horizontal(bottom, true);
    return std::array<cv::Point2f, 4>{meet(l, t), meet(r, t), meet(r, b), meet(l, b)};
}

}  // namespace

Status TileClassifierOptions::check() const {
    for (auto st : {range(canonical_px, 32, 1024, "canonical_px"), range(model_px, 8, 128, "model_px"),
                    range(border_ring, 0.005, 0.2, "border_ring"), range(background_spread, 1, 100, "background_spread"),
                    range(min_quad_area, 0.01, 1, "min_quad_area"), range(max_quad_area, min_quad_area, 1, "max_quad_area"),
                    range(min_quad_fill, 0.3, 1, "min_quad_fill"), range(min_quad_aspect, 0.3, 1, "min_quad_aspect"),
                    range(edge_band, 0.02, 0.45, "edge_band"), range(edge_max_tilt, 0, 0.2, "edge_max_tilt"),
                    range(edge_min_step, 0, 200, "edge_min_step"), range(edge_contrast, 0, 100, "edge_contrast"),
                    range(edge_min_cover, 0.1, 1, "edge_min_cover"), range(edge_min_aspect, 0.3, 1, "edge_min_aspect"),
                    range(margin_line_share, 0.1, 1, "margin_line_share"), range(margin_max_chroma, 0, 100, "margin_max_chroma"),
                    range(max_margin, 0, 0.45, "max_margin"), range(margin_light, 0, 100, "margin_light"), range(margin_dark, 0, 100, "margin_dark"),
                    range(lightness_weight, 0, 4, "lightness_weight"), range(boundary_weight, 0, 1, "boundary_weight"), range(road_slack_px, 0, 8, "road_slack_px"),
                    range(contrast_margin, 0, 100, "contrast_margin"), range(contrast_weight, 0, 100, "contrast_weight"),
                    range(green_weight, 0, 100, "green_weight"), range(field_max_a, -100, 100, "field_max_a"), range(field_green_weight, 0, 100, "field_green_weight"), range(pennant_blue, 0, 100, "pennant_blue"), range(pennant_contrast, 0, 100, "pennant_contrast"),
                    range(pennant_area, 1e-5, 0.5, "pennant_area"),
                    range(road_min_cover, 0, 1, "road_min_cover"), range(road_cover_weight, 0, 100, "road_cover_weight"),
                    range(road_arm_spread, 0, 200, "road_arm_spread"), range(road_arm_weight, 0, 100, "road_arm_weight"), range(pennant_weight, 0, 100, "pennant_weight"),
                    range(min_texture, 0, 50, "min_texture"), range(temperature, 1e-3, 100, "temperature"),
                    range(library_weight, 0, 100, "library_weight"), range(max_alternatives, 0, 100, "max_alternatives")}) {
        if (!st) return st;
    }
    if (model_px > canonical_px) return invalid("TileClassifierOptions", "model_px must not exceed canonical_px");
    return Ok{};
}

bool same_rotation(const TileType& type, int rot_a, int rot_b) {
    const int period = std::max<int>(1, static_cast<int>(type.distinct_rotations.size()));
    return ((rot_a - rot_b) % period + period) % period == 0;
}

struct TileClassifier::Scored {
    int hyp = 0;
    int rot = 0;  // the hypothesis' turn, reduced by the type's symmetry
    double cost = 0;
    double library = -1;
    std::array<cv::Vec3f, kKinds> means{};
    bool pennant_seen = false;
};

Result<TileClassifier> TileClassifier::create(const Catalog& catalog, const TileClassifierOptions& options,
                                              const TileLibrary* library) {
    if (catalog.tiles().empty()) return invalid("catalog", "has no tiles");
    return create(catalog.tiles(), options, library);
}

Result<TileClassifier> TileClassifier::create(std::vector<TileType> types, const TileClassifierOptions& options,
                                              const TileLibrary* library) {
    if (auto st = options.check(); !st) return st.error();
    if (types.empty()) return invalid("tile classifier", "has no tile types to tell apart");
    TileClassifier c;
    c.types_ = std::move(types);
    c.options_ = options;
    c.library_ = library;
    const int n = options.model_px;
    const int hi = n * 4;  // labels drawn finer, then each model pixel takes its majority
    for (int t = 0; t < static_cast<int>(c.types_.size()); ++t) {
        const TileType& type = c.types_[static_cast<std::size_t>(t)];
        int pennants = 0;
        for (const auto& f : type.features) pennants += f.pennants;
        // All four turns, even of symmetric types: the art drawn on a symmetric tile (a monastery,
        // a pennant) is not symmetric. Turns that place the same tile are merged when scored.
        const std::vector<int> rots = {0, 1, 2, 3};
        for (const auto& [shape, style] : printed_geometry_variants(type)) {
        for (const int r : rots) {
            const cv::Mat labels = feature_labels(shape, r, hi, style);
            cv::Mat kinds(hi, hi, CV_8S);
            for (int y = 0; y < hi; ++y) {
                for (int x = 0; x < hi; ++x) {
                    const int l = labels.at<int>(y, x);
                    kinds.at<schar>(y, x) = static_cast<schar>(
                        l < 0 ? -1 : kind_of(shape.features[static_cast<std::size_t>(l)].kind));
                }
            }
            // Buildings that belong to no feature, each a part of its own: the market stall in the
            // centre (wide, low) and an inn beside its road.
            std::vector<cv::Rect2d> buildings;
            if (shape.has_tag("bazaar")) buildings.emplace_back(0.39, 0.43, 0.22, 0.11);
            for (const cv::Rect2d& inn : inn_boxes(shape)) buildings.push_back(inn);
            cv::Mat building_at(hi, hi, CV_8S, cv::Scalar(-1));
            for (std::size_t b = 0; b < buildings.size(); ++b) {
                const cv::Rect2d box = turned_box(buildings[b], r);
                const cv::Point p0(static_cast<int>(box.x * hi), static_cast<int>(box.y * hi));
                const cv::Point p1(static_cast<int>(box.br().x * hi), static_cast<int>(box.br().y * hi));
                cv::rectangle(kinds, p0, p1, cv::Scalar(kBuilding), cv::FILLED);
                cv::rectangle(building_at, p0, p1, cv::Scalar(static_cast<double>(b)), cv::FILLED);
            }
            Hypothesis h;
            h.type = t;
            h.rot = r;
            h.pennant = pennants > 0;
            h.kind.assign(static_cast<std::size_t>(n * n), -1);
            h.weight.assign(static_cast<std::size_t>(n * n), 0.f);
            h.part.assign(static_cast<std::size_t>(n * n), -1);
            for (int y = 0; y < n; ++y) {
                for (int x = 0; x < n; ++x) {
                    std::array<int, kKinds + 1> votes{};
                    for (int dy = 0; dy < 4; ++dy) {
                        for (int dx = 0; dx < 4; ++dx) votes[static_cast<std::size_t>(kinds.at<schar>(4 * y + dy, 4 * x + dx) + 1)]++;
                    }
                    const auto best = std::max_element(votes.begin(), votes.end()) - votes.begin();
                    const int k = static_cast<int>(best) - 1;
                    const auto i = static_cast<std::size_t>(y * n + x);
                    h.kind[i] = static_cast<std::int8_t>(k);
                    if (k >= 0) h.kinds_present |= 1 << k;
                    // The non-field feature under the block's centre, when it has the block's terrain.
                    const int l = labels.at<int>(4 * y + 2, 4 * x + 2);
                    if (k > kField && l >= 0 && kind_of(shape.features[static_cast<std::size_t>(l)].kind) == k) {
                        h.part[i] = static_cast<std::int8_t>(l);
                    } else if (k == kBuilding) {  // a stall or an inn: a part of its own
                        const int b = building_at.at<schar>(4 * y + 2, 4 * x + 2);
                        h.part[i] = static_cast<std::int8_t>(shape.features.size() + static_cast<std::size_t>(std::max(0, b)));
                    }
                }
            }
            {
                std::vector<int> index(shape.features.size() + buildings.size() + 1, -1);
                for (auto& pt : h.part) {
                    if (pt < 0) continue;
                    auto& ix = index[static_cast<std::size_t>(pt)];
                    if (ix < 0) {
                        ix = h.parts++;
                        const auto f = static_cast<std::size_t>(pt);
                        h.part_kind.push_back(f < shape.features.size() ? kind_of(shape.features[f].kind) : kBuilding);
                    }
                    pt = static_cast<std::int8_t>(ix);
                }
            }
            // Pixels next to another terrain weigh less: printed art draws borders differently.
            for (int y = 0; y < n; ++y) {
                for (int x = 0; x < n; ++x) {
                    const auto i = static_cast<std::size_t>(y * n + x);
                    if (h.kind[i] < 0) continue;
                    bool edge = false;
                    for (int dy = -1; dy <= 1 && !edge; ++dy) {
                        for (int dx = -1; dx <= 1; ++dx) {
                            const int yy = std::clamp(y + dy, 0, n - 1), xx = std::clamp(x + dx, 0, n - 1);
                            if (h.kind[static_cast<std::size_t>(yy * n + xx)] != h.kind[i]) {
                                edge = true;
                                break;
                            }
                        }
                    }
                    h.weight[i] = edge ? static_cast<float>(options.boundary_weight) : 1.f;
                }
            }
            c.hyps_.push_back(std::move(h));
        }
        }
    }
    return c;
}

Result<cv::Mat> TileClassifier::extract_tile(const cv::Mat& image, bool* found,
                                             std::array<cv::Point2f, 4>* corners_out) const {
    auto bgr_r = as_bgr(image);
    if (!bgr_r) return bgr_r.error();
    const cv::Mat& bgr = bgr_r.value();
    const int side = options_.canonical_px;
    // Work on a small copy.
    const double scale = std::min(1.0, 256.0 / std::max(bgr.cols, bgr.rows));
    cv::Mat sharp, small;
    cv::resize(bgr, sharp, cv::Size(), scale, scale, cv::INTER_AREA);
    cv::GaussianBlur(sharp, small, cv::Size(5, 5), 1.2);
    const cv::Mat lab = to_lab(small);
    const int ring = std::max(2, static_cast<int>(std::lround(options_.border_ring * std::min(small.cols, small.rows))));
    std::vector<cv::Vec3f> ring_px;
    for (int y = 0; y < small.rows; ++y) {
        for (int x = 0; x < small.cols; ++x) {
            if (y < ring || x < ring || y >= small.rows - ring || x >= small.cols - ring) ring_px.push_back(lab.at<cv::Vec3f>(y, x));
        }
    }
    cv::Vec3f median;
    for (int ch = 0; ch < 3; ++ch) {
        std::vector<float> v;
        v.reserve(ring_px.size());
        for (const auto& p : ring_px) v.push_back(p[ch]);
        std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
        median[ch] = v[v.size() / 2];
    }
    std::vector<float> dist;
    dist.reserve(ring_px.size());
    for (const auto& p : ring_px) dist.push_back(static_cast<float>(cv::norm(p - median)));
    std::nth_element(dist.begin(), dist.begin() + static_cast<long>(dist.size() * 3 / 4), dist.end());
    const double spread = dist[dist.size() * 3 / 4];

    std::array<cv::Point2f, 4> corners = {cv::Point2f(0, 0), cv::Point2f(static_cast<float>(bgr.cols), 0),
                                          cv::Point2f(static_cast<float>(bgr.cols), static_cast<float>(bgr.rows)),
                                          cv::Point2f(0, static_cast<float>(bgr.rows))};
    bool have_quad = false;
    if (spread < options_.background_spread) {
        const double thr = std::max(2.5 * spread, 12.0);
        cv::Mat mask(small.size(), CV_8U);
        for (int y = 0; y < small.rows; ++y) {
            for (int x = 0; x < small.cols; ++x) {
                mask.at<uchar>(y, x) = cv::norm(lab.at<cv::Vec3f>(y, x) - median) > thr ? 255 : 0;
            }
        }
        const cv::Mat k = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(5, 5));
        cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, k, cv::Point(-1, -1), 2);
        cv::morphologyEx(mask, mask, cv::MORPH_OPEN, k);
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(mask, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
        double best_area = 0;
        std::size_t best = contours.size();
        for (std::size_t i = 0; i < contours.size(); ++i) {
            const double a = cv::contourArea(contours[i]);
            if (a > best_area) {
                best_area = a;
                best = i;
            }
        }
        const double crop_area = static_cast<double>(small.cols) * small.rows;
        if (best < contours.size() && best_area >= options_.min_quad_area * crop_area &&
            best_area <= options_.max_quad_area * crop_area) {
            std::vector<cv::Point> hull;
            cv::convexHull(contours[best], hull);
            const cv::RotatedRect rr = cv::minAreaRect(hull);
            const double rect_area = static_cast<double>(rr.size.width) * rr.size.height;
            const double aspect = std::min(rr.size.width, rr.size.height) / std::max(1e-3f, std::max(rr.size.width, rr.size.height));
            if (rect_area > 0 && best_area / rect_area >= options_.min_quad_fill && aspect >= options_.min_quad_aspect) {
                std::vector<cv::Point2f> pts;
                std::vector<cv::Point> approx;
                cv::approxPolyDP(hull, approx, 0.03 * cv::arcLength(hull, true), true);
                if (approx.size() == 4) {
                    for (const auto& p : approx) pts.emplace_back(static_cast<float>(p.x), static_cast<float>(p.y));
                } else {
                    cv::Point2f rp[4];
                    rr.points(rp);
                    pts.assign(rp, rp + 4);
                }
                const auto ordered = order_corners(pts);
                for (std::size_t i = 0; i < 4; ++i) {
                    corners[i] = (ordered[i] + cv::Point2f(0.5f, 0.5f)) * static_cast<float>(1.0 / scale);
                }
                have_quad = true;
            }
        }
    }
    if (!have_quad && options_.edge_square) {
        if (const auto edges = square_from_edges(sharp, options_)) {
            for (std::size_t i = 0; i < 4; ++i) corners[i] = ((*edges)[i] + cv::Point2f(0.5f, 0.5f)) * static_cast<float>(1.0 / scale);
            have_quad = true;
        }
    }
    cv::Rect kept(0, 0, bgr.cols, bgr.rows);  // the crop less its margins (no square found)
    if (!have_quad && options_.max_margin > 0) {
        // No square against one background: cut the paper-like strips along each side (paper
        // or table showing on one or two sides of a rough crop), each walked in from its side
        // line by line while most of the line is white or black.
        const auto achromatic = [&](int x, int y) {
            const cv::Vec3f& v = lab.at<cv::Vec3f>(y, x);
            return std::hypot(v[1], v[2]) < options_.margin_max_chroma && (v[0] >= options_.margin_light || v[0] <= options_.margin_dark);
        };
        const auto strip_line = [&](bool column, int at) {
            const int n = column ? small.rows : small.cols;
            int grey = 0;
            for (int i = 0; i < n; ++i) grey += column ? achromatic(at, i) : achromatic(i, at);
            return grey >= options_.margin_line_share * n;
        };
        const int most_x = static_cast<int>(options_.max_margin * small.cols), most_y = static_cast<int>(options_.max_margin * small.rows);
        int left = 0, right = 0, top = 0, bottom = 0;
        while (left < most_x && strip_line(true, left)) ++left;
        while (right < most_x && strip_line(true, small.cols - 1 - right)) ++right;
        while (top < most_y && strip_line(false, top)) ++top;
        while (bottom < most_y && strip_line(false, small.rows - 1 - bottom)) ++bottom;
        if (left + right + top + bottom > 0) {
            const auto full = [&](int small_px, int limit) { return std::clamp(static_cast<int>(std::lround(small_px / scale)), 0, limit); };
            const int x0 = full(left, bgr.cols - 1), x1 = full(small.cols - right, bgr.cols), y0 = full(top, bgr.rows - 1), y1 = full(small.rows - bottom, bgr.rows);
            if (x1 - x0 >= 16 && y1 - y0 >= 16) kept = cv::Rect(x0, y0, x1 - x0, y1 - y0);
            const auto fx0 = static_cast<float>(kept.x), fx1 = static_cast<float>(kept.br().x), fy0 = static_cast<float>(kept.y), fy1 = static_cast<float>(kept.br().y);
            corners = {cv::Point2f(fx0, fy0), cv::Point2f(fx1, fy0), cv::Point2f(fx1, fy1), cv::Point2f(fx0, fy1)};
        }
    }
    if (found) *found = have_quad;
    if (corners_out) *corners_out = corners;
    const float s = static_cast<float>(side);
    const std::array<cv::Point2f, 4> dst = {cv::Point2f(0, 0), cv::Point2f(s, 0), cv::Point2f(s, s), cv::Point2f(0, s)};
    const cv::Mat h = cv::getPerspectiveTransform(corners.data(), dst.data());
    cv::Mat out;
    cv::Mat src = bgr;
    if (!have_quad && std::max(kept.width, kept.height) > 4 * side) {  // shrink first: warpPerspective does not filter
        cv::resize(bgr(kept), src, cv::Size(2 * side, 2 * side), 0, 0, cv::INTER_AREA);
        const float f = static_cast<float>(2 * side);
        const std::array<cv::Point2f, 4> sc = {cv::Point2f(0, 0), cv::Point2f(f, 0), cv::Point2f(f, f), cv::Point2f(0, f)};
        cv::warpPerspective(src, out, cv::getPerspectiveTransform(sc.data(), dst.data()), cv::Size(side, side),
                            cv::INTER_AREA, cv::BORDER_REPLICATE);
        return out;
    }
    if (have_quad) {
        // Blur to the output's scale before the warp so texture does not alias.
        const double shrink = cv::norm(corners[1] - corners[0]) / s;
        if (shrink > 2) {
            const double sigma = 0.4 * shrink;
            cv::GaussianBlur(bgr, src, cv::Size(0, 0), sigma);
        }
    }
    cv::warpPerspective(src, out, h, cv::Size(side, side), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    return out;
}

// Every road arm a hypothesis draws must show a road band along its length: the share of its
// pixels whose colour (the best within road_slack_px, as fitted) is nearer the road's than the
// field's must reach road_min_cover, else road_cover_weight x sqrt(its area share) per missing
// unit. An arm invented over grass costs little residual when a house or a dark patch lies
// near it (the slack finds it); along its length it shows grass (real scans: V read as a
// junction, K as L).
double TileClassifier::road_band_cost(const Hypothesis& h, const std::vector<cv::Vec3f>& px, const std::vector<int>& road_src,
                                      const cv::Vec3f& road, const cv::Vec3f& field, double total_w) const {
    if (options_.road_cover_weight <= 0 || h.parts == 0) return 0;
    std::vector<double> covered(static_cast<std::size_t>(h.parts), 0.0), weight(static_cast<std::size_t>(h.parts), 0.0);
    for (std::size_t i = 0; i < px.size(); ++i) {
        if (h.kind[i] != kRoad || h.part[i] < 0) continue;
        const cv::Vec3f& c = px[static_cast<std::size_t>(road_src[i])];
        const cv::Vec3f dr = c - road, df = c - field;
        const double to_road = std::abs(dr[0]) + std::abs(dr[1]) + std::abs(dr[2]), to_field = std::abs(df[0]) + std::abs(df[1]) + std::abs(df[2]);
        const auto j = static_cast<std::size_t>(h.part[i]);
        weight[j] += h.weight[i];
        covered[j] += to_road < to_field ? h.weight[i] : 0.0;
    }
    double cost = 0;
    for (std::size_t j = 0; j < weight.size(); ++j) {
        if (weight[j] <= 0) continue;
        const double cover = covered[j] / weight[j];
        cost += options_.road_cover_weight * std::sqrt(weight[j] / total_w) * std::max(0.0, options_.road_min_cover - cover);
    }
    return cost;
}

// Every road arm a hypothesis draws shows the colour of its other arms: one road is printed in
// one colour, so an arm whose pixels (the best within road_slack_px, as fitted) average another
// colour than the rest of the road costs road_arm_weight x sqrt(its area share) per Lab unit past
// road_arm_spread. An arm invented over field art (a farmstead, a fence, a stand of trees) picks
// that art up through the slack and passes the band test (it is less green than the grass), but
// its colour is the art's and not the road's (real scans: V read as the junction W, its third arm
// over the farmstead printed beside the bend).
double TileClassifier::road_arm_colour_cost(const Hypothesis& h, const std::vector<cv::Vec3f>& px, const std::vector<int>& road_src,
                                            double total_w) const {
    if (options_.road_arm_weight <= 0 || h.parts < 2) return 0;
    const auto parts = static_cast<std::size_t>(h.parts);
    std::vector<cv::Vec3d> sum(parts, cv::Vec3d(0, 0, 0));
    std::vector<double> weight(parts, 0.0);
    for (std::size_t i = 0; i < px.size(); ++i) {
        if (h.kind[i] != kRoad || h.part[i] < 0) continue;
        const auto j = static_cast<std::size_t>(h.part[i]);
        sum[j] += cv::Vec3d(px[static_cast<std::size_t>(road_src[i])]) * static_cast<double>(h.weight[i]);
        weight[j] += h.weight[i];
    }
    cv::Vec3d all_sum(0, 0, 0);
    double all_weight = 0;
    for (std::size_t j = 0; j < parts; ++j) {
        all_sum += sum[j];
        all_weight += weight[j];
    }
    double cost = 0;
    for (std::size_t j = 0; j < parts; ++j) {
        const double others = all_weight - weight[j];
        if (weight[j] <= 0 || others <= 0) continue;
        const double d = cv::norm(sum[j] / weight[j] - (all_sum - sum[j]) / others);
        cost += options_.road_arm_weight * std::sqrt(weight[j] / total_w) * std::max(0.0, d - options_.road_arm_spread);
    }
    return cost;
}

std::vector<TileClassifier::Scored> TileClassifier::score_all(const cv::Mat& tile, const std::string& only_type) const {
    const int n = options_.model_px;
    const cv::Mat lab_full = to_lab(tile);
    cv::Mat lab;
    cv::resize(lab_full, lab, cv::Size(n, n), 0, 0, cv::INTER_AREA);
    // Pennant evidence: the bluest b* near each model pixel (a min filter at full resolution).
    cv::Mat bch, bmin, bmin_small;
    cv::extractChannel(lab_full, bch, 2);
    const int block = std::max(1, lab_full.cols / n);
    cv::erode(bch, bmin, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(block, block)));
    cv::resize(bmin, bmin_small, cv::Size(n, n), 0, 0, cv::INTER_NEAREST);
    const auto np = static_cast<std::size_t>(n * n);
    const float wl = static_cast<float>(options_.lightness_weight);
    std::vector<cv::Vec3f> px(np);
    std::vector<float> bl(np);
    for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
            const auto& p = lab.at<cv::Vec3f>(y, x);
            px[static_cast<std::size_t>(y * n + x)] = cv::Vec3f(p[0] * wl, p[1], p[2]);
            // Pennants sit inside the city, never on the tile's rim (where background may leak in).
            const bool rim = x < 2 || y < 2 || x >= n - 2 || y >= n - 2;
            bl[static_cast<std::size_t>(y * n + x)] = rim ? 1e3f : bmin_small.at<float>(y, x);
        }
    }
    std::vector<float> thumb;
    if (library_ && !library_->entries.empty()) thumb = tile_thumbnail(tile, library_->thumb_px);

    std::vector<Scored> out;
    out.reserve(hyps_.size());
    for (std::size_t hi = 0; hi < hyps_.size(); ++hi) {
        const Hypothesis& h = hyps_[hi];
        const TileType& type = types_[static_cast<std::size_t>(h.type)];
        if (!only_type.empty() && type.id != only_type) continue;
        std::array<cv::Vec3d, kKinds> sum{};
        std::array<double, kKinds> wsum{};
        for (std::size_t i = 0; i < np; ++i) {
            const int k = h.kind[i];
            if (k < 0) continue;
            sum[static_cast<std::size_t>(k)] += cv::Vec3d(px[i]) * static_cast<double>(h.weight[i]);
            wsum[static_cast<std::size_t>(k)] += h.weight[i];
        }
        Scored s;
        s.hyp = static_cast<int>(hi);
        double total_w = 0;
        for (int k = 0; k < kKinds; ++k) {
            const auto ku = static_cast<std::size_t>(k);
            if (wsum[ku] > 0) s.means[ku] = cv::Vec3f(sum[ku] / wsum[ku]);
            total_w += wsum[ku];
        }
        // Roads are thin and drawn where the artist liked: a road pixel may take its colour
        // from the best matching pixel within road_slack model pixels.
        const int slack = options_.road_slack_px;
        std::vector<int> road_src;
        if (wsum[kRoad] > 0 && slack > 0) {
            road_src.assign(np, -1);
            for (int iter = 0; iter < 2; ++iter) {
                cv::Vec3d rs(0, 0, 0);
                double rw = 0;
                for (int y = 0; y < n; ++y) {
                    for (int x = 0; x < n; ++x) {
                        const auto i = static_cast<std::size_t>(y * n + x);
                        if (h.kind[i] != kRoad) continue;
                        double best = std::numeric_limits<double>::max();
                        int arg = static_cast<int>(i);
                        for (int yy = std::max(0, y - slack); yy <= std::min(n - 1, y + slack); ++yy) {
                            for (int xx = std::max(0, x - slack); xx <= std::min(n - 1, x + slack); ++xx) {
                                // First pass: the least field-like pixel; then the closest to the road colour.
                                const auto q = static_cast<std::size_t>(yy * n + xx);
                                double l1 = 0;
                                if (iter == 0 && wsum[kField] > 0) {
                                    const cv::Vec3f d = px[q] - s.means[kField];
                                    l1 = -(std::abs(d[0]) + std::abs(d[1]) + std::abs(d[2]));
                                } else {
                                    const cv::Vec3f d = px[q] - s.means[kRoad];
                                    l1 = std::abs(d[0]) + std::abs(d[1]) + std::abs(d[2]);
                                }
                                if (l1 < best) {
                                    best = l1;
                                    arg = yy * n + xx;
                                }
                            }
                        }
                        road_src[i] = arg;
                        rs += cv::Vec3d(px[static_cast<std::size_t>(arg)]) * static_cast<double>(h.weight[i]);
                        rw += h.weight[i];
                    }
                }
                if (rw > 0) s.means[kRoad] = cv::Vec3f(rs / rw);
            }
        }
        double resid = 0;
        double pennant_px = 0;
        for (std::size_t i = 0; i < np; ++i) {
            const int k = h.kind[i];
            if (k < 0) continue;
            const std::size_t src = (k == kRoad && !road_src.empty()) ? static_cast<std::size_t>(road_src[i]) : i;
            const cv::Vec3f d = px[src] - s.means[static_cast<std::size_t>(k)];
            resid += h.weight[i] * (std::abs(d[0]) + std::abs(d[1]) + std::abs(d[2]));
        }
        if (wsum[kCity] > 0) {
            const double limit = std::min(-options_.pennant_blue, static_cast<double>(s.means[kCity][2]) - options_.pennant_contrast);
            for (std::size_t i = 0; i < np; ++i) {
                if (h.kind[i] == kCity && bl[i] < limit) pennant_px += 1;
            }
        }
        double cost = resid / std::max(1e-9, total_w);
        const bool has_field = wsum[kField] > 0;
        for (int k = 1; k < kKinds; ++k) {
            const auto ku = static_cast<std::size_t>(k);
            if (wsum[ku] <= 0) continue;
            const double share = wsum[ku] / total_w;
            (void)share;
            if (has_field) {
                cost += options_.green_weight * std::max(0.0, static_cast<double>(s.means[kField][1] - s.means[ku][1]));
            } else {
                cost += options_.green_weight * std::max(0.0, -8.0 - static_cast<double>(s.means[ku][1]));
            }
        }
        // Every non-field feature the hypothesis draws must show: its own plain mean colour (no
        // road slack: that could pick any odd pixel) must differ from the field's.
        // (With no field, as in an all-city tile, a centre building must differ from the city.)
        const int ref = has_field ? kField : kCity;
        if (wsum[static_cast<std::size_t>(ref)] > 0 && h.parts > 0) {
            std::vector<cv::Vec3d> psum(static_cast<std::size_t>(h.parts), cv::Vec3d(0, 0, 0));
            std::vector<double> pw(static_cast<std::size_t>(h.parts), 0.0);
            for (std::size_t i = 0; i < np; ++i) {
                if (h.part[i] < 0) continue;
                psum[static_cast<std::size_t>(h.part[i])] += cv::Vec3d(px[i]) * static_cast<double>(h.weight[i]);
                pw[static_cast<std::size_t>(h.part[i])] += h.weight[i];
            }
            for (std::size_t j = 0; j < psum.size(); ++j) {
                if (pw[j] <= 0 || (ref == kCity && h.part_kind[j] == kCity)) continue;
                const double d = cv::norm(cv::Vec3f(psum[j] / pw[j]) - s.means[static_cast<std::size_t>(ref)]);
                cost += options_.contrast_weight * std::sqrt(pw[j] / total_w) * std::max(0.0, options_.contrast_margin - d);
                // A building on a city or a road (a bazaar's stall) must also show against them,
                // else a plain tile fits its stalled twin as well (G and CB3, U and CB10).
                for (const int other : {kCity, kRoad}) {
                    if (ref != kField || h.part_kind[j] != kBuilding || wsum[static_cast<std::size_t>(other)] <= 0) continue;
                    const double dc = cv::norm(cv::Vec3f(psum[j] / pw[j]) - s.means[static_cast<std::size_t>(other)]);
                    cost += options_.contrast_weight * std::sqrt(pw[j] / total_w) * std::max(0.0, options_.contrast_margin - dc);
                }
            }
        }
        if (has_field && !road_src.empty()) cost += road_band_cost(h, px, road_src, s.means[kRoad], s.means[kField], total_w);
        if (!road_src.empty()) cost += road_arm_colour_cost(h, px, road_src, total_w);
        if (has_field) cost += options_.field_green_weight * std::max(0.0, static_cast<double>(s.means[kField][1]) - options_.field_max_a);
        if (wsum[kCity] > 0) {
            const double p = std::min(1.0, pennant_px / static_cast<double>(np) / options_.pennant_area);
            s.pennant_seen = p >= 1.0;
            cost += options_.pennant_weight * (h.pennant ? (1.0 - p) : p);
        }
        if (!thumb.empty()) {
            s.library = library_->distance(thumb, type.id, h.rot, options_.lightness_weight);
        }
        s.cost = cost;
        out.push_back(s);
    }
    if (!thumb.empty()) {
        double worst = 0;
        for (const auto& s : out) worst = std::max(worst, s.library);
        for (auto& s : out) s.cost += options_.library_weight * (s.library >= 0 ? s.library : worst);
    }
    std::sort(out.begin(), out.end(), [](const Scored& a, const Scored& b) { return a.cost < b.cost; });
    // Keep the best of the turns that place the same tile, named by the smallest of them.
    std::vector<Scored> merged;
    std::vector<std::uint8_t> seen(types_.size() * 4, 0);
    for (auto& sc : out) {
        const Hypothesis& h = hyps_[static_cast<std::size_t>(sc.hyp)];
        const TileType& type = types_[static_cast<std::size_t>(h.type)];
        const int period = std::max<int>(1, static_cast<int>(type.distinct_rotations.size()));
        sc.rot = h.rot % period;
        auto& flag = seen[static_cast<std::size_t>(h.type * 4 + sc.rot)];
        if (flag) continue;
        flag = 1;
        merged.push_back(sc);
    }
    return merged;
}

std::vector<TileHypothesis> TileClassifier::score_canonical(const cv::Mat& tile, const std::string& only_type) const {
    const auto scored = score_all(tile, only_type);
    std::vector<TileHypothesis> out;
    if (scored.empty()) return out;
    double z = 0;
    for (const auto& s : scored) z += std::exp(-(s.cost - scored.front().cost) / options_.temperature);
    for (const auto& s : scored) {
        const Hypothesis& h = hyps_[static_cast<std::size_t>(s.hyp)];
        out.push_back({types_[static_cast<std::size_t>(h.type)].id, s.rot, s.cost,
                       std::exp(-(s.cost - scored.front().cost) / options_.temperature) / z});
    }
    return out;
}

Result<TileClassification> TileClassifier::classify(const cv::Mat& image) const {
    TileClassification result;
    auto tile = extract_tile(image, &result.found_square, &result.corners);
    if (!tile) return tile.error();
    result.tile = tile.value();
    {
        const cv::Mat lab = to_lab(result.tile);
        cv::Scalar mean, stddev;
        cv::meanStdDev(lab, mean, stddev);
        const double spread = std::sqrt((stddev[0] * stddev[0] + stddev[1] * stddev[1] + stddev[2] * stddev[2]) / 3.0);
        if (spread < options_.min_texture) {
            return invalid("image", "does not show a tile (no structure: colour spread " + std::to_string(spread).substr(0, 4) + ")");
        }
    }
    const auto scored = score_all(result.tile, {});
    if (scored.empty()) return invalid("catalog", "has no tiles");
    double z = 0;
    for (const auto& s : scored) z += std::exp(-(s.cost - scored.front().cost) / options_.temperature);
    auto hyp_of = [&](const Scored& s) {
        const Hypothesis& h = hyps_[static_cast<std::size_t>(s.hyp)];
        return TileHypothesis{types_[static_cast<std::size_t>(h.type)].id, s.rot, s.cost,
                              std::exp(-(s.cost - scored.front().cost) / options_.temperature) / z};
    };
    result.best = hyp_of(scored.front());
    result.pennant_seen = scored.front().pennant_seen;
    for (std::size_t i = 1; i < scored.size() && static_cast<int>(result.alternatives.size()) < options_.max_alternatives; ++i) {
        result.alternatives.push_back(hyp_of(scored[i]));
    }
    // Port evidence: the colour at each port against the best fit's terrain colours.
    const Hypothesis& best = hyps_[static_cast<std::size_t>(scored.front().hyp)];
    const int n = options_.model_px;
    cv::Mat lab;
    cv::resize(to_lab(result.tile), lab, cv::Size(n, n), 0, 0, cv::INTER_AREA);
    for (int p = 0; p < kPorts; ++p) {
        const cv::Point2d q = port_point(static_cast<Port>(p), 0.1);
        const int x = std::clamp(static_cast<int>(q.x * n), 0, n - 1), y = std::clamp(static_cast<int>(q.y * n), 0, n - 1);
        const auto& v = lab.at<cv::Vec3f>(y, x);
        const cv::Vec3f c(v[0] * static_cast<float>(options_.lightness_weight), v[1], v[2]);
        std::array<double, kKinds> w{};
        double total = 0;
        for (int k = 0; k < kKinds; ++k) {
            if (!(best.kinds_present & (1 << k))) continue;
            w[static_cast<std::size_t>(k)] = std::exp(-cv::norm(c - scored.front().means[static_cast<std::size_t>(k)]) / 8.0);
            total += w[static_cast<std::size_t>(k)];
        }
        if (total <= 0) continue;
        auto& e = result.ports[static_cast<std::size_t>(p)];
        e.field = w[kField] / total;
        e.road = w[kRoad] / total;
        e.city = w[kCity] / total;
        e.other = (w[kBuilding] + w[kLake]) / total;
    }
    return result;
}

}  // namespace meeplecam::vision
