// Stage 4 of the board reader (joint decoding) and the whole reader.
#include "vision/board_reader.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <cstdio>
#include <cstdlib>
#include <tuple>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/homography.h"

namespace meeplecam::vision {
namespace {

constexpr double kMissingCountScore = -5.0;  // log-prior of a type the edition does not have
constexpr double kPhaseRatio = 1.5;          // the board's outline must fold this much more on the cells' middles than on their sides to move the lattice
constexpr int kSideCol[4] = {0, 1, 0, -1}, kSideRow[4] = {-1, 0, 1, 0};  // the step to a cell's neighbour on board side s (N, E, S, W)

double elapsed_ms(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

// Adds the wall and process CPU time since it was made (or last added) to a stage.
class StageClock {
public:
    void add_to(StageTime& stage) {
        const auto now = std::chrono::steady_clock::now();
        const std::clock_t cpu = std::clock();
        stage.wall_ms += std::chrono::duration<double, std::milli>(now - wall_).count();
        stage.cpu_ms += 1000.0 * static_cast<double>(cpu - cpu_) / CLOCKS_PER_SEC;
        wall_ = now, cpu_ = cpu;
    }

private:
    std::chrono::steady_clock::time_point wall_ = std::chrono::steady_clock::now();
    std::clock_t cpu_ = std::clock();
};

// The whole top view of a checked lattice (check_lattice may warp it only near the tiles).
cv::Mat whole_top_view(const cv::Mat& image, const LatticeView& view) {
    if (!view.top_near_cells && !view.top.empty()) return view.top;
    cv::Mat top;
    const cv::Size size(static_cast<int>(std::ceil(view.cols * view.pitch_px)), static_cast<int>(std::ceil(view.rows * view.pitch_px)));
    cv::warpPerspective(image, top, view.image_to_top, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    return top;
}


// Re-phases the lattice by half a cell where the board's silhouette says so: lines through
// the tiles' middles (roads) can fold as sharply as the gaps between tiles, and a lattice on
// the middles cuts every tile in four. The board's outline against the table (the edges of
// the not-table mask, holes included) runs along tile sides only, so its positions folded
// modulo the pitch peak at the true gaps; each axis is moved to the nearer half.
void choose_phase(const cv::Mat& image, LatticeView& view, std::vector<CellObservation>& cells, const LatticeOptions& o) {
    const cv::Mat& m = view.not_table;
    if (m.empty() || cells.size() < 4) return;
    constexpr int kBins = 16;
    std::array<double, kBins> fold_x{}, fold_y{};
    const double p = view.pitch_px;
    auto bin = [&](double v) { return static_cast<std::size_t>(std::clamp(static_cast<int>((v / p - std::floor(v / p)) * kBins), 0, kBins - 1)); };
    for (int y = 0; y + 1 < m.rows; ++y) {
        const auto* a = m.ptr<std::uint8_t>(y);
        const auto* b = m.ptr<std::uint8_t>(y + 1);
        for (int x = 0; x + 1 < m.cols; ++x) {
            if (a[x] != a[x + 1]) fold_x[bin(x + 0.5)] += 1;
            if (a[x] != b[x]) fold_y[bin(y + 0.5)] += 1;
        }
    }
    // The shift (0 or half a pitch) that brings an axis' outline peak onto the cell sides.
    auto half_off = [&](const std::array<double, kBins>& f) {
        double near = 0, far = 0, total = 0;
        for (int k = 0; k < kBins; ++k) {
            const double d = std::abs(std::remainder((k + 0.5) / kBins, 1.0));  // distance from a cell side, in pitches
            total += f[static_cast<std::size_t>(k)];
            if (d < 0.125) near += f[static_cast<std::size_t>(k)];
            if (d > 0.375) far += f[static_cast<std::size_t>(k)];
        }
        return total > 0 && far > kPhaseRatio * near;
    };
    const cv::Point2d shift(half_off(fold_x) ? p / 2 : 0, half_off(fold_y) ? p / 2 : 0);
    if (shift == cv::Point2d(0, 0)) return;
    shift_lattice(image, view, shift);
    cells = occupied_cells(view, o);
}

}  // namespace

Status DecoderOptions::check() const {
    if (!(mismatch_penalty >= 0)) return invalid("decoder options", "mismatch_penalty must be >= 0");
    if (!(excess_penalty >= 0)) return invalid("decoder options", "excess_penalty must be >= 0");
    if (!(count_prior >= 0)) return invalid("decoder options", "count_prior must be >= 0");
    if (max_sweeps < 0 || max_sweeps > 1000) return invalid("decoder options", "max_sweeps must be within [0, 1000]");
    if (pair_moves < 0 || pair_moves > 100) return invalid("decoder options", "pair_moves must be within [0, 100]");
    if (edition.empty()) return invalid("decoder options", "edition must not be empty");
    return Ok{};
}

Status ReframeOptions::check() const {
    if (!(cell_margin >= 0 && cell_margin <= 1)) return invalid("reframe options", "cell_margin must be within [0, 1]");
    if (!(table_margin >= 0 && table_margin <= 2)) return invalid("reframe options", "table_margin must be within [0, 2]");
    if (rounds < 1 || rounds > 10) return invalid("reframe options", "rounds must be within [1, 10]");
    if (rounds_while_moving < 0 || rounds_while_moving > 10) return invalid("reframe options", "rounds_while_moving must be within [0, 10]");
    if (!(min_change >= 0)) return invalid("reframe options", "min_change must not be negative");
    if (!(max_step >= 0)) return invalid("reframe options", "max_step must not be negative");
    if (!(min_gain >= 0)) return invalid("reframe options", "min_gain must not be negative");
    return Ok{};
}

Status ReaderOptions::check() const {
    if (auto st = veil.check(); !st) return st;
    if (auto st = lattice.check(); !st) return st;
    if (auto st = rescale.check(); !st) return st;
    if (auto st = subdivide.check(); !st) return st;
    if (auto st = coarsen.check(); !st) return st;
    if (auto st = reframe.check(); !st) return st;
    if (auto st = refine.check(); !st) return st;
    if (auto st = light.check(); !st) return st;
    if (auto st = classifier.check(); !st) return st;
    if (auto st = decoder.check(); !st) return st;
    if (auto st = pennants.check(); !st) return st;
    if (min_tiles < 1) return invalid("reader options", "min_tiles must be at least 1");
    if (!(max_tiles_share > 0)) return invalid("reader options", "max_tiles_share must be positive");
    if (!(min_tile_px > 0)) return invalid("reader options", "min_tile_px must be positive");
    if (max_lattices < 1 || max_lattices > 16) return invalid("reader options", "max_lattices must be within [1, 16]");
    if (!(min_tile_contrast >= 1)) return invalid("reader options", "min_tile_contrast must be at least 1");
    if (!(min_zoom >= 1)) return invalid("reader options", "min_zoom must be at least 1");
    if (!(zoom_margin >= 0 && zoom_margin <= 1)) return invalid("reader options", "zoom_margin must be within [0, 1]");
    if (!(off_frame_table_share >= 0 && off_frame_table_share < 1)) return invalid("reader options", "off_frame_table_share must be within [0, 1)");
    if (!(off_frame_min_mask_change >= 0 && off_frame_min_mask_change <= 1)) return invalid("reader options", "off_frame_min_mask_change must be within [0, 1]");
    if (!(sure_tile_contrast >= min_tile_contrast)) return invalid("reader options", "sure_tile_contrast must be at least min_tile_contrast");
    if (!(weak_tile_contrast >= 1 && weak_tile_contrast <= min_tile_contrast)) return invalid("reader options", "weak_tile_contrast must be within [1, min_tile_contrast]");
    if (min_checked_tiles < 4) return invalid("reader options", "min_checked_tiles must be at least 4");
    if (!(min_side_agreement >= 0 && min_side_agreement <= 1)) return invalid("reader options", "min_side_agreement must be within [0, 1]");
    if (min_side_pairs < 1) return invalid("reader options", "min_side_pairs must be at least 1");
    if (!(relearn_share >= 0 && relearn_share < 1)) return invalid("reader options", "relearn_share must be within [0, 1)");
    if (min_relearn_disagreeing < 1 || min_relearn_disagreeing > 4) return invalid("reader options", "min_relearn_disagreeing must be within [1, 4]");
    if (relearn_rounds < 1 || relearn_rounds > 8) return invalid("reader options", "relearn_rounds must be within [1, 8]");
    if (!(min_unary_gain >= 0)) return invalid("reader options", "min_unary_gain must be >= 0 (1 or more: off)");
    if (!(min_median_alignment >= 0 && min_median_alignment <= 2)) return invalid("reader options", "min_median_alignment must be within [0, 2]");
    if (min_aligned_cells < 1) return invalid("reader options", "min_aligned_cells must be at least 1");
    if (!(min_added_alignment >= 1)) return invalid("reader options", "min_added_alignment must be at least 1");
    if (!(min_masked_alignment >= 1 && min_masked_alignment <= min_added_alignment)) return invalid("reader options", "min_masked_alignment must be within [1, min_added_alignment]");
    if (!(masked_offset_search >= 0 && masked_offset_search <= 0.5)) return invalid("reader options", "masked_offset_search must be within [0, 0.5]");
    if (!(masked_offset_step > 0 && masked_offset_step <= 0.25)) return invalid("reader options", "masked_offset_step must be within (0, 0.25]");
    if (!(masked_offset_overlap >= 0)) return invalid("reader options", "masked_offset_overlap must be >= 0");
    if (masked_offset_neighbours < 0 || masked_offset_neighbours > 4) return invalid("reader options", "masked_offset_neighbours must be within [0, 4]");
    if (masked_offset_seams < 0 || masked_offset_seams > 4) return invalid("reader options", "masked_offset_seams must be within [0, 4]");
    if (!(min_seam_alignment >= 0 && min_seam_alignment <= min_added_alignment)) return invalid("reader options", "min_seam_alignment must be within [0, min_added_alignment]");
    if (min_enclosing_tiles < 0 || min_enclosing_tiles > 4) return invalid("reader options", "min_enclosing_tiles must be within [0, 4]");
    if (!(min_walled_share > 0)) return invalid("reader options", "min_walled_share must be above 0 (above 1: off)");
    if (min_walled_tiles < 1 || min_walled_tiles > 4) return invalid("reader options", "min_walled_tiles must be within [1, 4]");
    if (!(grow_below_copies_share > 0 && grow_below_copies_share <= 4)) return invalid("reader options", "grow_below_copies_share must be within (0, 4]");
    if (!(enclosed_alignment_share >= 0 && enclosed_alignment_share <= 2)) return invalid("reader options", "enclosed_alignment_share must be within [0, 2]");
    if (!(min_enclosing_board_alignment >= 0)) return invalid("reader options", "min_enclosing_board_alignment must be at least 0");
    if (min_enclosed_like < 1 || min_enclosed_like > 4) return invalid("reader options", "min_enclosed_like must be within [1, 4]");
    if (!(seam_like > 0 && seam_unlike >= seam_like)) return invalid("reader options", "seam_like must be positive and seam_unlike at least seam_like");
    if (min_seam_pairs < 1) return invalid("reader options", "min_seam_pairs must be at least 1");
    if (grow_rounds < 0 || grow_rounds > 10) return invalid("reader options", "grow_rounds must be within [0, 10]");
    if (!(min_across_gap_alignment == 0 || (min_across_gap_alignment >= 1 && min_across_gap_alignment <= min_unmasked_across_gap_alignment)))
        return invalid("reader options", "min_across_gap_alignment must be 0 (off) or within [1, min_unmasked_across_gap_alignment]");
    if (board_margin_cells < 0 || board_margin_cells > 10) return invalid("reader options", "board_margin_cells must be within [0, 10]");
    if (min_tiles_beyond < 1) return invalid("reader options", "min_tiles_beyond must be at least 1");
    if (!(board_colour_ratio >= 1)) return invalid("reader options", "board_colour_ratio must be at least 1");
    if (!(min_board_colour_share > 0)) return invalid("reader options", "min_board_colour_share must be above 0 (above 1: off)");
    if (board_colour_reach < 0 || board_colour_reach > 15) return invalid("reader options", "board_colour_reach must be within [0, 15]");
    if (max_frame_side < 640 || max_frame_side > 100000) return invalid("reader options", "max_frame_side must be within [640, 100000]");
    return Ok{};
}

std::vector<DecodedTile> decode_board(const std::vector<CellHypotheses>& cells, const Catalog& catalog, const DecoderOptions& o) {
    std::vector<DecodedTile> out;
    if (cells.empty() || !o.check()) return out;
    const auto& types = catalog.tiles();
    std::map<std::pair<int, int>, std::size_t> at;
    for (std::size_t i = 0; i < cells.size(); ++i) at[{cells[i].col, cells[i].row}] = i;
    // Neighbour on board side s (N, E, S, W) of each cell, or -1.
    std::vector<std::array<int, 4>> nb(cells.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
        for (int s = 0; s < 4; ++s) {
            const auto it = at.find({cells[i].col + kSideCol[s], cells[i].row + kSideRow[s]});
            nb[i][static_cast<std::size_t>(s)] = it == at.end() ? -1 : static_cast<int>(it->second);
        }
    }
    std::vector<double> prior(types.size(), 0.0);
    std::vector<int> allowed(types.size(), 0);
    for (std::size_t t = 0; t < types.size(); ++t) {
        allowed[t] = types[t].count_in(o.edition);
        prior[t] = o.count_prior * (allowed[t] > 0 ? std::log(static_cast<double>(allowed[t])) : kMissingCountScore);
    }
    std::vector<std::size_t> choice(cells.size(), 0);  // index into hyps (best first)
    std::vector<int> used(types.size(), 0);
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].hyps.empty()) continue;
        // Start from the best unary score including the prior.
        std::size_t best = 0;
        for (std::size_t h = 0; h < cells[i].hyps.size(); ++h) {
            const auto& a = cells[i].hyps[h];
            const auto& b = cells[i].hyps[best];
            if (a.score + prior[static_cast<std::size_t>(a.type)] > b.score + prior[static_cast<std::size_t>(b.type)]) best = h;
        }
        choice[i] = best;
        ++used[static_cast<std::size_t>(cells[i].hyps[best].type)];
    }
    // The edge cell i shows on board side `side` with hypothesis h: road at a bridge's ends.
    auto shown_edge = [&](std::size_t i, const Hypothesis& h, int side) {
        const int axis = cells[i].bridge_axis;
        return h.bridged && axis >= 0 && side % 2 == axis ? EdgeKind::Road : types[static_cast<std::size_t>(h.type)].edge_at(h.rot, side);
    };
    // The conditional score of hypothesis h at cell i given the others.
    auto conditional = [&](std::size_t i, const Hypothesis& h) {
        double s = h.score + prior[static_cast<std::size_t>(h.type)];
        for (int side = 0; side < 4; ++side) {
            const int j = nb[i][static_cast<std::size_t>(side)];
            if (j < 0 || cells[static_cast<std::size_t>(j)].hyps.empty() || cells[static_cast<std::size_t>(j)].hidden) continue;
            const auto& other = cells[static_cast<std::size_t>(j)].hyps[choice[static_cast<std::size_t>(j)]];
            if (shown_edge(i, h, side) != shown_edge(static_cast<std::size_t>(j), other, (side + 2) % 4)) s -= o.mismatch_penalty;
        }
        const auto& mine = cells[i].hyps[choice[i]];
        const int others = used[static_cast<std::size_t>(h.type)] - (mine.type == h.type ? 1 : 0);
        s -= o.excess_penalty * std::max(0, others + 1 - allowed[static_cast<std::size_t>(h.type)]);
        return s;
    };
    // Sweeps of single-cell moves until none changes (or max_sweeps): true when one did.
    auto sweep_cells = [&]() {
        bool any = false;
        for (int sweep = 0; sweep < o.max_sweeps; ++sweep) {
            bool changed = false;
            for (std::size_t i = 0; i < cells.size(); ++i) {
                const auto& hyps = cells[i].hyps;
                if (hyps.empty()) continue;
                std::size_t best = choice[i];
                double best_s = conditional(i, hyps[best]);
                for (std::size_t h = 0; h < hyps.size(); ++h) {
                    const double s = conditional(i, hyps[h]);
                    if (s > best_s + 1e-9) best_s = s, best = h;
                }
                if (best != choice[i]) {
                    --used[static_cast<std::size_t>(hyps[choice[i]].type)];
                    ++used[static_cast<std::size_t>(hyps[best].type)];
                    choice[i] = best;
                    changed = true;
                }
            }
            if (!changed) break;
            any = true;
        }
        return any;
    };
    sweep_cells();
    // Whether cell i (hypothesis h) and cell j (hypothesis g) show different edges on the sides
    // they touch at; `side`: the side of i that j lies on.
    auto clash = [&](std::size_t i, const Hypothesis& h, int side, std::size_t j, const Hypothesis& g) {
        return shown_edge(i, h, side) != shown_edge(j, g, (side + 2) % 4);
    };
    // The score cell i with hypothesis h takes from its shown neighbours other than `skip`, and
    // its unary score and prior (the part of the board's score a pair move on i changes).
    auto own_score = [&](std::size_t i, const Hypothesis& h, int skip) {
        double s = h.score + prior[static_cast<std::size_t>(h.type)];
        for (int side = 0; side < 4; ++side) {
            const int j = nb[i][static_cast<std::size_t>(side)];
            if (j < 0 || j == skip || cells[static_cast<std::size_t>(j)].hyps.empty() || cells[static_cast<std::size_t>(j)].hidden) continue;
            if (clash(i, h, side, static_cast<std::size_t>(j), cells[static_cast<std::size_t>(j)].hyps[choice[static_cast<std::size_t>(j)]])) s -= o.mismatch_penalty;
        }
        return s;
    };
    // The copies beyond the edition's counts, scored, with `used` as it is.
    auto excess_score = [&](int type) { return -o.excess_penalty * std::max(0, used[static_cast<std::size_t>(type)] - allowed[static_cast<std::size_t>(type)]); };
    // Pair moves: single-cell moves stop where two touching cells are both misread (each alone
    // would clash with the other's misreading). For every pair of shown cells whose touching sides
    // clash, the best pair of hypotheses that agree with each other is taken when it raises the
    // board's score (DecoderOptions::pair_moves); then single moves again.
    for (int round = 0; round < o.pair_moves; ++round) {
        bool changed = false;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            if (cells[i].hyps.empty() || cells[i].hidden) continue;
            for (int side : {1, 2}) {  // east and south: each pair once
                const int jn = nb[i][static_cast<std::size_t>(side)];
                if (jn < 0) continue;
                const auto j = static_cast<std::size_t>(jn);
                if (cells[j].hyps.empty() || cells[j].hidden) continue;
                const auto& hi = cells[i].hyps;
                const auto& hj = cells[j].hyps;
                if (!clash(i, hi[choice[i]], side, j, hj[choice[j]])) continue;
                // The board's score as it stands, in the terms the pair changes.
                const int ti = hi[choice[i]].type, tj = hj[choice[j]].type;
                auto pair_excess = [&](int a, int b) { return a == b ? excess_score(a) : excess_score(a) + excess_score(b); };
                const double now = own_score(i, hi[choice[i]], jn) + own_score(j, hj[choice[j]], static_cast<int>(i)) - o.mismatch_penalty +
                                   pair_excess(ti, tj);
                std::vector<double> own_j(hj.size());
                for (std::size_t g = 0; g < hj.size(); ++g) own_j[g] = own_score(j, hj[g], static_cast<int>(i));
                double best = now + 1e-9;
                std::size_t best_h = choice[i], best_g = choice[j];
                --used[static_cast<std::size_t>(ti)];
                --used[static_cast<std::size_t>(tj)];
                for (std::size_t h = 0; h < hi.size(); ++h) {
                    const double own_i = own_score(i, hi[h], jn);
                    for (std::size_t g = 0; g < hj.size(); ++g) {
                        if (own_i + own_j[g] <= best || clash(i, hi[h], side, j, hj[g])) continue;
                        ++used[static_cast<std::size_t>(hi[h].type)];
                        ++used[static_cast<std::size_t>(hj[g].type)];
                        const double s = own_i + own_j[g] + pair_excess(hi[h].type, hj[g].type);
                        --used[static_cast<std::size_t>(hi[h].type)];
                        --used[static_cast<std::size_t>(hj[g].type)];
                        if (s > best) best = s, best_h = h, best_g = g;
                    }
                }
                ++used[static_cast<std::size_t>(hi[best_h].type)];
                ++used[static_cast<std::size_t>(hj[best_g].type)];
                if (best_h != choice[i] || best_g != choice[j]) {
                    choice[i] = best_h;
                    choice[j] = best_g;
                    changed = true;
                }
            }
        }
        if (!changed) break;
        if (!sweep_cells()) break;
    }
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const auto& hyps = cells[i].hyps;
        if (hyps.empty()) continue;
        std::vector<double> s(hyps.size());
        for (std::size_t h = 0; h < hyps.size(); ++h) s[h] = conditional(i, hyps[h]);
        const double top = *std::max_element(s.begin(), s.end());
        double z = 0;
        for (const double v : s) z += std::exp(v - top);
        std::size_t runner = choice[i] == 0 && hyps.size() > 1 ? 1 : 0;
        for (std::size_t h = 0; h < hyps.size(); ++h) {
            if (h != choice[i] && s[h] > s[runner]) runner = h;
        }
        DecodedTile d;
        d.col = cells[i].col;
        d.row = cells[i].row;
        d.offset_px = cells[i].offset_px;
        d.type = hyps[choice[i]].type;
        d.rot = hyps[choice[i]].rot;
        d.confidence = std::exp(s[choice[i]] - top) / z;
        d.hidden = cells[i].hidden;
        d.bridge_axis = hyps[choice[i]].bridged ? cells[i].bridge_axis : -1;
        if (runner != choice[i]) {
            d.runner_type = hyps[runner].type;
            d.runner_rot = hyps[runner].rot;
            d.runner_confidence = std::exp(s[runner] - top) / z;
        }
        out.push_back(d);
    }
    return out;
}

namespace {

// One candidate lattice carried through occupancy, the phase check and the refit, and what
// the tiles say of it: a reason when it cannot be a board, its tile contrast otherwise.
struct CheckedLattice {
    LatticeView view;
    std::vector<CellObservation> cells;
    std::string refusal;     // empty: a plausible board (cell count, tile size)
    TileContrast contrast;
    std::size_t checked_at = 0;  // its place in BoardReading::checked
    bool every_cell = false;     // the table mask left no tiles and every cell the photo shows was offered (offer_every_cell_when_masked_out)
};

// The median of cell_alignment over `cells` (0 for none).
double median_alignment(const LatticeView& view, const std::vector<CellObservation>& cells, const LatticeOptions& lattice) {
    auto aligned = cell_alignment(view, cells, lattice);
    if (aligned.empty()) return 0;
    std::nth_element(aligned.begin(), aligned.begin() + static_cast<std::ptrdiff_t>(aligned.size() / 2), aligned.end());
    return aligned[aligned.size() / 2];
}

// How surely a checked lattice is the board: its tile contrast, weighted by the square root
// of the cells it was measured on.
double board_evidence(const CheckedLattice& c) { return c.contrast.ratio() * std::sqrt(static_cast<double>(c.cells.size())); }

// Whether a checked lattice's cells are framed by tile outlines: clearly over enough cells, or
// less clearly over many (a blurred steep view weakens every outline, the true lattice's too).
bool shows_tiles(const CheckedLattice& c, const ReaderOptions& o) {
    const double ratio = c.contrast.ratio();
    const int cells = static_cast<int>(c.cells.size());
    return (ratio >= o.min_tile_contrast && cells >= o.min_checked_tiles) || (ratio >= o.weak_tile_contrast && cells >= 2 * o.min_checked_tiles);
}

// Whether a checked lattice frames its cells surely: sure_tile_contrast over twice
// min_checked_tiles cells (the search stops there; a rescaled candidate must reach it).
bool sure_board(const CheckedLattice& c, const ReaderOptions& o) {
    return c.contrast.ratio() >= o.sure_tile_contrast && static_cast<int>(c.cells.size()) >= 2 * o.min_checked_tiles;
}

// The decoded tiles by cell, hidden ones left out.
std::map<std::pair<int, int>, const DecodedTile*> shown_by_cell(const std::vector<DecodedTile>& tiles) {
    std::map<std::pair<int, int>, const DecodedTile*> at;
    for (const auto& t : tiles) {
        if (!t.hidden) at[{t.col, t.row}] = &t;
    }
    return at;
}

// Whether tile `a`'s side `side` (0 N, 1 E, 2 S, 3 W) shows the same edge kind as the touching
// side of `b`, its neighbour there.
bool sides_match(const Catalog& catalog, const DecodedTile& a, const DecodedTile& b, int side) {
    const auto& types = catalog.tiles();
    return types[static_cast<std::size_t>(a.type)].edge_at(a.rot, side) == types[static_cast<std::size_t>(b.type)].edge_at(b.rot, (side + 2) % 4);
}

// Touching sides of decoded tiles (hidden ones left out), and how many show the same edge kind.
std::pair<int, int> side_agreement(const std::vector<DecodedTile>& tiles, const Catalog& catalog) {
    const auto at = shown_by_cell(tiles);
    int pairs = 0, agreeing = 0;
    for (const auto& [cell, t] : at) {
        for (const int side : {1, 2}) {  // east and south neighbours
            const auto it = at.find({cell.first + (side == 1 ? 1 : 0), cell.second + (side == 2 ? 1 : 0)});
            if (it == at.end()) continue;
            ++pairs;
            agreeing += sides_match(catalog, *t, *it->second, side);
        }
    }
    return {pairs, agreeing};
}

// Finds the decoded tiles (hidden ones left out) whose touching sides mostly disagree with their
// neighbours', taken greedily: the tile with the most disagreeing sides (at least
// `min_disagreeing`, more than it has agreeing) first, its sides then no longer counted. Holes in
// the board read as tiles (the table's colour taken for the art's) disagree with the tiles
// around them on most sides; a tile beside one keeps its other sides. With tiles `taken` in an
// earlier round (left out with their sides), a tile whose disagreeing sides only equal its
// agreeing ones is taken too: two holes side by side both read as cities agree with each other.
std::set<std::pair<int, int>> disagreeing_tiles(const std::vector<DecodedTile>& tiles, const Catalog& catalog, int min_disagreeing,
                                                const std::set<std::pair<int, int>>& taken = {}) {
    auto at = shown_by_cell(tiles);
    for (const auto& cell : taken) at.erase(cell);  // taken before: their sides no longer counted
    std::set<std::pair<int, int>> out;
    while (true) {
        std::pair<int, int> worst{0, 0};
        int worst_unlike = 0, worst_like = 0;
        for (const auto& [cell, t] : at) {
            int like = 0, unlike = 0;
            for (int s = 0; s < 4; ++s) {
                const auto it = at.find({cell.first + kSideCol[s], cell.second + kSideRow[s]});
                if (it == at.end()) continue;
                (sides_match(catalog, *t, *it->second, s) ? like : unlike) += 1;
            }
            if (unlike > worst_unlike || (unlike == worst_unlike && like < worst_like)) worst = cell, worst_unlike = unlike, worst_like = like;
        }
        if (worst_unlike < min_disagreeing || worst_unlike < worst_like + (taken.empty() ? 1 : 0)) break;
        out.insert(worst);
        at.erase(worst);
    }
    return out;
}

// Touching sides of each cell's best hypothesis alone (the classifier's reading before the
// decoder makes neighbours agree; hidden cells left out), and how many show the same edge kind.
std::pair<int, int> unary_agreement(const std::vector<CellHypotheses>& cells, const Catalog& catalog) {
    std::vector<DecodedTile> best;
    for (const auto& c : cells) {
        if (c.hyps.empty() || c.hidden) continue;
        DecodedTile d;
        d.col = c.col, d.row = c.row, d.type = c.hyps.front().type, d.rot = c.hyps.front().rot;
        best.push_back(d);
    }
    return side_agreement(best, catalog);
}

// Of the touching sides where either cell's best hypothesis alone shows a road, the share
// where both do (roads run on across tiles; cells cut across tiles, or plain cells all read as
// one type, do not make them: a block of full cities agrees on every side, on no road); light
// evened out and cells classified on the lattice's whole top view (warped again). -1 when fewer than
// min_side_pairs such sides touch.
double unary_share(const cv::Mat& frame, const CheckedLattice& c, const Catalog& catalog, const ReaderOptions& options,
                   std::pair<int, int>* featured = nullptr) {
    LatticeView view = c.view;
    view.top = whole_top_view(frame, c.view);
    if (view.top.data == c.view.top.data) view.top = view.top.clone();  // evened out below: the candidate's stays
    even_out_light(view, c.cells, options.light);
    const auto classified = classify_cells(view, c.cells, catalog, options.classifier);
    std::map<std::pair<int, int>, const Hypothesis*> best;
    for (const auto& cell : classified) {
        if (!cell.hyps.empty() && !cell.hidden) best[{cell.col, cell.row}] = &cell.hyps.front();
    }
    const auto& types = catalog.tiles();
    int pairs = 0, agreeing = 0;
    for (const auto& [at, h] : best) {
        for (const int side : {1, 2}) {  // east and south neighbours
            const auto it = best.find({at.first + (side == 1 ? 1 : 0), at.second + (side == 2 ? 1 : 0)});
            if (it == best.end()) continue;
            const EdgeKind my_kind = types[static_cast<std::size_t>(h->type)].edge_at(h->rot, side);
            const EdgeKind their_kind = types[static_cast<std::size_t>(it->second->type)].edge_at(it->second->rot, (side + 2) % 4);
            const bool mine = my_kind == EdgeKind::Road;
            const bool theirs = their_kind == EdgeKind::Road;
            pairs += mine || theirs;
            agreeing += mine && theirs;
            if (featured && (my_kind != EdgeKind::Field || their_kind != EdgeKind::Field)) {
                featured->first += 1;
                featured->second += my_kind == their_kind;
            }
        }
    }
    return pairs >= options.min_side_pairs ? static_cast<double>(agreeing) / pairs : -1;
}

// The number of tiles in the game (copies in the edition).
int game_copies(const Catalog& catalog, const std::string& edition) {
    int copies = 0;
    for (const auto& t : catalog.tiles()) copies += t.count_in(edition);
    return copies;
}

// The tiles' width in camera px at the first cell (the pitch mapped back to the frame).
double image_pitch_px(const LatticeView& view, const CellObservation& cell) {
    const cv::Matx33d top_to_image = view.image_to_top.inv();
    const auto at = [&](double x, double y) {
        const cv::Vec3d v = top_to_image * cv::Vec3d(x, y, 1);
        return cv::Point2d(v[0] / v[2], v[1] / v[2]);
    };
    const double cx = (cell.col + 0.5) * view.pitch_px, cy = (cell.row + 0.5) * view.pitch_px;
    return cv::norm(at(cx + view.pitch_px / 2, cy) - at(cx - view.pitch_px / 2, cy));
}

// Marks every pixel of the view the camera frame shows as not table (LatticeView::not_table and
// its source, so a widened view marks its new cells alike).
void mask_nothing_as_table(const cv::Mat& image, LatticeView& view) {
    const cv::Mat seen(image.size(), CV_8UC1, cv::Scalar(255));
    const cv::Size size = view.not_table.empty() ? cv::Size(static_cast<int>(std::ceil(view.cols * view.pitch_px)), static_cast<int>(std::ceil(view.rows * view.pitch_px)))
                                                 : view.not_table.size();
    cv::warpPerspective(seen, view.not_table, view.image_to_top, size, cv::INTER_NEAREST, cv::BORDER_CONSTANT, cv::Scalar(0));
    view.pending_table_mask.reset();
    view.table_mask_source = std::make_shared<const TableMaskSource>(TableMaskSource{seen, cv::Matx33d::eye()});
}

// The refused reason of a refitted lattice for this game, or empty. `frame_scale`: the
// frame read over the camera image (a large photo is shrunk first).
std::string refusal_of(const LatticeView& view, const std::vector<CellObservation>& cells, const Catalog& catalog, const ReaderOptions& options,
                       double frame_scale) {
    if (static_cast<int>(cells.size()) < options.min_tiles) {
        return "no board found: fewer than " + std::to_string(options.min_tiles) + " cells look like tiles";
    }
    // A board holds at most the game's tiles, and a tile must be big enough to read.
    const int copies = game_copies(catalog, options.decoder.edition);
    if (static_cast<double>(cells.size()) > options.max_tiles_share * copies) {
        return "no board found: " + std::to_string(cells.size()) + " cells look like tiles, too many for the game's " + std::to_string(copies) +
               " tiles; the lattice was misread";
    }
    const double pitch = image_pitch_px(view, cells.front()) / frame_scale;  // in camera px
    if (pitch < options.min_tile_px) return "no board found: tiles would be " + std::to_string(static_cast<int>(pitch)) + " px wide, too small to read";
    return {};
}

// A candidate lattice refitted on the tiles and measured (tile_contrast). Its top view is
// warped only near the tiles (RefineOptions::warp_near_cells: most of a lattice's rectangle is
// table, and most candidates are not taken): whole_top_view makes the rest.
Result<CheckedLattice> check_lattice(const RefitFrame& frame, LatticeView view, const Catalog& catalog, const ReaderOptions& options, double frame_scale) {
    const cv::Mat& image = frame.image();
    RefineOptions refine = options.refine;
    refine.warp_near_cells = true;
    CheckedLattice out;
    out.view = std::move(view);
    out.cells = occupied_cells(out.view, options.lattice);
    if (out.view.whole_frame && !out.view.table_in_tile_colours && options.offer_every_cell_when_masked_out &&
        static_cast<int>(out.cells.size()) < options.min_tiles) {
        // The board fills the photo and the table's colours, learnt from the frame's edge where
        // tiles lie too, are the tiles': every pixel the photo shows may be board. The outline
        // check (refine_lattice) and the board's colours (keep_board_colours) tell the tiles.
        // (Not where the colours failed and the mask is the direction pair's own region: a
        // boardless frame's stripes or noise were read as a board.)
        mask_nothing_as_table(image, out.view);
        out.cells = occupied_cells(out.view, options.lattice);
        out.every_cell = true;
    }
    choose_phase(image, out.view, out.cells, options.lattice);
    // Too many cells for the game (the refusal below): occupancy took table for tiles (glare
    // on wood, a cloth in the tiles' colours); the cells whose colours are the board's stay.
    // (Below that bound it is not tried: on blurred boards it dropped true tiles, and real
    // boards larger than the catalog's tiles lost sharp tiles to it.)
    const double most_cells = options.max_tiles_share * game_copies(catalog, options.decoder.edition);
    // (Its colours taught by the most aligned cells, board_colour_seed_share, only for too many
    // cells: a whole-frame lattice within the bound is a board filling the photo, real test_40.)
    auto keep_board = [&] {
        const bool too_many = static_cast<double>(out.cells.size()) > most_cells;
        if (!out.every_cell && !too_many) return;
        LatticeOptions lattice = options.lattice;
        if (!too_many) lattice.board_colour_seed_share = 0;
        out.cells = keep_board_colours(out.view, out.cells, lattice);
    };
    if (auto st = refine_lattice(frame, out.view, out.cells, options.lattice, refine); !st) return st.error();
    keep_board();
    out.contrast = tile_contrast(out.view, out.cells, options.lattice);
    if (out.contrast.best_shift != cv::Point2d(0, 0) && out.cells.size() >= 4) {
        // The outlines are stronger half a pitch away: the lattice sits on the tiles' middles
        // along that axis (roads fold like gaps). Move it there and refit.
        out.view.top.release();  // warped again by the refit
        shift_lattice(image, out.view, out.contrast.best_shift);
        out.cells = occupied_cells(out.view, options.lattice);
        if (auto st = refine_lattice(frame, out.view, out.cells, options.lattice, refine); !st) return st.error();
        keep_board();
        out.contrast = tile_contrast(out.view, out.cells, options.lattice);
    }
    out.refusal = refusal_of(out.view, out.cells, catalog, options, frame_scale);
    return out;
}

// The cell of `outer` (another lattice of the same frame) holding the centre of each of `inner_cells`
// (cells of `inner`; tile offsets included).
std::vector<std::pair<int, int>> outer_cells_of(const LatticeView& outer, const LatticeView& inner, const std::vector<CellObservation>& inner_cells) {
    const cv::Matx33d to_outer = outer.image_to_top * inner.image_to_top.inv();
    std::vector<std::pair<int, int>> out;
    out.reserve(inner_cells.size());
    for (const auto& c : inner_cells) {
        const cv::Point2d q = apply_homography(to_outer, inner.cell_centre(c.col, c.row) + c.offset_px) * (1 / outer.pitch_px);
        out.emplace_back(static_cast<int>(std::floor(q.x)), static_cast<int>(std::floor(q.y)));
    }
    return out;
}

// The share of `coarser_cells` (cells of `coarser`) holding the centre of at least one of
// `finer_cells` (cells of `finer`, another lattice of the same frame; tile offsets included).
double covered_share(const LatticeView& coarser, const std::vector<CellObservation>& coarser_cells, const LatticeView& finer,
                     const std::vector<CellObservation>& finer_cells) {
    if (coarser_cells.empty()) return 0;
    const auto hits = outer_cells_of(coarser, finer, finer_cells);
    const std::set<std::pair<int, int>> hit(hits.begin(), hits.end());
    const auto covered = std::count_if(coarser_cells.begin(), coarser_cells.end(), [&](const CellObservation& c) { return hit.count({c.col, c.row}) > 0; });
    return static_cast<double>(covered) / static_cast<double>(coarser_cells.size());
}

// The share of `inner_cells` (cells of `inner`) whose centre (tile offset included) lies in one of
// `outer_cells` (cells of `outer`, another lattice of the same frame).
double held_share(const LatticeView& outer, const std::vector<CellObservation>& outer_cells, const LatticeView& inner,
                  const std::vector<CellObservation>& inner_cells) {
    if (inner_cells.empty()) return 0;
    std::set<std::pair<int, int>> held;
    for (const auto& c : outer_cells) held.insert({c.col, c.row});
    const auto at = outer_cells_of(outer, inner, inner_cells);
    const auto inside = std::count_if(at.begin(), at.end(), [&](const std::pair<int, int>& cell) { return held.count(cell) > 0; });
    return static_cast<double>(inside) / static_cast<double>(inner_cells.size());
}

// The share of touching sides, where either cell's best hypothesis alone (light evened out, cells classified on the
// lattice's whole top view) shows a road or a city, whose two edges are of one kind; -1 under `min_pairs` such sides.
double featured_share(const cv::Mat& frame, const CheckedLattice& c, const Catalog& catalog, const ReaderOptions& options, int min_pairs) {
    std::pair<int, int> featured{0, 0};
    unary_share(frame, c, catalog, options, &featured);
    return featured.first >= min_pairs ? static_cast<double>(featured.second) / featured.first : -1;
}

// The lattice taken with pairs of its columns or rows merged (coarsened_lattices), checked in full, when one frames its
// cells at least CoarsenOptions::min_tile_contrast, keeps min_held_share of the finer cells inside its own and
// min_cells_share of their count, and its cells' best hypotheses agree across featured sides (roads, cities) at least
// min_featured_gain more often than the finer lattice's: on a true lattice merged cells fit no tile and their outlines
// half a pitch away sit on tile seams too; on one at half the tiles' pitch (real test_0) the half tiles fit none.
// nullopt when none does (each variant listed in `reading.checked`).
Result<std::optional<CheckedLattice>> coarser_lattice(const cv::Mat& frame, const RefitFrame& refit_frame, const CheckedLattice& finer,
                                                       const Catalog& catalog, const ReaderOptions& options, double frame_scale,
                                                       BoardReading& reading) {
    const CoarsenOptions& o = options.coarsen;
    std::optional<CheckedLattice> best;
    double best_share = -1;
    double finer_share = -2;  // measured once a variant is offered
    const auto finer_n = static_cast<double>(finer.cells.size());
    for (auto& variant : coarsened_lattices(finer.view)) {
        auto merged = check_lattice(refit_frame, std::move(variant), catalog, options, frame_scale);
        if (!merged) return merged.error();
        const auto n = static_cast<int>(merged->cells.size());
        const bool offered = merged->refusal.empty() && n >= o.min_cells_share * finer_n && n < finer_n &&
                             merged->contrast.ratio() >= o.min_tile_contrast &&
                             held_share(merged->view, merged->cells, finer.view, finer.cells) >= o.min_held_share;
        double share = -1;
        if (offered) {
            if (finer_share < -1) finer_share = featured_share(frame, finer, catalog, options, o.min_side_pairs);
            share = featured_share(frame, *merged, catalog, options, o.min_side_pairs);
        }
        reading.checked.push_back({"coarsened", merged->view.image_to_top, merged->view.px_per_mm, n, merged->contrast.ratio(), share,
                                   offered || !merged->refusal.empty() ? merged->refusal : "not offered to the choice by classification"});
        merged->checked_at = reading.checked.size() - 1;
        if (offered && share >= 0 && finer_share >= 0 && share >= finer_share + o.min_featured_gain && share > best_share) {
            best_share = share;
            best = std::move(merged.value());
        }
    }
    return best;
}

// The subdivision of a checked lattice (subdivided_to_tiles: it sat at a multiple of the tiles'
// pitch) that frames its cells best, measured before any refit on a copy at 1 px/mm: its
// occupied cells' tile_contrast at least weak_tile_contrast over min_checked_tiles cells, at most
// SubdivideOptions::max_tiles_share of the game's tiles, and the cells cover nearly every coarser
// cell (min_precheck_covered_share); none otherwise. The full check costs a refit: on a true
// lattice's subdivisions the cells' squares cut the tiles and mostly frame nothing.
std::optional<LatticeView> finer_lattice(const cv::Mat& image, const LatticeView& view, const std::vector<CellObservation>& coarser_cells,
                                         const Catalog& catalog, const ReaderOptions& options) {
    std::optional<LatticeView> best;
    double best_evidence = 0;
    const double most_cells = options.subdivide.max_tiles_share * game_copies(catalog, options.decoder.edition);
    for (auto& v : subdivided_to_tiles(image, view, options.subdivide)) {
        const double k = std::min(1.0, 1.0 / v.px_per_mm);
        LatticeView coarse = v;
        coarse.px_per_mm = v.px_per_mm * k;
        coarse.pitch_px = v.pitch_px * k;
        coarse.image_to_top = cv::Matx33d(k, 0, 0, 0, k, 0, 0, 0, 1) * v.image_to_top;
        const cv::Size size(static_cast<int>(std::ceil(coarse.cols * coarse.pitch_px)), static_cast<int>(std::ceil(coarse.rows * coarse.pitch_px)));
        cv::resize(v.not_table, coarse.not_table, size, 0, 0, cv::INTER_NEAREST);
        cv::warpPerspective(image, coarse.top, coarse.image_to_top, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
        auto cells = occupied_cells(coarse, options.lattice);
        auto contrast = tile_contrast(coarse, cells, options.lattice);
        if (contrast.best_shift != cv::Point2d(0, 0) && cells.size() >= 4) {
            // The tile sides fold as sharply through the tiles' middles (a road along every tile):
            // the squares half a pitch away are the tiles (check_lattice moves a lattice there too).
            shift_lattice(image, coarse, contrast.best_shift);
            shift_lattice(image, v, contrast.best_shift * (1 / k));
            cells = occupied_cells(coarse, options.lattice);
            contrast = tile_contrast(coarse, cells, options.lattice);
        }
        if (static_cast<int>(cells.size()) < options.min_checked_tiles || static_cast<double>(cells.size()) > most_cells) continue;
        if (covered_share(view, coarser_cells, coarse, cells) < options.subdivide.min_precheck_covered_share) continue;
        const double ratio = contrast.ratio();
        const double evidence = ratio * std::sqrt(static_cast<double>(cells.size()));
        if (ratio >= options.weak_tile_contrast && evidence > best_evidence) best_evidence = evidence, best = std::move(v);
    }
    return best;
}

// Measures the plausible candidates as found (`originals`, each with its refitted board evidence)
// again, most evidence first, up to RescaleOptions::max_candidates, each with its pitch measured
// on its own top view (rescaled_to_tiles) and checked; returns the first that frames its cells
// surely (sure_board), or none. A rescaled lattice was fitted to whatever its top view shows (a
// wrong lattice's cloth stripes too), so the weaker tiers do not take it, unless the choice so far
// frames no cells at all (`chosen_shows_tiles` false, RescaleOptions::clear_when_unshown): then
// the one with the most evidence among those framing their cells clearly (min_tile_contrast over
// min_checked_tiles cells) is returned (medium 13001). Each check is listed in `reading.checked`
// ("rescaled").
Result<std::optional<CheckedLattice>> rescaled_board(const RefitFrame& frame, std::vector<std::pair<double, LatticeView>> originals, const Catalog& catalog,
                                                     const ReaderOptions& options, double frame_scale, bool chosen_shows_tiles, BoardReading& reading) {
    std::stable_sort(originals.begin(), originals.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::size_t tries = std::min(originals.size(), static_cast<std::size_t>(options.rescale.max_candidates));
    // Take a clear one only when the choice so far shows no tiles at all (RescaleOptions::clear_when_unshown).
    const bool take_clear = options.rescale.clear_when_unshown && !chosen_shows_tiles;
    std::optional<CheckedLattice> clearest;
    // A rescaled lattice not framed surely is refitted again with the gradient capped (RescaleOptions::refit_gradient_cap).
    ReaderOptions capped = options;
    capped.refine.gradient_cap_quantile = std::min(options.refine.gradient_cap_quantile, options.rescale.refit_gradient_cap);
    const bool try_capped = capped.refine.gradient_cap_quantile < options.refine.gradient_cap_quantile;
    for (std::size_t i = 0; i < tries; ++i) {
        auto view = rescaled_to_tiles(frame.image(), originals[i].second, options.rescale);
        if (!view) continue;
        LatticeView rescaled;  // a copy of its own: the check warps into its view's images
        if (try_capped) rescaled = *view, rescaled.top = view->top.clone(), rescaled.not_table = view->not_table.clone();
        auto checked = check_lattice(frame, std::move(*view), catalog, options, frame_scale);
        ++reading.stages.candidates;
        if (!checked) return checked.error();
        if (try_capped && !(checked->refusal.empty() && sure_board(*checked, options))) {
            auto again = check_lattice(frame, rescaled, catalog, capped, frame_scale);
            ++reading.stages.candidates;
            if (!again) return again.error();
            if (again->refusal.empty() && sure_board(*again, options)) checked = std::move(again);
        }
        const bool sure = checked->refusal.empty() && sure_board(*checked, options);
        const bool clear = take_clear && checked->refusal.empty() && checked->contrast.ratio() >= options.min_tile_contrast &&
                           static_cast<int>(checked->cells.size()) >= options.min_checked_tiles;
        reading.checked.push_back({"rescaled", checked->view.image_to_top, checked->view.px_per_mm, static_cast<int>(checked->cells.size()),
                                   checked->contrast.ratio(), -1.0,
                                   sure || clear || !checked->refusal.empty() ? checked->refusal : "not sure enough for a rescaled lattice"});
        checked->checked_at = reading.checked.size() - 1;
        if (sure) return std::optional<CheckedLattice>(std::move(checked.value()));
        if (clear && (!clearest || board_evidence(*checked) > board_evidence(*clearest))) clearest = std::move(checked.value());
    }
    return clearest;
}

// The share of each cell's inside (less LatticeOptions::cell_inset per side) the view's table
// mask calls not table (occupied_cells' measure); 0 outside the mask.
std::vector<double> not_table_shares(const LatticeView& view, const std::vector<CellObservation>& cells, const LatticeOptions& lattice) {
    std::vector<double> out(cells.size(), 0.0);
    if (view.not_table.empty()) return out;
    const double p = view.pitch_px, inset = lattice.cell_inset * p;
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const cv::Rect r = cv::Rect(static_cast<int>(std::lround(cells[i].col * p + inset)), static_cast<int>(std::lround(cells[i].row * p + inset)),
                                    static_cast<int>(std::lround(p - 2 * inset)), static_cast<int>(std::lround(p - 2 * inset))) &
                           cv::Rect(0, 0, view.not_table.cols, view.not_table.rows);
        if (r.area() > 0) out[i] = cv::countNonZero(view.not_table(r)) / static_cast<double>(r.area());
    }
    return out;
}

// How far (Lab, lightness counted half: glare and shade change it most) the art along cell
// `cell`'s side `side` (N, E, S, W) lies from the art along the touching side of the read tile
// `beside`: `kSeamSegments` strips inside each tile's own square (tile offsets included), from
// `kSeamDepth` to twice that from the side, compared segment by segment along the seam. Roads,
// city walls and fields run on across a board's seams; a hole shows the table against its
// neighbours' art. -1 when a strip leaves the top view.
constexpr int kSeamSegments = 8;
constexpr double kSeamDepth = 0.06;  // share of the tile side
double seam_distance(const LatticeView& view, const LatticeOptions& lattice, const CellObservation& cell, int side, const CellObservation& beside) {
    const double tile = lattice.tile_mm * view.px_per_mm, half = tile / 2;
    const cv::Rect bounds(0, 0, view.top.cols, view.top.rows);
    // The strips of one tile along its side s, as mean colours.
    auto strips = [&](const CellObservation& c, int s, cv::Mat& out) {
        const cv::Point2d centre = view.cell_centre(c.col, c.row) + c.offset_px;
        out.create(1, kSeamSegments, CV_32FC3);
        for (int k = 0; k < kSeamSegments; ++k) {
            const double along0 = -half + tile * (0.05 + 0.9 * k / kSeamSegments), along1 = -half + tile * (0.05 + 0.9 * (k + 1) / kSeamSegments);
            const double in0 = half - 2 * kSeamDepth * tile, in1 = half - kSeamDepth * tile;  // distance from the centre across the side
            double x0, x1, y0, y1;
            if (s == 0 || s == 2) {
                x0 = centre.x + along0, x1 = centre.x + along1;
                y0 = s == 0 ? centre.y - in1 : centre.y + in0;
                y1 = s == 0 ? centre.y - in0 : centre.y + in1;
            } else {
                y0 = centre.y + along0, y1 = centre.y + along1;
                x0 = s == 3 ? centre.x - in1 : centre.x + in0;
                x1 = s == 3 ? centre.x - in0 : centre.x + in1;
            }
            const cv::Rect r(cv::Point(static_cast<int>(std::floor(x0)), static_cast<int>(std::floor(y0))),
                             cv::Point(static_cast<int>(std::ceil(x1)), static_cast<int>(std::ceil(y1))));
            if ((r & bounds) != r || r.area() == 0) return false;
            const cv::Scalar m = cv::mean(view.top(r));
            out.at<cv::Vec3f>(0, k) = cv::Vec3f(static_cast<float>(m[0] / 255), static_cast<float>(m[1] / 255), static_cast<float>(m[2] / 255));
        }
        cv::cvtColor(out, out, cv::COLOR_BGR2Lab);
        return true;
    };
    cv::Mat mine, theirs;
    if (!strips(cell, side, mine) || !strips(beside, (side + 2) % 4, theirs)) return -1;
    double sum = 0;
    for (int k = 0; k < kSeamSegments; ++k) {
        const cv::Vec3f a = mine.at<cv::Vec3f>(0, k), b = theirs.at<cv::Vec3f>(0, k);
        const double dl = 0.5 * (a[0] - b[0]), da = a[1] - b[1], db = a[2] - b[2];
        sum += std::sqrt(dl * dl + da * da + db * db);
    }
    return sum / kSeamSegments;
}

// How a cell's sides continue the read tiles beside it (`at`: the reference tiles by place):
// sides measured, and of those how many are like a board's seams (seam_distance at most
// `like`, Lab units) and how many unlike (above `unlike`).
struct SeamCheck {
    int sides = 0, like = 0, unlike = 0;
};
SeamCheck check_seams(const LatticeView& view, const LatticeOptions& lattice, const CellObservation& cell,
                      const std::map<std::pair<int, int>, const CellObservation*>& at, double like, double unlike) {
    SeamCheck out;
    for (int s = 0; s < 4; ++s) {
        const auto it = at.find({cell.col + kSideCol[s], cell.row + kSideRow[s]});
        if (it == at.end()) continue;
        const double d = seam_distance(view, lattice, cell, s, *it->second);
        if (d < 0) continue;
        ++out.sides;
        out.like += d <= like;
        out.unlike += d > unlike;
    }
    return out;
}

// The median seam_distance over the touching sides of `cells` (the board's own seams: roads,
// cities and fields running on), or -1 for fewer than `min_pairs` sides.
double board_seam_distance(const LatticeView& view, const LatticeOptions& lattice, const std::vector<CellObservation>& cells, int min_pairs) {
    std::map<std::pair<int, int>, const CellObservation*> at;
    for (const auto& c : cells) at[{c.col, c.row}] = &c;
    std::vector<double> d;
    for (const auto& c : cells) {
        for (const int s : {1, 2}) {  // east and south neighbours
            const auto it = at.find({c.col + (s == 1 ? 1 : 0), c.row + (s == 2 ? 1 : 0)});
            if (it == at.end()) continue;
            const double v = seam_distance(view, lattice, c, s, *it->second);
            if (v >= 0) d.push_back(v);
        }
    }
    if (static_cast<int>(d.size()) < min_pairs) return -1;
    std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
    return d[d.size() / 2];
}

// Whether a seam check says hole: at least `min_unlike` sides show art unlike the tiles beside
// it, and they are two thirds of those measured, or half with none alike.
bool seams_say_hole(const SeamCheck& c, int min_unlike) {
    return c.unlike >= min_unlike && (3 * c.unlike >= 2 * c.sides || (c.like == 0 && 2 * c.unlike >= c.sides));
}

// The seam thresholds of one board (Lab units; ReaderOptions::seam_like, seam_unlike times
// the board's median seam), or none when the board has too few touching sides to learn them.
struct SeamRules {
    bool on = false;
    double like = 0, unlike = 0;
};
SeamRules seam_rules(const LatticeView& view, const std::vector<CellObservation>& cells, const ReaderOptions& o) {
    const double median = board_seam_distance(view, o.lattice, cells, o.min_seam_pairs);
    if (median <= 0) return {};
    return {true, o.seam_like * median, o.seam_unlike * median};
}

// Holes in the board read as tiles (a hole showing glared wood or a busy cloth is unlike the
// table along the frame's edge, and its neighbours' sides give it an outline on all four
// sides): a cell at least two of whose sides show art unlike the read tile beside it
// (seams_say_hole) is dropped. A tile beside a hole keeps its other sides alike.
std::vector<CellObservation> drop_seam_holes(const LatticeView& view, std::vector<CellObservation> cells, const LatticeOptions& lattice, const SeamRules& rules,
                                             std::vector<CellObservation>& dropped) {
    if (!rules.on || view.top.empty()) return cells;
    std::map<std::pair<int, int>, const CellObservation*> at;
    for (const auto& c : cells) at[{c.col, c.row}] = &c;
    std::vector<char> hole(cells.size(), 0);
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const auto seams = check_seams(view, lattice, cells[i], at, rules.like, rules.unlike);
        hole[i] = seams_say_hole(seams, 2);
    }
    std::vector<CellObservation> kept;
    for (std::size_t i = 0; i < cells.size(); ++i) (hole[i] ? dropped : kept).push_back(cells[i]);
    return kept;
}

// Colour counts over Lab bins of fine lightness (16) x chroma (32 x 32): the board's own tiles
// against the table along the frame's edge (BoardColours).
class ColourCounts {
public:
    static constexpr int kL = 16, kAB = 32;
    static std::size_t bin(const cv::Vec3b& lab) { return static_cast<std::size_t>((lab[0] >> 4) * kAB * kAB + (lab[1] >> 3) * kAB + (lab[2] >> 3)); }
    // Counts every `step`-th pixel (both ways) of `lab` (CV_8UC3 Lab).
    void add(const cv::Mat& lab, int step) {
        for (int y = 0; y < lab.rows; y += step) {
            const auto* p = lab.ptr<cv::Vec3b>(y);
            for (int x = 0; x < lab.cols; x += step) counts_[bin(p[x])] += 1, total_ += 1;
        }
    }
    double total() const { return total_; }
    // The share of counted pixels in bin `b`, or the largest over the lightness bins within `reach` of it.
    double share(std::size_t b, int reach) const {
        const int l = static_cast<int>(b) / (kAB * kAB), ab = static_cast<int>(b) % (kAB * kAB);
        double most = 0;
        for (int m = std::max(0, l - reach); m <= std::min(kL - 1, l + reach); ++m) most = std::max(most, counts_[static_cast<std::size_t>(m * kAB * kAB + ab)]);
        return (most + 0.5) / std::max(1.0, total_);
    }

private:
    std::vector<double> counts_ = std::vector<double>(kL * kAB * kAB, 0.0);
    double total_ = 0;
};

// The inset square (LatticeOptions::cell_inset per side) of a cell, its tile's offset included.
cv::Rect inset_square(const LatticeView& view, const LatticeOptions& lattice, const CellObservation& c) {
    const double p = view.pitch_px, inset = lattice.cell_inset * p;
    return cv::Rect(static_cast<int>(std::lround(c.col * p + inset + c.offset_px.x)), static_cast<int>(std::lround(c.row * p + inset + c.offset_px.y)),
                    static_cast<int>(std::lround(p - 2 * inset)), static_cast<int>(std::lround(p - 2 * inset)));
}

// The Lab colours (smoothed as the table mask's are) of `bgr` within `r`.
cv::Mat lab_within(const cv::Mat& bgr, cv::Rect r) {
    cv::Mat lab;
    r &= cv::Rect(0, 0, bgr.cols, bgr.rows);
    if (r.area() == 0) return lab;
    cv::blur(bgr(r), lab, cv::Size(3, 3));
    cv::cvtColor(lab, lab, cv::COLOR_BGR2Lab);
    return lab;
}

// The colours of a read board's own tiles against the table's: the tiles' counted over the
// read cells' squares, the table's along the frame's edge (LatticeOptions::border_band, as
// the table mask does), at a finer lightness than the mask's (16 bins against 4).
struct BoardColours {
    ColourCounts tiles, table;
    bool known() const { return tiles.total() > 0 && table.total() > 0; }
};
constexpr int kColourStep = 2;  // every second pixel both ways: the counts are plenty

BoardColours learn_board_colours(const cv::Mat& frame, const LatticeView& view, const std::vector<CellObservation>& tiles, const LatticeOptions& lattice) {
    BoardColours out;
    if (frame.empty() || view.top.empty()) return out;
    const int bx = std::max(1, static_cast<int>(lattice.border_band * frame.cols)), by = std::max(1, static_cast<int>(lattice.border_band * frame.rows));
    for (const cv::Rect strip : {cv::Rect(0, 0, frame.cols, by), cv::Rect(0, frame.rows - by, frame.cols, by), cv::Rect(0, by, bx, frame.rows - 2 * by),
                                 cv::Rect(frame.cols - bx, by, bx, frame.rows - 2 * by)}) {
        const cv::Mat lab = lab_within(frame, strip);
        if (!lab.empty()) out.table.add(lab, kColourStep);
    }
    for (const auto& c : tiles) {
        const cv::Mat lab = lab_within(view.top, inset_square(view, lattice, c));
        if (!lab.empty()) out.tiles.add(lab, kColourStep);
    }
    return out;
}

// The share of a cell's inset square whose colour is the board's tiles' rather than the
// table's (`colours`): `ratio` times more common among the tiles than along the frame's edge,
// the edge's pooled over `reach` lightness bins either side (glare, shade). A field of dusk
// art a bin darker than the table's pale stripes is the tiles' colour, where the table mask's
// coarse lightness calls it table.
double board_colour_share(const BoardColours& colours, const LatticeView& view, const CellObservation& cell, const LatticeOptions& lattice, double ratio,
                          int reach) {
    if (!colours.known()) return 0;
    const cv::Mat lab = lab_within(view.top, inset_square(view, lattice, cell));
    int n = 0, like = 0;
    for (int y = 0; y < lab.rows; y += kColourStep) {
        const auto* p = lab.ptr<cv::Vec3b>(y);
        for (int x = 0; x < lab.cols; x += kColourStep) {
            const std::size_t b = ColourCounts::bin(p[x]);
            ++n;
            like += colours.tiles.share(b, 0) >= ratio * colours.table.share(b, reach);
        }
    }
    return n > 0 ? static_cast<double>(like) / n : 0;
}

// Whether an empty cell lies inside the board: it touches at least ReaderOptions::min_enclosing_tiles
// of the board's tiles (`at`: read or offered) and its sides shared with read tiles (`seams`) continue
// their art, min_enclosed_like at least and none unlike. A board seldom leaves a hole walled in on
// three sides; a tile coloured like the table there (a city on wood) is common.
bool enclosed_by_board(const CellObservation& cell, const std::map<std::pair<int, int>, const CellObservation*>& at, const SeamCheck& seams,
                       const ReaderOptions& o) {
    if (o.min_enclosing_tiles <= 0 || seams.unlike > 0 || seams.like < o.min_enclosed_like) return false;
    int touching = 0;
    for (int s = 0; s < 4; ++s) touching += at.count({cell.col + kSideCol[s], cell.row + kSideRow[s]}) > 0;
    return touching >= o.min_enclosing_tiles;
}

// Whether an empty cell the table mask calls tile (`mask_share`, ReaderOptions::min_walled_share)
// lies beside at least ReaderOptions::min_walled_tiles of the board's tiles (`at`: read or
// offered): offered on its colours alone, as a follower on its middle may spoil its outline.
bool walled_by_board(const CellObservation& cell, double mask_share, const std::map<std::pair<int, int>, const CellObservation*>& at, const ReaderOptions& o) {
    if (o.min_walled_share > 1 || mask_share < o.min_walled_share) return false;
    int touching = 0;
    for (int s = 0; s < 4; ++s) touching += at.count({cell.col + kSideCol[s], cell.row + kSideRow[s]}) > 0;
    return touching >= o.min_walled_tiles;
}

// cell_alignment of `cells` in `view`, with the cells on the view's rim measured also on a
// coarse view (about 1 px/mm, as cell_alignment reads) grown by one cell on every side and
// warped from `image`, the image the view maps, the better kept (ReaderOptions::
// rim_ring_outlines): the view is cut to the box of the board's colours, so a rim tile's outer
// side lies on the view's edge with nothing beyond it to make a step. (Measured on the grown
// view alone, real rim tiles were lost: in the view, the squares half a pitch away run off it
// and show little, which had framed them.) A cell is on the rim when its square or those
// squares come within a quarter pitch of the view's edge. `ringed` keeps the grown view between
// calls (empty: not warped yet).
std::vector<double> rim_alignment(const cv::Mat& image, const LatticeView& view, const std::vector<CellObservation>& cells, const LatticeOptions& lattice,
                                  bool ring, std::optional<LatticeView>& ringed) {
    auto out = cell_alignment(view, cells, lattice);
    if (!ring || image.empty() || image.size() != view.frame || cells.empty()) return out;
    constexpr double kNear = 0.25;  // cells: the outline search's reach and band, and slack
    std::vector<CellObservation> rim;
    std::vector<std::size_t> which;
    const double k = std::min(1.0, 1.0 / view.px_per_mm);
    for (std::size_t i = 0; i < cells.size(); ++i) {
        const auto& c = cells[i];
        const double x = c.col + c.offset_px.x / view.pitch_px, y = c.row + c.offset_px.y / view.pitch_px;
        if (x - kNear >= 0 && y - kNear >= 0 && x + 1.5 + kNear <= view.cols && y + 1.5 + kNear <= view.rows) continue;
        auto moved = c;
        moved.col += 1, moved.row += 1, moved.offset_px *= k;
        rim.push_back(moved), which.push_back(i);
    }
    if (rim.empty()) return out;
    if (!ringed) {
        LatticeView r;
        r.px_per_mm = view.px_per_mm * k, r.pitch_px = view.pitch_px * k, r.frame = view.frame;
        r.cols = view.cols + 2, r.rows = view.rows + 2;
        cv::Mat small;
        cv::resize(image, small, cv::Size(), k, k, cv::INTER_AREA);
        const cv::Matx33d grow(k, 0, k * view.pitch_px, 0, k, k * view.pitch_px, 0, 0, 1), unscale(1 / k, 0, 0, 0, 1 / k, 0, 0, 0, 1);
        r.image_to_top = grow * view.image_to_top;
        const cv::Size size(static_cast<int>(std::ceil(r.cols * r.pitch_px)), static_cast<int>(std::ceil(r.rows * r.pitch_px)));
        cv::warpPerspective(small, r.top, r.image_to_top * unscale, size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
        ringed = std::move(r);
    }
    const auto aligned = cell_alignment(*ringed, rim, lattice);
    for (std::size_t j = 0; j < rim.size(); ++j) out[which[j]] = std::max(out[which[j]], aligned[j]);
    return out;
}

// Whether `cell` shares a side with one of `read_tiles`.
bool beside_read_tile(const CellObservation& cell, const std::map<std::pair<int, int>, CellObservation>& read_tiles) {
    for (int s = 0; s < 4; ++s) {
        if (read_tiles.count({cell.col + kSideCol[s], cell.row + kSideRow[s]})) return true;
    }
    return false;
}

// How many of `cell`'s four neighbours are in `at`.
int neighbours_in(const CellObservation& cell, const std::map<std::pair<int, int>, const CellObservation*>& at) {
    int n = 0;
    for (int s = 0; s < 4; ++s) n += at.count({cell.col + kSideCol[s], cell.row + kSideRow[s]}) > 0;
    return n;
}

// Whether `cell`, at its offset, reaches more than `slack` px into a neighbour in `at` at that
// neighbour's offset (tiles lie side by side, never over each other).
bool overlaps_neighbour(const CellObservation& cell, const std::map<std::pair<int, int>, const CellObservation*>& at, double slack) {
    for (int s = 0; s < 4; ++s) {
        const auto it = at.find({cell.col + kSideCol[s], cell.row + kSideRow[s]});
        if (it == at.end()) continue;
        const cv::Point2d toward = cell.offset_px - it->second->offset_px;
        if (toward.x * kSideCol[s] + toward.y * kSideRow[s] > slack) return true;
    }
    return false;
}

// Measures each of `candidates` the colours call a tile (`shares` at least RefineOptions::
// candidate_share) whose outline (`aligned`) falls short of ReaderOptions::min_masked_alignment
// again at offsets up to masked_offset_search pitches around its own, on a grid of
// masked_offset_step, and keeps the best outline with its offset (rim_alignment; an outline with
// nothing to compare with is no evidence). A tile lies off its cell where the lattice is off
// the board's rim or the tiles drift, and its outline then runs beyond the probe's reach.
// Cells across a gap are left as they are. Returns, per candidate, whether its offset moved.
std::vector<bool> search_masked_offsets(const cv::Mat& view_image, const LatticeView& view, std::vector<CellObservation>& candidates, std::vector<double>& aligned,
                           const std::vector<double>& shares, const std::set<std::pair<int, int>>& across_gap,
                           const std::map<std::pair<int, int>, CellObservation>& read_tiles,
                           const std::map<std::pair<int, int>, const CellObservation*>& at, const ReaderOptions& o, std::optional<LatticeView>& ringed) {
    std::vector<bool> found(candidates.size(), false);
    if (o.masked_offset_search <= 0 || o.masked_offset_step <= 0) return found;
    constexpr double kNothingToCompare = 1e8;  // cell_alignment's 1e9: no outline half a pitch away
    const int steps = static_cast<int>(std::floor(o.masked_offset_search / o.masked_offset_step + 1e-9));
    const double step_px = o.masked_offset_step * view.pitch_px;
    std::vector<CellObservation> moved;
    std::vector<std::size_t> which;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (shares[i] < o.refine.candidate_share || aligned[i] >= o.min_masked_alignment || across_gap.count({candidates[i].col, candidates[i].row})) continue;
        if (o.masked_offset_neighbours > 0 && (!beside_read_tile(candidates[i], read_tiles) || neighbours_in(candidates[i], at) < o.masked_offset_neighbours)) continue;
        for (int dy = -steps; dy <= steps; ++dy) {
            for (int dx = -steps; dx <= steps; ++dx) {
                if (dx == 0 && dy == 0) continue;
                auto c = candidates[i];
                c.offset_px += cv::Point2d(dx * step_px, dy * step_px);
                if (o.masked_offset_overlap < 1 && overlaps_neighbour(c, at, o.masked_offset_overlap * view.pitch_px)) continue;
                moved.push_back(c), which.push_back(i);
            }
        }
    }
    if (moved.empty()) return found;
    const auto measured = rim_alignment(view_image, view, moved, o.lattice, o.rim_ring_outlines, ringed);
    for (std::size_t k = 0; k < moved.size(); ++k) {
        const std::size_t i = which[k];
        if (measured[k] > aligned[i] && measured[k] < kNothingToCompare) aligned[i] = measured[k], candidates[i].offset_px = moved[k].offset_px, found[i] = true;
    }
    return found;
}

// Whether a cell the offset search moved (search_masked_offsets) may join: with ReaderOptions::
// masked_offset_seams, only when at least that many of its sides shared with tiles read by occupancy
// continue their art at the found offset and every such side does (`seams`, check_seams): a table's
// grain or pattern shows an outline at some offset, but seldom runs on into the board's roads and fields.
bool searched_cell_continues(const SeamCheck& seams, const ReaderOptions& o) {
    return o.masked_offset_seams <= 0 || (seams.like >= o.masked_offset_seams && seams.like == seams.sides);
}

// Tiles the table mask missed (a tile coloured like the table: a busy cloth in the tiles'
// colours, a city on wood) next to the board: each empty cell beside a read one, inside the
// frame, whose square outline stands out `min_alignment` times more than the squares half a
// pitch away (cell_alignment; `min_masked_alignment` times when at least `masked_share` of it is
// not table by the mask), or `min_seam_alignment` times when every side it shares with a tile
// read by occupancy continues that tile's art (check_seams: a cloth's pattern does not run on
// across a tile's sides at the pitch), joins the board, its offset guessed from its read
// neighbours; `rounds` times, so a missed tile beside a missed tile is found too. A cell the
// photo's edge cuts is offered when LatticeOptions::min_seen_share of it was seen (its outline measured on the
// sides the photo shows: cell_alignment). A cell inside
// the board (enclosed_by_board) needs only `enclosed_alignment_share` times the read tiles' median
// alignment. A cell beside at least ReaderOptions::min_walled_tiles of them that the mask calls
// wholly not table is offered whatever its outline (walled_by_board). A cell whose
// sides say hole (seams_say_hole: even one side, when only one is measured) is not offered: a
// flower in a hole has an outline on every side, its neighbours'. A cell one empty cell away
// (ReaderOptions::min_across_gap_alignment) is offered on a clear outline alone: the board goes on
// past a tile neither the mask nor the outline saw. The classifier's table model still drops a
// cell that looks like the table (classify_cells).
std::vector<CellObservation> add_outlined_neighbours(const cv::Mat& frame, const LatticeView& view, std::vector<CellObservation> cells, const ReaderOptions& o,
                                                    const SeamRules& rules, const cv::Mat& view_image) {
    if (cells.empty() || view.top.empty() || view.frame.area() <= 0) return cells;
    const auto& lattice = o.lattice;
    // Seams are compared with the tiles occupancy read only: an offered cell may still be table
    // (the classifier drops it), and table beside table continues.
    std::map<std::pair<int, int>, CellObservation> read_tiles;
    for (const auto& c : cells) read_tiles[{c.col, c.row}] = c;
    const std::vector<CellObservation> read_in_order = cells;  // the tiles whose colours learn_board_colours counts
    std::optional<BoardColours> colours;                       // learnt once, when a cell is first offered
    std::optional<double> board_alignment;                     // the read tiles' median cell_alignment, measured once, when a cell is enclosed
    std::optional<LatticeView> ringed;                         // the view grown by a cell, for the rim's outlines (rim_alignment)
    std::map<std::pair<int, int>, const CellObservation*> reference;
    for (const auto& [at, c] : read_tiles) reference[at] = &c;
    // Holes found beside at least two tiles (inside the board) are not offered, but the board
    // goes on beyond them: their other neighbours are looked at too.
    std::vector<CellObservation> holes;
    std::set<std::pair<int, int>> searched;  // cells joined at an offset the search found (search_masked_offsets)
    for (int round = 0; round < o.grow_rounds; ++round) {
        std::map<std::pair<int, int>, const CellObservation*> at;
        for (const auto& c : cells) at[{c.col, c.row}] = &c;
        // Without masked_offset_chain, a cell the search found neither grows the board nor lends its offset:
        // a pattern in the table found so would walk the search outward round by round.
        auto lends = [&](const CellObservation& c) { return o.masked_offset_chain || !searched.count({c.col, c.row}); };
        std::set<std::pair<int, int>> skipped;
        for (const auto& c : holes) skipped.insert({c.col, c.row});
        std::map<std::pair<int, int>, CellObservation> offered;
        std::vector<const CellObservation*> from;
        for (const auto& c : cells) {
            if (lends(c)) from.push_back(&c);
        }
        for (const auto& c : holes) from.push_back(&c);
        for (const auto* cp : from) {
            const auto& c = *cp;
            for (int s = 0; s < 4; ++s) {
                const int col = c.col + kSideCol[s], row = c.row + kSideRow[s];
                if (col < 0 || row < 0 || col >= view.cols || row >= view.rows || at.count({col, row}) || offered.count({col, row}) || skipped.count({col, row})) continue;
                // The offset: the mean of the read neighbours' (tiles lie a little off the grid, alike nearby).
                cv::Point2d offset(0, 0);
                int n = 0;
                for (int t = 0; t < 4; ++t) {
                    const auto it = at.find({col + kSideCol[t], row + kSideRow[t]});
                    if (it != at.end() && lends(*it->second)) offset += it->second->offset_px, ++n;
                }
                if (n > 0) offset /= n;
                if (view.seen_share(col, row, offset) < lattice.min_seen_share) continue;
                // Grown from cells read across a gap alone: across the gap too.
                bool beyond_gap = true;
                for (int t = 0; t < 4; ++t) {
                    const auto it = at.find({col + kSideCol[t], row + kSideRow[t]});
                    if (it != at.end()) beyond_gap = beyond_gap && it->second->across_gap;
                }
                offered[{col, row}] = CellObservation{col, row, 0.0, offset, false, n > 0 && beyond_gap};
            }
        }
        // Cells across one empty cell (straight or diagonal): a board's tiles linked through a tile
        // neither the mask nor the outline saw (its group left out by largest_group).
        std::set<std::pair<int, int>> across_gap;
        constexpr double kNothingToCompare = 1e8;  // cell_alignment gives 1e9 to an outline whose squares half a pitch away show none
        if (o.min_across_gap_alignment > 0) {
            constexpr int jc[8] = {0, 2, 0, -2, 1, 1, -1, -1}, jr[8] = {-2, 0, 2, 0, -1, 1, 1, -1};
            std::map<std::pair<int, int>, std::pair<cv::Point2d, int>> jumped;  // cell -> summed offsets of the tiles it is reached from
            for (const auto* cp : from) {
                for (int s = 0; s < 8; ++s) {
                    const int col = cp->col + jc[s], row = cp->row + jr[s];
                    if (col < 0 || row < 0 || col >= view.cols || row >= view.rows || at.count({col, row}) || offered.count({col, row}) || skipped.count({col, row})) continue;
                    bool beside = false;  // beside a tile: offered (or not) as a neighbour above
                    for (int t = 0; t < 4; ++t) beside = beside || at.count({col + kSideCol[t], row + kSideRow[t]}) > 0;
                    if (beside) continue;
                    auto& [sum, n] = jumped[{col, row}];
                    sum += cp->offset_px, ++n;
                }
            }
            for (const auto& [cell, sum_n] : jumped) {
                const cv::Point2d offset = sum_n.first / std::max(1, sum_n.second);
                if (view.seen_share(cell.first, cell.second, offset) < 1.0) continue;
                offered[cell] = CellObservation{cell.first, cell.second, 0.0, offset, false, true};
                across_gap.insert(cell);
            }
        }
        if (offered.empty()) break;
        std::vector<CellObservation> candidates;
        for (const auto& [cell, c] : offered) candidates.push_back(c);
        auto aligned = rim_alignment(view_image, view, candidates, lattice, o.rim_ring_outlines, ringed);
        if (!across_gap.empty()) {
            // A cell across a gap has no tile of its own beside it to guess its offset from: measured also
            // on the lattice's own square, the better one kept.
            std::vector<CellObservation> on_grid;
            std::vector<std::size_t> which;
            for (std::size_t i = 0; i < candidates.size(); ++i) {
                if (across_gap.count({candidates[i].col, candidates[i].row})) on_grid.push_back(candidates[i]), on_grid.back().offset_px = {0, 0}, which.push_back(i);
            }
            const auto on_grid_aligned = rim_alignment(view_image, view, on_grid, lattice, o.rim_ring_outlines, ringed);
            for (std::size_t k = 0; k < which.size(); ++k) {
                if (on_grid_aligned[k] > aligned[which[k]]) aligned[which[k]] = on_grid_aligned[k], candidates[which[k]].offset_px = {0, 0};
            }
        }
        auto shares = not_table_shares(view, candidates, lattice);
        if (!colours) colours = learn_board_colours(frame, view, read_in_order, lattice);
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            if (board_colour_share(*colours, view, candidates[i], lattice, o.board_colour_ratio, o.board_colour_reach) >= o.min_board_colour_share) {
                shares[i] = std::max(shares[i], o.refine.candidate_share);  // masked: min_masked_alignment
            }
        }
        const auto guessed = candidates;
        const auto guessed_aligned = aligned;
        auto found = search_masked_offsets(view_image, view, candidates, aligned, shares, across_gap, read_tiles, at, o, ringed);
        std::size_t added = 0;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            SeamCheck seams;
            if (rules.on) seams = check_seams(view, lattice, candidates[i], reference, rules.like, rules.unlike);
            if (found[i] && !searched_cell_continues(seams, o)) {
                // The found offset's seams do not speak for it: the cell is judged at its guessed offset, as without the search.
                candidates[i] = guessed[i], aligned[i] = guessed_aligned[i], found[i] = false;
                seams = rules.on ? check_seams(view, lattice, candidates[i], reference, rules.like, rules.unlike) : SeamCheck{};
            }
            const bool continues = seams.sides > 0 && seams.like == seams.sides;
            const bool hole = seams_say_hole(seams, 1);
            if (hole) {
                if (seams.sides >= 2) holes.push_back(candidates[i]), ++added;
                continue;
            }
            if (across_gap.count({candidates[i].col, candidates[i].row})) {
                // Across a gap no seam speaks for the cell: its outline alone, clearer where the colours say tile too.
                const double gap_needed = shares[i] >= o.refine.candidate_share ? o.min_across_gap_alignment : o.min_unmasked_across_gap_alignment;
                // An outline with nothing half a pitch away to compare with (black beyond the photo or the
                // view: cell_alignment's 1e9) is no evidence here.
                if (aligned[i] >= gap_needed && aligned[i] < kNothingToCompare) cells.push_back(candidates[i]), ++added;
                continue;
            }
            // Colours unlike the table and an outline: both say tile (the outline check or the
            // board's largest group dropped it); an outline alone must be clearer, unless the
            // tile's art runs on into its neighbours'.
            double needed = std::min(shares[i] >= o.refine.candidate_share ? o.min_masked_alignment : o.min_added_alignment,
                                     continues ? o.min_seam_alignment : o.min_added_alignment);
            if (enclosed_by_board(candidates[i], at, seams, o)) {
                // The board's own outlines set the bound: on a blurred steep photo every tile frames itself weakly.
                // A lattice whose tiles frame themselves no better than the squares half a pitch away may sit
                // off the tiles (its seams then run through the art and continue): nothing is offered so.
                if (!board_alignment) board_alignment = median_alignment(view, read_in_order, lattice);
                if (*board_alignment >= o.min_enclosing_board_alignment) needed = std::min(needed, o.enclosed_alignment_share * *board_alignment);
            }
            if (aligned[i] >= needed || walled_by_board(candidates[i], shares[i], at, o)) {
                cells.push_back(candidates[i]), ++added;
                if (found[i]) searched.insert({candidates[i].col, candidates[i].row});
            }
        }
        if (added == 0) break;
    }
    return cells;
}

// The sides of `view` (W, N, E, S) that one of `cells` reaches.
std::array<bool, 4> sides_reached(const LatticeView& view, const std::vector<CellObservation>& cells) {
    std::array<bool, 4> reached{};
    for (const auto& c : cells) {
        reached[0] = reached[0] || c.col <= 0, reached[1] = reached[1] || c.row <= 0;
        reached[2] = reached[2] || c.col >= view.cols - 1, reached[3] = reached[3] || c.row >= view.rows - 1;
    }
    return reached;
}

// Widens the chosen lattice's view by ReaderOptions::board_margin_cells on each side its cells
// reach (their cols and rows move with it), within LatticeOptions::max_top_side, when a cell
// beyond, beside a tile, shows a tile's outline (cell_alignment at least the loosest bound a
// cell is offered on, add_outlined_neighbours); otherwise the view stays as it is. The view
// was cut to the box of the board's colours as the search saw them: tiles coloured like the
// table (green art on a green cloth, pale art on a pale table) and the refit's moves leave the
// board's last rows beyond it, where no later stage looks (medium 7006, 7017, 13014).
// Only the `sides` (W, N, E, S) set are looked at. Returns the old view's cells in the widened
// one (empty: not widened).
cv::Rect widen_to_board(const RefitFrame& frame, LatticeView& view, std::vector<CellObservation>& cells, const ReaderOptions& o,
                        std::array<bool, 4> sides = {true, true, true, true}) {
    if (o.board_margin_cells <= 0 || cells.empty()) return {};
    const auto reached = sides_reached(view, cells);
    const bool left = reached[0] && sides[0], top = reached[1] && sides[1], right = reached[2] && sides[2], bottom = reached[3] && sides[3];
    const int most = std::max(0, static_cast<int>(o.lattice.max_top_side / view.pitch_px));
    const int spare_x = std::max(0, most - view.cols), spare_y = std::max(0, most - view.rows);
    const int m = o.board_margin_cells;
    ViewMargin margin;
    margin.left = left ? std::min(m, spare_x / 2) : 0;
    margin.right = right ? std::min(m, spare_x - margin.left) : 0;
    margin.top = top ? std::min(m, spare_y / 2) : 0;
    margin.bottom = bottom ? std::min(m, spare_y - margin.top) : 0;
    if (margin.empty()) return {};
    // The widened lattice's geometry (no images yet).
    LatticeView wide;
    wide.px_per_mm = view.px_per_mm, wide.pitch_px = view.pitch_px, wide.frame = view.frame;
    wide.cols = view.cols + margin.left + margin.right, wide.rows = view.rows + margin.top + margin.bottom;
    wide.image_to_top = cv::Matx33d(1, 0, margin.left * view.pitch_px, 0, 1, margin.top * view.pitch_px, 0, 0, 1) * view.image_to_top;
    // The cells just beyond the old view, beside a tile and inside the frame.
    const cv::Rect was(margin.left, margin.top, view.cols, view.rows);
    std::map<std::pair<int, int>, cv::Point2d> at;  // the tiles, at their cells in the widened view, and their offsets
    std::set<std::pair<int, int>> seen;
    for (const auto& c : cells) at[{c.col + margin.left, c.row + margin.top}] = c.offset_px;
    std::vector<CellObservation> beyond;
    for (const auto& [cell, offset] : at) {
        for (int s = 0; s < 4; ++s) {
            const int col = cell.first + kSideCol[s], row = cell.second + kSideRow[s];
            if (was.contains(cv::Point(col, row)) || !seen.insert({col, row}).second) continue;
            if (wide.seen_share(col, row, offset) >= o.lattice.min_seen_share) beyond.push_back({col, row, 0.0, offset});  // tiles lie a little off the grid, alike nearby
        }
    }
    if (beyond.empty()) return {};
    // Their outlines, measured on a top view at about 1 px/mm (what cell_alignment reads at)
    // warped from the shrunk frame the refit reads.
    const double k = std::min(1.0, 1.0 / view.px_per_mm);
    LatticeView coarse = wide;
    coarse.px_per_mm = view.px_per_mm * k, coarse.pitch_px = view.pitch_px * k;
    for (auto& c : beyond) c.offset_px *= k;
    coarse.image_to_top = cv::Matx33d(k, 0, 0, 0, k, 0, 0, 0, 1) * wide.image_to_top * cv::Matx33d(1 / k, 0, 0, 0, 1 / k, 0, 0, 0, 1);
    const cv::Size coarse_size(static_cast<int>(std::ceil(coarse.cols * coarse.pitch_px)), static_cast<int>(std::ceil(coarse.rows * coarse.pitch_px)));
    cv::warpPerspective(frame.shrunk(k), coarse.top, coarse.image_to_top, coarse_size, cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar(0, 0, 0));
    const double needed = std::min({o.min_added_alignment, o.min_masked_alignment, o.min_seam_alignment});
    const auto aligned = cell_alignment(coarse, beyond, o.lattice);
    if (std::none_of(aligned.begin(), aligned.end(), [&](double a) { return a >= needed; })) return {};
    // No top view warped here: read_board warps the whole widened one next (settle_cells).
    view.top.release();
    widen_view(frame.image(), view, margin);
    for (auto& c : cells) c.col += margin.left, c.row += margin.top;
    return was;
}

// Decides the pennant twins of `tiles` (decide_pennants, the pieces' `covers` no evidence) and keeps
// them within the edition's copies (PennantOptions::within_copies).
void decide_pennants_within_copies(const LatticeView& view, std::vector<DecodedTile>& tiles, const Catalog& catalog, const ReaderOptions& options,
                                   const std::vector<CoverOnBoard>& covers = {}) {
    const auto evidence = decide_pennants(view, tiles, catalog, options.pennants, covers);
    if (options.pennants.within_copies) keep_twins_within_copies(tiles, evidence, catalog, options.decoder.edition, options.pennants.rank_by_silhouette,
                                                              options.pennants.min_peeking_share);
}

}  // namespace

namespace {

// The squares of `c`'s cells in a frame of `size`, each grown by `margin` pitches.
cv::Mat cell_squares_mask(cv::Size size, const CheckedLattice& c, double margin) {
    cv::Mat mask(size, CV_8UC1, cv::Scalar(0));
    const cv::Matx33d top_to_frame = c.view.image_to_top.inv();
    const double pitch = c.view.pitch_px, m = margin * pitch;
    for (const auto& cell : c.cells) {
        const cv::Point2d o = cv::Point2d(cell.col * pitch, cell.row * pitch) + cell.offset_px;
        std::vector<cv::Point> square;
        for (const auto& corner : {cv::Point2d(-m, -m), cv::Point2d(pitch + m, -m), cv::Point2d(pitch + m, pitch + m), cv::Point2d(-m, pitch + m)}) {
            const cv::Point2d q = apply_homography(top_to_frame, o + corner);
            if (!std::isfinite(q.x) || !std::isfinite(q.y) || std::abs(q.x) > 1e6 || std::abs(q.y) > 1e6) {
                square.clear();
                break;
            }
            square.emplace_back(cvRound(q.x), cvRound(q.y));
        }
        if (square.size() == 4) cv::fillConvexPoly(mask, square, cv::Scalar(255));
    }
    return mask;
}

// How far `base`'s cells' centres, mapped onto `other`, sit from the best similarity of their own
// lattice positions (pitches, RMS): a sheared or turning view moves them; 1e9 when it cannot be told.
double lattice_shift_pitches(const CheckedLattice& base, const CheckedLattice& other) {
    std::vector<cv::Point2f> from_cells, to_cells;
    const cv::Matx33d to_other = other.view.image_to_top * base.view.image_to_top.inv();
    for (const auto& c : base.cells) {
        const cv::Point2d q = apply_homography(to_other, base.view.cell_centre(c.col, c.row) + c.offset_px) * (1 / other.view.pitch_px);
        if (!std::isfinite(q.x) || !std::isfinite(q.y)) return 1e9;
        from_cells.emplace_back(static_cast<float>(c.col + 0.5), static_cast<float>(c.row + 0.5));
        to_cells.emplace_back(static_cast<float>(q.x), static_cast<float>(q.y));
    }
    if (from_cells.size() < 3) return 1e9;
    const cv::Mat m = cv::estimateAffinePartial2D(from_cells, to_cells, cv::noArray(), cv::LMEDS);
    if (m.empty()) return 1e9;
    double sum = 0;
    for (std::size_t i = 0; i < from_cells.size(); ++i) {
        const double x = m.at<double>(0, 0) * from_cells[i].x + m.at<double>(0, 1) * from_cells[i].y + m.at<double>(0, 2);
        const double y = m.at<double>(1, 0) * from_cells[i].x + m.at<double>(1, 1) * from_cells[i].y + m.at<double>(1, 2);
        sum += (x - to_cells[i].x) * (x - to_cells[i].x) + (y - to_cells[i].y) * (y - to_cells[i].y);
    }
    return std::sqrt(sum / static_cast<double>(from_cells.size()));
}

// Searches the lattice `chosen` (framing its cells not surely) again on its own cells
// (find_lattices_within, ReaderOptions::reframe): the table's lines may have pulled a direction
// off (a sheared or turning view). Returns the best lattice found again on its own cells over
// the rounds that moved the cells and frames them about as well, or none. Each check is listed
// in `reading.checked` ("reframed").
Result<std::optional<CheckedLattice>> reframed_board(const RefitFrame& frame, const CheckedLattice& chosen, const LatticeOptions& lattice,
                                                     const std::shared_ptr<LineSearchCache>& line_cache, const Catalog& catalog,
                                                     const ReaderOptions& options, double frame_scale, StageClock& clock, BoardReading& reading) {
    const double to_beat = board_evidence(chosen) * options.reframe.min_gain;
    std::optional<CheckedLattice> best, seed;  // the best over every round; the last round's best
    const CheckedLattice* from = &chosen;
    bool still_moving = true;  // the last round's best was not found again on its own cells (or none was searched)
    const int most_rounds = options.reframe.rounds + options.reframe.rounds_while_moving;
    for (int round = 0; round < most_rounds; ++round) {
        if (round >= options.reframe.rounds && !still_moving) break;
        const cv::Mat board = cell_squares_mask(frame.image().size(), *from, options.reframe.cell_margin);
        if (cv::countNonZero(board) == 0) break;
        auto again = find_lattices_within(frame.image(), lattice, board, cell_squares_mask(frame.image().size(), *from, options.reframe.table_margin), line_cache);
        clock.add_to(reading.stages.lines);
        if (!again) {
            if (again.error().kind != ErrorKind::Invalid) return again.error();
            break;
        }
        std::optional<CheckedLattice> round_best;
        const int tries = std::min(options.max_lattices, static_cast<int>(again->size()));
        for (int k = 0; k < tries; ++k) {
            auto& candidate = (*again)[static_cast<std::size_t>(k)];
            make_table_mask(candidate);
            auto checked = check_lattice(frame, std::move(candidate), catalog, options, frame_scale);
            ++reading.stages.candidates;
            if (!checked) return checked.error();
            reading.checked.push_back({"reframed", checked->view.image_to_top, checked->view.px_per_mm, static_cast<int>(checked->cells.size()),
                                       checked->contrast.ratio(), -1.0, checked->refusal});
            checked->checked_at = reading.checked.size() - 1;
            if (checked->refusal.empty() && !checked->cells.empty() && (!round_best || board_evidence(*checked) > board_evidence(*round_best))) {
                round_best = std::move(checked.value());
            }
        }
        clock.add_to(reading.stages.refit);
        if (!round_best) break;
        const double change = lattice_shift_pitches(chosen, *round_best);
        const double step = seed ? lattice_shift_pitches(*seed, *round_best) : change;
        // Nothing moved: the lattice taken was right (unless only the move showed its tiles: a
        // lattice a little off frames nothing, the tiles' own one frames them, hard 1003).
        const bool newly_shown = options.reframe.follow_small_moves_that_show && shows_tiles(*round_best, options) && !shows_tiles(chosen, options);
        if (change < options.reframe.min_change && !newly_shown) break;
        // Taken only when found again on its own cells (a lattice pulled off by the table's lines
        // moves again), framing them about as well as the choice (a view's outlines weaken
        // together, the true lattice's too) and showing tiles wherever the choice did.
        const bool found_again = seed && step <= options.reframe.max_step;
        still_moving = !found_again;
        if (found_again && board_evidence(*round_best) >= to_beat && (shows_tiles(*round_best, options) || !shows_tiles(chosen, options)) &&
            (!best || board_evidence(*round_best) > board_evidence(*best))) {
            best = *round_best;
        }
        seed = std::move(round_best);
        from = &*seed;
    }
    return best;
}

// Reads the board of one frame, as seen or with its glare spot's veil lifted off first.
Result<BoardReading> read_board_once(const cv::Mat& image, const Catalog& catalog, const ReaderOptions& options, bool lift) {
    BoardReading reading;
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    StageClock clock;
    auto& stages = reading.stages;
    auto finish = [&] {
        stages.total.wall_ms = elapsed_ms(start);
        stages.total.cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    };
    // A photo larger than the reader needs is shrunk first (pixel area averaged); the view
    // found in it is mapped back to the camera image at the end.
    cv::Mat shrunk;
    double frame_scale = 1;
    if (std::max(image.cols, image.rows) > options.max_frame_side) {
        const double k = static_cast<double>(options.max_frame_side) / std::max(image.cols, image.rows);
        cv::resize(image, shrunk, cv::Size(std::max(1, static_cast<int>(std::lround(image.cols * k))), std::max(1, static_cast<int>(std::lround(image.rows * k)))), 0,
                   0, cv::INTER_AREA);
        frame_scale = static_cast<double>(shrunk.cols) / image.cols;
    }
    // A glare spot's white veil is lifted off the frame first: washed out, the table passes for
    // tiles and the gaps between tiles fade (every later stage reads the lifted frame).
    clock.add_to(stages.lines);  // the shrinking
    cv::Mat lifted;
    if (lift) {
        lifted = (shrunk.empty() ? image : shrunk).clone();
        if (!lift_glare_veil(lifted, options.veil)) lifted.release();
        reading.glare_lifted = !lifted.empty();
    }
    clock.add_to(stages.veil);
    const cv::Mat& frame = !lifted.empty() ? lifted : shrunk.empty() ? image : shrunk;
    const RefitFrame refit_frame(frame);  // its shrunk copy made once, for every candidate
    LatticeOptions lattice = options.lattice;
    lattice.warp_top = false;  // warped once, after the refit
    lattice.max_candidates = std::min(lattice.max_candidates, options.max_lattices);  // the rest would never be tried
    lattice.defer_table_mask = true;  // warped for the candidates checked only (most frames stop at the first)
    // The searches of the whole frame share its line segments (the off-frame search redoes only
    // the table mask); the zoomed search reads a crop, with segments of its own.
    const auto line_cache = make_line_search_cache();
    const auto zoom_cache = make_line_search_cache();
    // Candidate lattices, best fold first, each refitted on the tiles: of those whose cells are
    // framed by tile outlines (and not as much half a pitch away) the one framing them most
    // clearly is the board (the search stops at a sure one: sure_tile_contrast). Near the
    // board's colours first, then in the whole frame (the table's colours can hide the board).
    std::optional<CheckedLattice> chosen, fallback;
    std::vector<CheckedLattice> plausible;  // every candidate over min_checked_tiles cells not refused (its images shared, not copied)
    std::vector<std::pair<double, LatticeView>> unrefitted_plausible;  // those candidates as found, with their board evidence
    bool fold_decided = false;  // the fold's own choice (the first strong candidate) was seen: it is the fallback, or refused
    std::string first_failure;
    // The searches in order: near the board's colours, in the whole frame, and, when neither
    // showed a lattice clearly, near the board again in a crop of the frame around it. A small
    // or far board's tiles are ~20 px in the work image: their sides are short and blurred, and
    // a table's long stripes or a few long road edges outvote them in the line directions;
    // the crop is read at up to the frame's own resolution.
    // Last, when no lattice framed its cells surely: near the board again, its colours told from
    // the table's by how much less often than the table's they reach the frame's edge (a board
    // running off the frame puts its own colours in the edge band, and the first mask calls them
    // table: real test_07's grass).
    enum class Search { near_board, whole_frame, zoomed, off_frame };
    LatticeOptions off_frame_lattice = lattice;
    off_frame_lattice.table_share_of_median = options.off_frame_table_share;
    bool shown_clearly = false;  // a lattice was shown clearly: the whole-frame and zoomed searches are skipped
    for (const Search search : {Search::near_board, Search::whole_frame, Search::zoomed, Search::off_frame}) {
        if (search == Search::off_frame) {
            if (options.off_frame_table_share <= 0 || (chosen && sure_board(*chosen, options))) break;
            // Its candidates would be the first search's when its rule calls hardly any colour
            // otherwise: then it is not run.
            cv::Mat changed;
            cv::bitwise_xor(board_colour_mask(frame, lattice, *line_cache), board_colour_mask(frame, off_frame_lattice, *line_cache), changed);
            if (static_cast<double>(cv::countNonZero(changed)) < options.off_frame_min_mask_change * static_cast<double>(changed.total())) break;
        } else if (shown_clearly) {
            continue;
        }
        const bool whole = search == Search::whole_frame;
        cv::Point crop_origin(0, 0);
        cv::Mat crop;
        if (search == Search::zoomed) {
            if (chosen && chosen->contrast.ratio() >= options.min_tile_contrast) continue;
            const cv::Rect box = board_bounds(frame, lattice);
            if (box.area() == 0) continue;
            const int mx = static_cast<int>(options.zoom_margin * box.width), my = static_cast<int>(options.zoom_margin * box.height);
            const cv::Rect grown = cv::Rect(box.x - mx, box.y - my, box.width + 2 * mx, box.height + 2 * my) & cv::Rect(0, 0, frame.cols, frame.rows);
            const auto work_scale = [&](int side) { return std::min(1.0, static_cast<double>(lattice.work_side) / side); };
            if (work_scale(std::max(grown.width, grown.height)) < options.min_zoom * work_scale(std::max(frame.cols, frame.rows))) continue;
            crop = frame(grown);
            crop_origin = grown.tl();
        }
        const bool off_frame = search == Search::off_frame;
        auto candidates = find_lattices(crop.empty() ? frame : crop, off_frame ? off_frame_lattice : lattice, whole,
                                        search == Search::zoomed ? zoom_cache : line_cache);
        clock.add_to(stages.lines);
        if (!candidates) {
            if (candidates.error().kind != ErrorKind::Invalid) return candidates.error();
            if (first_failure.empty()) first_failure = candidates.error().message;
            continue;
        }
        if (!crop.empty()) {
            // Crop px -> frame px: each view maps the frame.
            const cv::Matx33d frame_to_crop(1, 0, -crop_origin.x, 0, 1, -crop_origin.y, 0, 0, 1);
            for (auto& view : *candidates) {
                view.image_to_top = view.image_to_top * frame_to_crop;
                view.frame = frame.size();
            }
        }
        const int tries = std::min(options.max_lattices, static_cast<int>(candidates->size()));
        for (int k = 0; k < tries; ++k) {
            auto& candidate = (*candidates)[static_cast<std::size_t>(k)];
            make_table_mask(candidate);
            clock.add_to(stages.lines);
            // Kept as found (its mask copied: the refit writes into it) for the rescaled pass below.
            LatticeView unrefitted = candidate;
            if (options.rescale.enabled) unrefitted.not_table = candidate.not_table.clone();
            const bool legacy = k == 0 && candidate.strong && !fold_decided;
            fold_decided = fold_decided || legacy;
            auto checked = check_lattice(refit_frame, std::move(candidate), catalog, options, frame_scale);
            clock.add_to(stages.refit);
            ++stages.candidates;
            if (!checked) return checked.error();
            reading.checked.push_back({search == Search::near_board ? "near board" : whole ? "whole frame" : off_frame ? "off frame" : "zoomed", checked->view.image_to_top,
                                       checked->view.px_per_mm, static_cast<int>(checked->cells.size()), checked->contrast.ratio(), -1.0,
                                       checked->refusal});
            checked->checked_at = reading.checked.size() - 1;
            // A lattice at a multiple of the tiles' pitch, subdivided, holds at least 1 / max_share
            // times its cells: one holding more than that share of the most a subdivision may hold
            // is not measured (most true lattices: their boards' tiles).
            std::optional<CheckedLattice> finer;
            const double most_finer_cells = options.subdivide.max_tiles_share * game_copies(catalog, options.decoder.edition);
            const bool few_for_finer = static_cast<double>(checked->cells.size()) <= options.subdivide.max_share * most_finer_cells;
            if (checked->refusal.empty() && few_for_finer && !off_frame && shows_tiles(*checked, options)) {
                if (auto sub = finer_lattice(frame, checked->view, checked->cells, catalog, options)) {
                    auto sub_checked = check_lattice(refit_frame, std::move(*sub), catalog, options, frame_scale);
                    ++stages.candidates;
                    if (!sub_checked) return sub_checked.error();
                    reading.checked.push_back({"subdivided", sub_checked->view.image_to_top, sub_checked->view.px_per_mm,
                                               static_cast<int>(sub_checked->cells.size()), sub_checked->contrast.ratio(), -1.0, sub_checked->refusal});
                    sub_checked->checked_at = reading.checked.size() - 1;
                    // The tiles the coarser lattice held, cut finer: no more cells than the game has tiles,
                    // and nearly every coarser cell still holding one (a true lattice halved along an
                    // axis whose tiles' middles show roads or city walls frames them too).
                    const bool few_enough = static_cast<double>(sub_checked->cells.size()) <= most_finer_cells;
                    const bool same_board = covered_share(checked->view, checked->cells, sub_checked->view, sub_checked->cells) >=
                                            options.subdivide.min_covered_share;
                    if (sub_checked->refusal.empty() && few_enough && same_board && shows_tiles(*sub_checked, options)) finer = std::move(sub_checked.value());
                }
                clock.add_to(stages.refit);
            }
            if (off_frame) {
                // Only a large board runs off the frame: taken when it shows tiles over at least
                // twice min_checked_tiles cells, more cells and more evidence than the choice so far
                // (neither the rescaled pass nor the choice by classification sees it: a decoy's
                // few framed cells there must not open a choice among its other lattices).
                const auto n = checked->cells.size();
                if (checked->refusal.empty() && static_cast<int>(n) >= 2 * options.min_checked_tiles && shows_tiles(*checked, options) &&
                    (!chosen || (n > chosen->cells.size() && board_evidence(*checked) > board_evidence(*chosen)))) {
                    chosen = std::move(checked.value());
                    if (sure_board(*chosen, options)) break;
                }
                continue;
            }
            if (checked->refusal.empty() && static_cast<int>(checked->cells.size()) >= options.min_checked_tiles) {
                plausible.push_back(*checked);
                if (options.rescale.enabled) unrefitted_plausible.emplace_back(board_evidence(*checked), std::move(unrefitted));
            }
            if (finer && (!chosen || board_evidence(*finer) > board_evidence(*chosen))) chosen = std::move(finer);
            if (!checked->refusal.empty()) {
                if (legacy || first_failure.empty()) first_failure = checked->refusal;
                continue;
            }
            if (shows_tiles(*checked, options)) {
                // Every candidate is scored: a wrong lattice can pass the check before the true
                // one, and one over a few cells can frame them sharply (a tile's art, the
                // table's pattern), so the contrast counts with the cells it holds for.
                if (!chosen || board_evidence(*checked) > board_evidence(*chosen)) chosen = std::move(checked.value());
                if (sure_board(*chosen, options)) break;
            }
            // The lattice the fold alone chose, taken as before when no candidate shows tiles.
            else if (legacy) fallback = std::move(checked.value());
            if (chosen && sure_board(*chosen, options)) break;
        }
        // A lattice shown clearly ends the searches but the off-frame one (only a sure lattice ends
        // that); one shown only weakly (blurred, steep) may still lose to a clearer one found in the next search.
        if (chosen && chosen->contrast.ratio() >= options.min_tile_contrast) shown_clearly = true;
    }
    if (!chosen) chosen = std::move(fallback);
    // No candidate framed its cells surely: a candidate's pitch may be a few percent off (a busy
    // cloth in the tiles' colours folds too), its cells drifting off the tiles across the board.
    if (!chosen || !sure_board(*chosen, options)) {
        auto rescaled = rescaled_board(refit_frame, std::move(unrefitted_plausible), catalog, options, frame_scale,
                                       chosen && shows_tiles(*chosen, options), reading);
        clock.add_to(stages.refit);
        if (!rescaled) return rescaled.error();
        if (*rescaled && (!chosen || board_evidence(**rescaled) > board_evidence(*chosen))) chosen = std::move(**rescaled);
    }
    // No candidate framed its cells surely: the table's lines may have pulled a direction off
    // (a sheared or turning view). Searched again with only the taken cells' edges voting.
    if (options.reframe.enabled && chosen && !sure_board(*chosen, options) && !chosen->cells.empty()) {
        auto reframed = reframed_board(refit_frame, *chosen, lattice, line_cache, catalog, options, frame_scale, clock, reading);
        if (!reframed) return reframed.error();
        if (*reframed) {
            plausible.push_back(**reframed);
            chosen = std::move(**reframed);
        }
    }
    unrefitted_plausible.clear();
    // No candidate framed its cells clearly over many cells: the outlines (blurred, steep) cannot
    // choose. The classifier can: on a lattice cutting across the tiles no layout fits a cell, so
    // each cell's best hypothesis agrees with its neighbours' far less often than on the tiles.
    // (Only another lattice's reading is chosen: a frame where no lattice was taken stays without a board.)
    // A lattice taken on the weaker tier (many cells framed 1.35-1.6 times) stays: real boards are
    // mostly read there, and classification moved some onto worse lattices (test_10: half a
    // tile off, the box's cells read as a block of cities).
    const bool unsure = chosen && (!shows_tiles(*chosen, options) || static_cast<int>(chosen->cells.size()) < 2 * options.min_checked_tiles);
    const bool offer_variants = (options.subdivide.by_classification || options.coarsen.by_classification) && !plausible.empty();
    if (unsure && (plausible.size() >= 2 || offer_variants) && options.min_unary_gain < 1) {
        // Scored like the tile contrast: the share weighted by the square root of the cells (a
        // few cells agree by chance more easily).
        std::vector<double> shares;
        double chosen_share = -1;
        auto measure = [&] {
            for (std::size_t i = shares.size(); i < plausible.size(); ++i) {
                const double share = unary_share(frame, plausible[i], catalog, options);
                reading.checked[plausible[i].checked_at].unary_agreement = share;
                if (plausible[i].checked_at == chosen->checked_at) chosen_share = share;
                shares.push_back(share);
            }
        };
        measure();
        if (offer_variants && options.subdivide.by_classification && chosen_share >= 0) {
            // Cuts the lattice taken finer (subdivided_to_tiles) and offers each variant, checked in full, to this choice: a low
            // camera's top view foreshortened wrongly holds 1.5 tiles a cell along one axis, and on real tiles, whose art runs
            // across their seams, the true lattice frames its cells no more clearly than that one (test_49: 1.06 against 1.86);
            // the classifier tells them (its roads continue across the true cells only). Only against a lattice whose own roads
            // were measured (a true lattice with few road sides, medium 5018, lost to its halved variant). Offered like the
            // subdivision's: no more cells than the game has tiles, nearly every coarser cell still holding one.
            const double most_finer_cells = options.subdivide.max_tiles_share * game_copies(catalog, options.decoder.edition);
            for (auto& variant : subdivided_to_tiles(frame, chosen->view, options.subdivide)) {
                auto sub = check_lattice(refit_frame, std::move(variant), catalog, options, frame_scale);
                ++stages.candidates;
                if (!sub) return sub.error();
                const auto n = static_cast<int>(sub->cells.size());
                const bool offered = sub->refusal.empty() && n >= options.min_checked_tiles && n <= most_finer_cells &&
                                     covered_share(chosen->view, chosen->cells, sub->view, sub->cells) >= options.subdivide.min_covered_share;
                reading.checked.push_back({"subdivided", sub->view.image_to_top, sub->view.px_per_mm, n, sub->contrast.ratio(), -1.0,
                                           offered || !sub->refusal.empty() ? sub->refusal : "not offered to the choice by classification"});
                sub->checked_at = reading.checked.size() - 1;
                if (offered) plausible.push_back(std::move(sub.value()));
            }
            measure();
        }
        double best_share = -1, best_score = -1;
        std::size_t best = 0;
        for (std::size_t i = 0; i < plausible.size(); ++i) {
            const double score = shares[i] * std::sqrt(static_cast<double>(plausible[i].cells.size()));
            if (shares[i] >= 0 && score > best_score) best_score = score, best_share = shares[i], best = i;
        }
        if (plausible.size() >= 2 && best_share >= 0 && plausible[best].checked_at != chosen->checked_at &&
            best_share >= chosen_share + options.min_unary_gain &&
            !(options.keep_unmeasured_over_fewer_cells && chosen_share < 0 && plausible[best].cells.size() < chosen->cells.size())) {
            chosen = std::move(plausible[best]);
        }
        if (offer_variants && options.coarsen.by_classification) {
            if (auto merged = coarser_lattice(frame, refit_frame, *chosen, catalog, options, frame_scale, reading); !merged) {
                return merged.error();
            } else if (*merged) {
                chosen = std::move(**merged);
            }
        }
        clock.add_to(stages.refit);
    }
    plausible.clear();
    reading.ms_lattice = elapsed_ms(start);
    if (!chosen) {
        reading.message = first_failure.empty() ? "no board found" : first_failure;
        reading.ms_total = reading.ms_lattice;
        finish();
        return reading;
    }
    reading.view = std::move(chosen->view);
    auto cells = std::move(chosen->cells);
    // The view widened where a tile seems to lie beyond it (widen_to_board), and kept so only
    // when at least min_tiles_beyond tiles are offered there: the table cells the classifier
    // learns from and the light near the board's edge, measured again over the wider view,
    // change the reading of the tiles inside too (on the sets measured, more often for the
    // worse; real test_27: one tile more, 96 -> 91 % of its sides matching; lost18 round).
    const LatticeView narrow_view = reading.view;
    const std::vector<CellObservation> narrow_cells = cells;
    const cv::Rect narrow = widen_to_board(refit_frame, reading.view, cells, options);
    const auto classified_at = std::chrono::steady_clock::now();
    std::vector<CellObservation> holes;  // read by occupancy, dropped by their seams; still measured by the alignment refusal below
    LatticeView settled_in_frame;              // the view settle_cells settled last, as it mapped the frame (before the camera px)
    std::vector<CellObservation> settled_from;  // ...and the cells it settled from (before the seams and the growth)
    // Warps the whole top view, evens out its light and offers the cells beside the board.
    auto settle_cells = [&] {
        settled_in_frame = reading.view;
        settled_from = cells;
        reading.view.top = whole_top_view(frame, reading.view);
        reading.view.top_near_cells = false;
        if (!shrunk.empty()) {
            // Camera px -> shrunk px (pixel centres kept), then the view's own homography.
            const double sx = static_cast<double>(shrunk.cols) / image.cols, sy = static_cast<double>(shrunk.rows) / image.rows;
            const cv::Matx33d image_to_frame(sx, 0, 0.5 * sx - 0.5, 0, sy, 0.5 * sy - 0.5, 0, 0, 1);
            reading.view.image_to_top = reading.view.image_to_top * image_to_frame;
            reading.view.frame = image.size();
        }
        clock.add_to(stages.refit);  // the moves above
        even_out_light(reading.view, cells, options.light);
        clock.add_to(stages.light);
        // Then tiles the table mask missed beside the board (after the light: the cells added teach
        // nothing, so the colour model and the light are those of the cells read before).
        // A board already holding as many cells as the game has tiles has table among them (glare, a
        // busy cloth): nothing is added to it.
        const auto seams = seam_rules(reading.view, cells, options);
        holes.clear();
        cells = drop_seam_holes(reading.view, std::move(cells), options.lattice, seams, holes);
        if (options.grow_rounds > 0 && static_cast<double>(cells.size()) < options.grow_below_copies_share * game_copies(catalog, options.decoder.edition)) {
            cells = add_outlined_neighbours(frame, reading.view, std::move(cells), options, seams, shrunk.empty() ? frame : image);
        }
    };
    settle_cells();
    const auto beyond = std::count_if(cells.begin(), cells.end(), [&](const CellObservation& c) { return !narrow.contains(cv::Point(c.col, c.row)); });
    if (!narrow.empty() && beyond < options.min_tiles_beyond) {
        reading.view = narrow_view;
        cells = narrow_cells;
        settle_cells();
    }
    // The board's cells grown on their outlines may reach a side of the view that no cell read by
    // occupancy reached (widen_to_board looked only at those): the view is widened there from the
    // grown cells, settled again from the same cells read by occupancy, and kept on the same terms
    // (min_tiles_beyond offered beyond the view it widened).
    if (options.widen_grown_board) {
        LatticeView wide = settled_in_frame;
        wide.top.release();
        std::vector<CellObservation> grown = cells;
        // Only the sides no cell read by occupancy reached: the others were looked at (and kept or not) above.
        auto sides = sides_reached(wide, settled_from);
        for (auto& side : sides) side = !side;
        const cv::Rect was = widen_to_board(refit_frame, wide, grown, options, sides);
        if (!was.empty()) {
            LatticeView kept_view = reading.view;
            std::vector<CellObservation> kept_cells = cells, kept_holes = holes;
            cells = settled_from;
            for (auto& c : cells) c.col += was.x, c.row += was.y;
            reading.view = std::move(wide);
            settle_cells();
            const auto more = std::count_if(cells.begin(), cells.end(), [&](const CellObservation& c) { return !was.contains(cv::Point(c.col, c.row)); });
            if (more < options.min_tiles_beyond) {
                reading.view = std::move(kept_view);
                cells = std::move(kept_cells);
                holes = std::move(kept_holes);
            }
        }
    }
    // Classifies and decodes `offered`, filling the reading's tiles and evidence; `since`: when
    // the classification's time began; `untaught`: cells read by occupancy that teach nothing.
    auto read_cells = [&](std::vector<CellObservation> offered, std::chrono::steady_clock::time_point since,
                          const std::set<std::pair<int, int>>& untaught) {
        reading.offered = std::move(offered);
        reading.hypotheses = classify_cells(reading.view, reading.offered, catalog, options.classifier);
        clock.add_to(stages.classify);
        reading.ms_classify += elapsed_ms(since);
        const auto decoded_at = std::chrono::steady_clock::now();
        reading.tiles = decode_board(reading.hypotheses, catalog, options.decoder);
        clock.add_to(stages.decode);
        // A tile read across a gap may lie off the board's grid (its cell then holds a neighbour's
        // pennant): it teaches the pennant reader no plain city (real test_2 at --across-gap 1.6).
        std::set<std::pair<int, int>> across_gap;
        for (const auto& c : reading.offered) {
            if (c.across_gap) across_gap.insert({c.col, c.row});
        }
        for (auto& t : reading.tiles) t.teaches_plain_city = !across_gap.count({t.col, t.row});
        decide_pennants_within_copies(reading.view, reading.tiles, catalog, options);
        clock.add_to(stages.pennants);
        reading.ms_decode += elapsed_ms(decoded_at);
        reading.found = !reading.tiles.empty();
        reading.message = reading.found ? "" : "no board found";
        auto& e = reading.evidence;
        std::tie(e.side_pairs, e.sides_agreeing) = side_agreement(reading.tiles, catalog);
        std::tie(e.unary_pairs, e.unary_agreeing) = unary_agreement(reading.hypotheses, catalog);
        // Cells offered on their outline alone (add_outlined_neighbours) were chosen for standing out
        // from the squares half a pitch away: counted here they would raise the median they are
        // measured by (a decoy's plain cells grown by a few framed ones; real test_4 0.71 -> 0.78).
        std::set<std::pair<int, int>> outlined;
        for (const auto& c : reading.offered) {
            if (!c.teaches && !untaught.count({c.col, c.row})) outlined.insert({c.col, c.row});
        }
        std::vector<CellObservation> shown;
        for (const auto& t : reading.tiles) {
            if (!t.hidden && !outlined.count({t.col, t.row})) shown.push_back({t.col, t.row, 1.0, t.offset_px});
        }
        // Holes dropped by their seams count as read: a decoy's plain cells (a cake's icing) are
        // unlike the tile art beside them too, and left out they would leave only its framed art
        // cells in the median (a rendered cake's 0.74 -> 0.77).
        for (const auto& c : holes) shown.push_back(c);
        e.aligned_cells = static_cast<int>(shown.size());
        e.median_alignment = median_alignment(reading.view, shown, options.lattice);
    };
    read_cells(cells, classified_at, {});
    // On a board the decoder makes touching sides agree; tiles laid out apart (a printed
    // reference sheet, tiles sorted in rows) leave many that cannot.
    auto sides_disagree = [&] {
        const auto [pairs, agreeing] = side_agreement(reading.tiles, catalog);
        return reading.found && pairs >= options.min_side_pairs && agreeing < options.min_side_agreement * pairs;
    };
    // Holes in the board that the table mask and the seams took for tiles (wood among dusk
    // art: medium 13016) teach the city the table's colour, read as full cities and disagree with
    // the tiles around them. The tiles whose sides mostly disagree (disagreeing_tiles), at most
    // relearn_share of those read, are offered again teaching nothing (as cells offered on their
    // outline alone): the terrain model is learnt without them, and the classifier's table model
    // may then drop them: they are sampled as table instead (classify_cells). That reading is
    // kept when its sides agree, over min_side_pairs at least, and it lost at most relearn_share
    // of the tiles; a tile laid out apart that is still read as a tile still disagrees.
    // Holes side by side agree with each other (city meets city) and keep teaching the city the
    // wood: the reading made again may be the same (13016 with the road-side check). So it is made
    // again up to relearn_rounds times, each round untaught the tiles of the reading just made that
    // disagree at least as often as they agree (disagreeing_tiles), the untaught within
    // relearn_share of the first reading's tiles.
    if (sides_disagree() && options.relearn_share > 0) {
        auto first = std::make_tuple(reading.offered, reading.tiles, reading.evidence, reading.hypotheses);  // kept when the sides disagree again
        const auto first_tiles = static_cast<double>(std::get<1>(first).size());
        std::set<std::pair<int, int>> untaught;
        bool kept = false;
        for (int round = 0; round < options.relearn_rounds && !kept; ++round) {
            const auto more = disagreeing_tiles(reading.tiles, catalog, options.min_relearn_disagreeing, untaught);
            const auto before = untaught.size();
            untaught.insert(more.begin(), more.end());
            if (untaught.size() == before || static_cast<double>(untaught.size()) > options.relearn_share * first_tiles) break;
            auto offered = std::get<0>(first);
            for (auto& c : offered) c.teaches = c.teaches && !untaught.count({c.col, c.row});
            read_cells(std::move(offered), std::chrono::steady_clock::now(), untaught);
            const auto [pairs, agreeing] = side_agreement(reading.tiles, catalog);
            kept = reading.found && pairs >= options.min_side_pairs && agreeing >= options.min_side_agreement * pairs &&
                   static_cast<double>(reading.tiles.size()) >= (1 - options.relearn_share) * first_tiles;
        }
        if (!kept) {
            std::tie(reading.offered, reading.tiles, reading.evidence, reading.hypotheses) = std::move(first);
            reading.found = true;
        }
    }
    if (sides_disagree()) {
        const auto [pairs, agreeing] = side_agreement(reading.tiles, catalog);
        reading.found = false;
        reading.message = "no board found: " + std::to_string(pairs - agreeing) + " of " + std::to_string(pairs) +
                          " touching sides do not match (tiles laid out apart, not a board)";
        reading.tiles.clear();
    }
    // A lattice is checked on its occupied cells; the seams and the decoder can leave fewer tiles
    // than a board has (noise framed by a lattice of 4 cells, 3 dropped as holes). Tiles the
    // photo's edge cuts are not counted: a noise frame's one tile read whole beside a cut cell of
    // noise, read from its part in the photo, was a board of two.
    if (reading.found && wholly_seen_tiles(reading.view, reading.tiles) < options.min_tiles) {
        reading.found = false;
        reading.message = "no board found: fewer than " + std::to_string(options.min_tiles) + " cells look like tiles";
        if (static_cast<int>(reading.tiles.size()) >= options.min_tiles) reading.message += " wholly inside the photo";
        reading.tiles.clear();
    }
    // On a board nearly every cell is a tile, framed by its gaps; a decoy's lattice (a cake's
    // tiers, a poster's panels) holds plain cells framed by nothing, whose squares half a
    // pitch away stand out as much (cell_alignment about 1 or below).
    if (const auto& e = reading.evidence;
        reading.found && e.aligned_cells >= options.min_aligned_cells && e.median_alignment < options.min_median_alignment) {
        reading.found = false;
        char median[16];
        std::snprintf(median, sizeof median, "%.2f", e.median_alignment);
        reading.message = "no board found: the tiles' outlines do not frame the cells (median alignment " + std::string(median) + ", not a board)";
        reading.tiles.clear();
    }
    reading.ms_total = elapsed_ms(start);
    finish();
    return reading;
}

void add_stage_times(ReaderStages& into, const ReaderStages& from) {
    for (auto member : {&ReaderStages::veil, &ReaderStages::lines, &ReaderStages::refit, &ReaderStages::light, &ReaderStages::classify,
                        &ReaderStages::decode, &ReaderStages::pennants, &ReaderStages::total}) {
        (into.*member).wall_ms += (from.*member).wall_ms;
        (into.*member).cpu_ms += (from.*member).cpu_ms;
    }
    into.candidates += from.candidates;
}

}  // namespace

bool lifted_reading_stronger(const BoardReading& seen, const BoardReading& lifted) {
    if (seen.found != lifted.found) return lifted.found;
    if (!seen.found) return false;
    const int seen_disagreeing = seen.evidence.side_pairs - seen.evidence.sides_agreeing;
    const int lifted_disagreeing = lifted.evidence.side_pairs - lifted.evidence.sides_agreeing;
    if (seen_disagreeing != lifted_disagreeing) return lifted_disagreeing < seen_disagreeing;
    return lifted.evidence.median_alignment > seen.evidence.median_alignment;
}

int wholly_seen_tiles(const LatticeView& view, const std::vector<DecodedTile>& tiles) {
    if (view.frame.area() <= 0) return static_cast<int>(tiles.size());
    return static_cast<int>(std::count_if(tiles.begin(), tiles.end(), [&](const DecodedTile& t) { return view.seen_share(t.col, t.row, t.offset_px) >= 1; }));
}

Result<BoardReading> read_board(const cv::Mat& image, const Catalog& catalog, const ReaderOptions& options) {
    if (auto st = options.check(); !st) return st.error();
    if (image.empty() || image.type() != CV_8UC3) return invalid("recognize", "expects a non-empty 8-bit colour image");
    if (options.lift_glare != GlareLift::when_stronger) return read_board_once(image, catalog, options, options.lift_glare == GlareLift::always);
    // The lifted frame first: where no glare spot is found that reading is the frame as seen,
    // and the only one.
    auto lifted = read_board_once(image, catalog, options, true);
    if (!lifted || !lifted->glare_lifted) return lifted;
    auto seen = read_board_once(image, catalog, options, false);
    if (!seen) return seen;
    BoardReading& kept = lifted_reading_stronger(*seen, *lifted) ? lifted.value() : seen.value();
    // Both readings were paid for: the kept one's times count the other's too.
    const BoardReading& other = &kept == &seen.value() ? lifted.value() : seen.value();
    add_stage_times(kept.stages, other.stages);
    kept.ms_lattice += other.ms_lattice, kept.ms_classify += other.ms_classify, kept.ms_decode += other.ms_decode;
    kept.ms_total += other.ms_total;
    return std::move(kept);
}

Status reread_under_pieces(BoardReading& reading, const std::vector<BridgeOnCell>& bridges, const std::vector<CoverOnBoard>& covers,
                           const Catalog& catalog, const ReaderOptions& options) {
    if (auto st = options.check(); !st) return st;
    if (!reading.found || reading.tiles.empty()) return invalid("reread_under_pieces", "the reading has no board");
    std::vector<CellObservation> cells;
    std::set<std::pair<int, int>> read;
    for (const auto& t : reading.tiles) {
        cells.push_back({t.col, t.row, 1.0, t.offset_px});
        read.insert({t.col, t.row});
    }
    for (const auto& b : bridges) {
        if (b.axis != 0 && b.axis != 1) return invalid("reread_under_pieces", "a bridge at [" + std::to_string(b.col) + ", " + std::to_string(b.row) + "] has axis " + std::to_string(b.axis) + " (0 or 1)");
        if (!read.count({b.col, b.row})) return invalid("reread_under_pieces", "a bridge at [" + std::to_string(b.col) + ", " + std::to_string(b.row) + "] lies on no read tile");
    }
    const auto started = std::chrono::steady_clock::now();
    const auto hyps = classify_cells(reading.view, cells, catalog, options.classifier, bridges, covers);
    auto tiles = decode_board(hyps, catalog, options.decoder);
    if (tiles.empty()) return Ok{};  // nothing read: keep the first reading
    decide_pennants_within_copies(reading.view, tiles, catalog, options, covers);
    // Every cell read stays on the board: the pieces can hide so much of a tile that the rest
    // looks like the table (classify_cells drops such a cell); it keeps its first reading.
    std::set<std::pair<int, int>> reread;
    for (const auto& t : tiles) reread.insert({t.col, t.row});
    for (const auto& t : reading.tiles) {
        if (!reread.count({t.col, t.row})) tiles.push_back(t);
    }
    reading.tiles = std::move(tiles);
    std::vector<CellHypotheses> kept_hypotheses;
    for (const auto& h : hyps) {
        if (reread.count({h.col, h.row})) kept_hypotheses.push_back(h);
    }
    for (const auto& h : reading.hypotheses) {
        if (!reread.count({h.col, h.row})) kept_hypotheses.push_back(h);
    }
    reading.hypotheses = std::move(kept_hypotheses);
    const double ms = elapsed_ms(started);
    reading.ms_classify += ms;
    reading.ms_total += ms;
    return Ok{};
}

Result<int> decide_pennants_under_pieces(BoardReading& reading, const std::vector<CoverOnBoard>& covers, const Catalog& catalog,
                                         const ReaderOptions& options) {
    if (auto st = options.check(); !st) return st.error();
    if (!reading.found || reading.tiles.empty()) return invalid("decide_pennants_under_pieces", "the reading has no board");
    if (covers.empty()) return 0;
    const auto started = std::chrono::steady_clock::now();
    auto tiles = reading.tiles;
    decide_pennants_within_copies(reading.view, tiles, catalog, options, covers);
    int changed = 0;
    for (std::size_t i = 0; i < tiles.size(); ++i) {
        if (tiles[i].type == reading.tiles[i].type) continue;  // kept as read: its confidence not taken down twice
        reading.tiles[i] = tiles[i];
        ++changed;
    }
    const double ms = elapsed_ms(started);
    reading.stages.pennants.wall_ms += ms;
    reading.ms_total += ms;
    return changed;
}

bool LatticeView::in_frame(double x_cells, double y_cells) const {
    const cv::Matx33d to_image = image_to_top.inv();
    const cv::Vec3d v = to_image * cv::Vec3d(x_cells * pitch_px, y_cells * pitch_px, 1);
    // A homography and its negative map alike: the side of the horizon the photo shows is the
    // one the frame's centre lies on, whatever the sign of the matrix's weights.
    const cv::Vec3d centre = image_to_top * cv::Vec3d(0.5 * frame.width, 0.5 * frame.height, 1);
    const cv::Vec3d seen = to_image * (centre * (1.0 / centre[2]));
    if (v[2] * seen[2] <= 0) return false;
    const double u = v[0] / v[2], w = v[1] / v[2];
    return u >= 0 && w >= 0 && u < frame.width && w < frame.height;
}

bool LatticeView::seen(double x_cells, double y_cells) const {
    // Inside the view's own rectangle as well as the camera frame: the view is cut to it, nothing beyond was warped.
    return x_cells >= 0 && y_cells >= 0 && x_cells <= cols && y_cells <= rows && in_frame(x_cells, y_cells);
}

double LatticeView::seen_share(int col, int row, cv::Point2d offset_px) const {
    constexpr int kGrid = 8;
    // The frame's edge maps to a straight line in the top view: a cell wholly inside has its four corners inside.
    const double ox = offset_px.x / pitch_px, oy = offset_px.y / pitch_px;
    if (seen(col + ox, row + oy) && seen(col + 1 + ox, row + oy) && seen(col + ox, row + 1 + oy) && seen(col + 1 + ox, row + 1 + oy)) return 1.0;
    int inside = 0;
    for (int j = 0; j < kGrid; ++j) {
        for (int i = 0; i < kGrid; ++i) inside += seen(col + ox + (i + 0.5) / kGrid, row + oy + (j + 0.5) / kGrid);
    }
    return static_cast<double>(inside) / (kGrid * kGrid);
}

}  // namespace meeplecam::vision
