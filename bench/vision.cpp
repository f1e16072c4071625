// Vision benchmark: renders boards per preset and reads them back (stages 1-4), then reads
// the real development photos when ../shared/realdata/dev exists. Plain program, prints a table.
//
//   ./build/bench/vision [--n N] [--seed S] [--presets easy,medium,hard] [--game carcassonne|city|amazonas] [--real DIR] [--no-real] [--no-scans]
//                        [--no-tiles] [--no-pieces] [--pieces-n N] [--true-board-only] [--width-pose] [--veil | --no-veil] [--min-veil S] [--no-adapt] [--no-split] [--cover | --no-cover] [--no-pennant-cover] [--min-seen-under-piece S] [--no-runner-up] [--refit] [--no-shade] [--no-grey-grow] [--no-ferry-cover] [--road-white] [--cast-inset MM] [--overlays DIR]
//                        [--no-keep-buffers] [--max-frame-side PX] [--no-coarsen] [--across-gap A] [--rim-ring 0|1] [--board-seed S] [--offset-search S] [--walled-share S] [--grow-share S] [--offset-neighbours N] [--offset-overlap F] [--offset-seams N] [--offset-chain 0|1] [--widen-grown 0|1] [--grass-nearest 0|1] [--reframe | --no-reframe] [--reframe-moving N] [--reframe-small 0|1] [--keep-unmeasured 0|1] [--full-edge-sums] [--refit-cap Q] [--rescaled-refit-cap Q] [--max-pennant-area A] [--cover-by-size | --cover-by-colour] [--follower-hides-spot] [--spot-turned] [--rank-by-confidence] [--min-peeking S] [--glare-veil | --glare-stronger | --no-glare-veil] [--labels DIR (hand-labelled real layouts, default bench/real_labels)] [--no-real-reread]
//                        [--repeat R] (each rendered frame read R times, its stage CPU times the least of them)
//                        [--print-tiles FILE] (every reading's view and tiles at full precision: diff two builds' files)
//                        [--dump DIR]  (per board and per wrong cell: why, and the stage that lost it, on rendered boards and on the
//                                       hand-labelled real photos; top views with the reading drawn, in DIR;
//                                       VB_EMPTY=1 also lists every empty cell beside the board, and covered tiles reported hidden;
//                                       VB_REJECTED=PHOTO.jpg lists that real photo's rejected follower blobs and why)
// Pieces (followers, final score): bench/vision_pieces.cpp.
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/random_game.h"
#include "engine/record.h"
#include "vision/board_reader.h"
#include "vision/frame_memory.h"
#include "vision/image_io.h"
#include "vision/photo_score.h"
#include "vision/table_renderer.h"
#include "vision/truth_metrics.h"
#include "real_scans.h"
#include "vision/tile_classifier.h"
#include "vision_pieces.h"
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

using namespace meeplecam;

namespace {

std::string g_dump;  // --dump DIR: top views with mistakes marked
std::string g_game = "carcassonne";  // --game: carcassonne, city or amazonas
std::string g_labels = MEEPLECAM_SOURCE_DIR "/bench/real_labels";  // --labels DIR: hand-labelled layouts of real photos (NAME.layout.json)
int g_max_frame_side = vision::ReaderOptions{}.max_frame_side;  // --max-frame-side: real photos larger than this are shrunk first (ReaderOptions)
bool g_coarsen = vision::ReaderOptions{}.coarsen.by_classification;  // --no-coarsen: no coarser variant of an unsure lattice (CoarsenOptions)
int g_reframe_moving = vision::ReaderOptions{}.reframe.rounds_while_moving;  // --reframe-moving N: ReframeOptions::rounds_while_moving
int g_keep_unmeasured = -1;  // --keep-unmeasured 0|1: ReaderOptions::keep_unmeasured_over_fewer_cells (-1: the default)
int g_reframe_small = -1;  // --reframe-small 0|1: ReframeOptions::follow_small_moves_that_show (-1: the default)
bool g_reframe = vision::ReaderOptions{}.reframe.enabled;  // --reframe / --no-reframe: search the lattice again on its own cells (ReframeOptions)
bool g_read_lines_only = vision::RefineOptions{}.integrate_read_lines_only;  // --full-edge-sums: the refit's edge sums on every line (RefineOptions)
int g_widen_grown = -1;  // --widen-grown 0|1: ReaderOptions::widen_grown_board (-1: the default)
int g_rim_ring = -1;  // --rim-ring 0|1: ReaderOptions::rim_ring_outlines (-1: the default)
int g_grass_nearest = -1;  // --grass-nearest 0|1: ClassifierOptions::grass_nearest_field (-1: the default)
double g_grow_share = -1;  // --grow-share S: ReaderOptions::grow_below_copies_share (-1: the default)
double g_board_colour_ratio = -1;  // --board-colour-ratio R: ReaderOptions::board_colour_ratio (-1: the default)
double g_board_colour_share = -1;  // --board-colour-share S: ReaderOptions::min_board_colour_share (-1: the default)
double g_walled_share = -1;  // --walled-share S: ReaderOptions::min_walled_share (-1: the default; above 1: off)
double g_offset_search = -1;  // --offset-search S: ReaderOptions::masked_offset_search (-1: the default)
int g_offset_neighbours = -1;  // --offset-neighbours N: ReaderOptions::masked_offset_neighbours (-1: the default)
double g_offset_overlap = -1;  // --offset-overlap F: ReaderOptions::masked_offset_overlap (-1: the default)
int g_offset_seams = -1;  // --offset-seams N: ReaderOptions::masked_offset_seams (-1: the default)
int g_offset_chain = -1;  // --offset-chain 0|1: ReaderOptions::masked_offset_chain (-1: the default)
double g_board_seed = -1;  // --board-seed S: LatticeOptions::board_colour_seed_share (-1: the default)
double g_across_gap = vision::ReaderOptions{}.min_across_gap_alignment;  // --across-gap A: offer cells one empty cell from the board at this outline (0: off)
bool g_real_reread = true;  // --no-real-reread: the labelled real photos are not also scored after the pieces' reread (as score-photo reads them)
bool g_cover_pieces = vision::ReaderOptions{}.cover_pieces;  // --cover / --no-cover (also the pieces bench's): ReaderOptions::cover_pieces
int g_repeat = 1;  // --repeat R: read each rendered frame R times; its CPU times are the least of the R (the readings are the same)
std::FILE* g_print_tiles = nullptr;  // --print-tiles FILE: every reading's lattice and tiles (type, rotation, confidence, offset), to diff two builds
double g_max_pennant_area = vision::PennantOptions{}.max_pennant_area;  // --max-pennant-area A: blobs above this share of a tile set no pennant size or colour (0: off)
bool g_cover_needs_colour = vision::PennantOptions{}.cover_needs_colour;  // --cover-by-size / --cover-by-colour: a blob far above the board's pennants is read by its size, or only when of their colour
bool g_follower_hides_spot = vision::PennantOptions{}.follower_hides_spot;  // --follower-hides-spot: such a follower's blob over the pennant spot counts as hidden
bool g_spot_at_rest = vision::PennantOptions{}.spot_at_rest;  // --spot-turned: the pennant spot found on the turned city (PennantOptions::spot_at_rest false)
bool g_rank_by_silhouette = vision::PennantOptions{}.rank_by_silhouette;  // --rank-by-confidence: PennantOptions::rank_by_silhouette false
double g_min_peeking_share = vision::PennantOptions{}.min_peeking_share;  // --min-peeking S: PennantOptions::min_peeking_share (0: off)
double g_rescaled_refit_cap = -1;  // --rescaled-refit-cap Q: RescaleOptions::refit_gradient_cap (-1: the default)
double g_refit_cap = -1;  // --refit-cap Q: RefineOptions::gradient_cap_quantile (-1: the default; 1: not capped)
vision::GlareLift g_lift_glare = vision::ReaderOptions{}.lift_glare;  // --glare-veil: always lift a glare spot off the frame; --glare-stronger: read both, keep the stronger; --no-glare-veil: never

// The reader's options as the flags set them, for the rendered boards and the real photos alike.
vision::ReaderOptions reader_options_from_flags() {
    vision::ReaderOptions o;
    o.lift_glare = g_lift_glare;
    o.coarsen.by_classification = g_coarsen;
    o.min_across_gap_alignment = g_across_gap;
    o.reframe.enabled = g_reframe;
    o.reframe.rounds_while_moving = g_reframe_moving;
    if (g_reframe_small >= 0) o.reframe.follow_small_moves_that_show = g_reframe_small != 0;
    if (g_keep_unmeasured >= 0) o.keep_unmeasured_over_fewer_cells = g_keep_unmeasured != 0;
    o.refine.integrate_read_lines_only = g_read_lines_only;
    o.pennants.max_pennant_area = g_max_pennant_area;
    o.pennants.cover_needs_colour = g_cover_needs_colour;
    o.pennants.follower_hides_spot = g_follower_hides_spot;
    o.pennants.spot_at_rest = g_spot_at_rest;
    o.pennants.rank_by_silhouette = g_rank_by_silhouette;
    o.pennants.min_peeking_share = g_min_peeking_share;
    if (g_rim_ring >= 0) o.rim_ring_outlines = g_rim_ring > 0;
    if (g_board_seed >= 0) o.lattice.board_colour_seed_share = g_board_seed;
    if (g_offset_search >= 0) o.masked_offset_search = g_offset_search;
    if (g_walled_share > 0) o.min_walled_share = g_walled_share;
    if (g_grow_share > 0) o.grow_below_copies_share = g_grow_share;
    if (g_board_colour_ratio > 0) o.board_colour_ratio = g_board_colour_ratio;
    if (g_board_colour_share > 0) o.min_board_colour_share = g_board_colour_share;
    if (g_offset_neighbours >= 0) o.masked_offset_neighbours = g_offset_neighbours;
    if (g_offset_overlap >= 0) o.masked_offset_overlap = g_offset_overlap;
    if (g_offset_seams >= 0) o.masked_offset_seams = g_offset_seams;
    if (g_offset_chain >= 0) o.masked_offset_chain = g_offset_chain != 0;
    if (g_widen_grown >= 0) o.widen_grown_board = g_widen_grown > 0;
    if (g_grass_nearest >= 0) o.classifier.grass_nearest_field = g_grass_nearest > 0;
    if (g_refit_cap > 0) o.refine.gradient_cap_quantile = g_refit_cap;
    if (g_rescaled_refit_cap > 0) o.rescale.refit_gradient_cap = g_rescaled_refit_cap;
    return o;
}

constexpr int kMinTiles = 60, kMaxTiles = 80;  // issue 4: 60-80 tiles at 1920x1080

cv::Point2d apply(const cv::Matx33d& h, cv::Point2d p) {
    const cv::Vec3d v = h * cv::Vec3d(p.x, p.y, 1);
    return {v[0] / v[2], v[1] / v[2]};
}

// Writes one reading's outcome to --print-tiles' file (nothing without it), at full printed
// precision: two builds whose files match read every frame alike.
void print_tiles(const std::string& name, const Result<vision::BoardReading>& reading) {
    if (g_print_tiles == nullptr) return;
    if (!reading) {
        std::fprintf(g_print_tiles, "%s: error %s\n", name.c_str(), reading.error().to_string().c_str());
        return;
    }
    const auto& r = reading.value();
    std::fprintf(g_print_tiles, "%s: found %d, glare %d, %zu tiles, %s\n", name.c_str(), r.found ? 1 : 0, r.glare_lifted ? 1 : 0, r.tiles.size(), r.message.c_str());
    const auto& h = r.view.image_to_top;
    std::fprintf(g_print_tiles, "  view %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g, pitch %.17g, px/mm %.17g\n", h(0, 0), h(0, 1), h(0, 2), h(1, 0), h(1, 1),
                 h(1, 2), h(2, 0), h(2, 1), h(2, 2), r.view.pitch_px, r.view.px_per_mm);
    for (const auto& t : r.tiles) {
        std::fprintf(g_print_tiles, "  %d,%d type %d rot %d conf %.17g runner %d %d %.17g hidden %d bridge %d offset %.17g %.17g\n", t.col, t.row, t.type, t.rot,
                     t.confidence, t.runner_type, t.runner_rot, t.runner_confidence, t.hidden ? 1 : 0, t.bridge_axis, t.offset_px.x, t.offset_px.y);
    }
    std::fflush(g_print_tiles);
}

cv::Mat half_size(const cv::Mat& image) {
    cv::Mat out;
    cv::resize(image, out, cv::Size(), 0.5, 0.5, cv::INTER_AREA);
    return out;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}


// The share of a lattice cell's inside (a sixth of the pitch left out per side) that the
// reader's table mask calls not table (--dump: why a tile was missed or invented).
double not_table_share(const vision::LatticeView& view, int col, int row) {
    if (view.not_table.empty()) return -1;
    const double p = view.pitch_px, inset = p / 6;
    cv::Rect r(static_cast<int>(col * p + inset), static_cast<int>(row * p + inset), static_cast<int>(p - 2 * inset), static_cast<int>(p - 2 * inset));
    r &= cv::Rect(0, 0, view.not_table.cols, view.not_table.rows);
    if (r.area() == 0) return -1;
    return cv::countNonZero(view.not_table(r)) / static_cast<double>(r.area());
}

struct PresetStats {
    int boards = 0, tiles = 0, wrong = 0, wrong_type = 0, missed = 0, invented = 0, perfect = 0, at_most_one = 0, not_found = 0;
    std::vector<double> ms, rect_mm;
    std::vector<double> ms_lattice, ms_classify, ms_decode, cpu_ms;  // stage split; CPU time of all threads (robust on a shared machine)
    std::vector<vision::ReaderStages> stages;  // the reader's finer split, per board read
    int covered = 0, covered_hidden = 0, visible_hidden = 0;  // tiles under a hand (visible < 50 %), those reported hidden; visible tiles reported hidden
};

void synthetic(const std::shared_ptr<const Catalog>& catalog, vision::Difficulty preset, int n, std::uint64_t seed0, PresetStats& st) {
    const auto& types = catalog->tiles();
    for (int b = 0; b < n; ++b) {
        const std::uint64_t seed = seed0 + static_cast<std::uint64_t>(b);
        RandomGameOptions rg;
        rg.seed = seed;
        rg.game = g_game;
        rg.max_tiles = kMinTiles + static_cast<int>(seed % (kMaxTiles - kMinTiles + 1));
        auto game = play_random_game(catalog, rg);
        if (!game) {
            std::fprintf(stderr, "random game: %s\n", game.error().to_string().c_str());
            continue;
        }
        auto options = vision::RenderOptions::for_difficulty(preset);
        auto rendering = vision::render_table(vision::scene_tiles(game->game.board()), options, seed);
        if (!rendering) {
            std::fprintf(stderr, "render: %s\n", rendering.error().to_string().c_str());
            continue;
        }
        const auto& truth = rendering->truth;
        const std::clock_t cpu_start = std::clock();
        const vision::ReaderOptions reader_options = reader_options_from_flags();
        auto reading = vision::read_board(rendering->image, *catalog, reader_options);
        double frame_cpu_ms = 1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
        for (int r = 1; r < g_repeat && reading; ++r) {
            // The same frame read again: on a shared machine the least CPU time is the least disturbed.
            const std::clock_t again_start = std::clock();
            const auto again = vision::read_board(rendering->image, *catalog, reader_options);
            frame_cpu_ms = std::min(frame_cpu_ms, 1000.0 * static_cast<double>(std::clock() - again_start) / CLOCKS_PER_SEC);
            if (!again) continue;
            auto& s = reading->stages;
            const auto& a = again->stages;
            for (auto [mine, theirs] : {std::pair{&s.veil, &a.veil}, std::pair{&s.lines, &a.lines}, std::pair{&s.refit, &a.refit}, std::pair{&s.light, &a.light},
                                        std::pair{&s.classify, &a.classify}, std::pair{&s.decode, &a.decode}, std::pair{&s.pennants, &a.pennants},
                                        std::pair{&s.total, &a.total}}) {
                mine->cpu_ms = std::min(mine->cpu_ms, theirs->cpu_ms);
                mine->wall_ms = std::min(mine->wall_ms, theirs->wall_ms);
            }
        }
        print_tiles(std::string(vision::difficulty_name(preset)) + std::to_string(seed), reading);
        st.cpu_ms.push_back(frame_cpu_ms);
        if (reading) st.ms_lattice.push_back(reading->ms_lattice), st.ms_classify.push_back(reading->ms_classify), st.ms_decode.push_back(reading->ms_decode);
        if (reading) st.stages.push_back(reading->stages);
        ++st.boards;
        st.tiles += static_cast<int>(truth.tiles.size());
        if (reading && !g_dump.empty()) {
            // Every candidate lattice checked, with its rectification error against the truth.
            for (const auto& c : reading->checked) {
                std::vector<cv::Point2d> at, want;
                for (const auto& t : truth.tiles) at.push_back(apply(c.image_to_top, t.centre_px) / c.px_per_mm), want.push_back(t.centre_mm);
                std::printf("    candidate seed %llu (%s): %d cells, contrast %.2f, evidence %.1f, unary sides %.2f, rect %.1f mm%s%s\n",
                            static_cast<unsigned long long>(seed), c.search, c.cells, c.contrast, c.contrast * std::sqrt(static_cast<double>(c.cells)),
                            c.unary_agreement, vision::rigid_alignment_rms(at, want),
                            c.refusal.empty() ? "" : ": ", c.refusal.c_str());
            }
        }
        if (reading && !g_dump.empty()) {
            const auto& e = reading->evidence;
            std::printf("    evidence seed %llu: sides %d/%d, unary sides %d/%d, median alignment %.2f over %d tiles\n", static_cast<unsigned long long>(seed),
                        e.sides_agreeing, e.side_pairs, e.unary_agreeing, e.unary_pairs, e.median_alignment, e.aligned_cells);
        }
        if (!reading || !reading->found) {
            if (!g_dump.empty()) {
                cv::imwrite(g_dump + "/" + std::string(vision::difficulty_name(preset)) + std::to_string(seed) + "_frame.png", half_size(rendering->image));
                std::printf("  board seed %llu: not found (%s), style %s, %s, tilt %.0f\n", static_cast<unsigned long long>(seed),
                            reading ? reading->message.c_str() : reading.error().to_string().c_str(), truth.style.c_str(), truth.surface.c_str(), truth.camera.tilt_deg);
            }
            ++st.not_found;
            st.missed += static_cast<int>(truth.tiles.size());
            st.ms.push_back(reading ? reading->ms_total : 0);
            continue;
        }
        st.ms.push_back(reading->ms_total);
        const auto& view = reading->view;
        // The board's quarter turn in the top view, from the first tile's NW -> NE edge.
        const cv::Point2d nw = apply(view.image_to_top, truth.tiles[0].corners_px[0]), ne = apply(view.image_to_top, truth.tiles[0].corners_px[1]);
        const int g = ((static_cast<int>(std::lround(std::atan2(ne.y - nw.y, ne.x - nw.x) * 2 / 3.14159265358979)) % 4) + 4) % 4;
        std::map<std::pair<int, int>, const vision::DecodedTile*> pred;
        for (const auto& t : reading->tiles) pred[{t.col, t.row}] = &t;
        std::map<std::pair<int, int>, bool> matched;
        // Where a missed or invented cell was lost or came from (--dump): the cells the reader
        // handed to classification, and each cell's outline against the squares half a pitch away.
        std::map<std::pair<int, int>, const vision::CellObservation*> offered;
        for (const auto& c : reading->offered) offered[{c.col, c.row}] = &c;
        // truth_frac: where the true tile's centre sits in its cell (cells; 0.5, 0.5 its middle).
        auto stage_of_missed = [&](int col, int row, cv::Point2d truth_frac) {
            constexpr int dc[4] = {0, 1, 0, -1}, dr[4] = {-1, 0, 1, 0};
            cv::Point2d offset(0, 0);
            int beside = 0;
            for (int s = 0; s < 4; ++s) {
                const auto it = offered.find({col + dc[s], row + dr[s]});
                if (it != offered.end()) offset += it->second->offset_px, ++beside;
            }
            const double share = not_table_share(view, col, row);
            const double aligned = vision::cell_alignment(view, {vision::CellObservation{col, row, share, beside > 0 ? offset / beside : offset}}, reader_options.lattice)[0];
            char why[200];
            // A cell beyond the view's own rectangle: no stage looked at it (the share of it inside the photo).
            if (col < 0 || row < 0 || col >= view.cols || row >= view.rows) {
                int inside = 0;
                for (int j = 0; j < 8; ++j) {
                    for (int i = 0; i < 8; ++i) inside += view.in_frame(col + (i + 0.5) / 8, row + (j + 0.5) / 8);
                }
                std::snprintf(why, sizeof why, "outside the view (%d x %d cells), %.2f of it in the photo; %d read beside", view.cols, view.rows, inside / 64.0, beside);
                return std::string(why);
            }
            const char* stage = offered.count({col, row}) ? "offered, dropped by the classifier's table model"
                                : share >= vision::RefineOptions{}.candidate_share ? "kept by the mask, dropped by the outline check or group"
                                : beside == 0                              ? "table by the mask, not beside the board"
                                                                           : "table by the mask, outline too weak to offer";
            // How far (pitches) the true tile lies from the square its read neighbours' offsets guess.
            const cv::Point2d guess = beside > 0 ? offset / beside / view.pitch_px : cv::Point2d(0, 0);
            const double off_guess = std::hypot(truth_frac.x - 0.5 - guess.x, truth_frac.y - 0.5 - guess.y);
            std::snprintf(why, sizeof why, "%s; alignment %.2f, %d read beside, %.2f pitch off the guessed square", stage, aligned, beside, off_guess);
            return std::string(why);
        };
        int errors = 0;
        std::vector<cv::Point2d> top_mm, table_mm;
        for (const auto& t : truth.tiles) {
            const cv::Point2d c = apply(view.image_to_top, t.centre_px);
            top_mm.push_back(c / view.px_per_mm);
            table_mm.push_back(t.centre_mm);
            const std::pair<int, int> cell{static_cast<int>(std::floor(c.x / view.pitch_px)), static_cast<int>(std::floor(c.y / view.pitch_px))};
            if (!g_dump.empty() && std::getenv("VB_FRAC")) std::printf("  frac %.2f %.2f\n", c.x / view.pitch_px - cell.first, c.y / view.pitch_px - cell.second);
            const auto it = pred.find(cell);
            if (it == pred.end()) {
                ++st.missed, ++errors;
                if (!g_dump.empty()) {
                    std::printf("  seed %llu cell %d,%d: true %s, missed (not-table share %.2f, visible %.2f; %s)\n", static_cast<unsigned long long>(seed), cell.first,
                                cell.second, t.tile.c_str(), not_table_share(view, cell.first, cell.second), t.visible, stage_of_missed(cell.first, cell.second, {c.x / view.pitch_px - cell.first, c.y / view.pitch_px - cell.second}).c_str());
                }
                continue;
            }
            matched[cell] = true;
            const auto* type = catalog->find(t.tile);
            const auto& p = *it->second;
            // A tile under a hand is read right when reported hidden; a visible one reported hidden is missed.
            const bool covered = t.visible < 0.5;
            st.covered += covered;
            if (p.hidden) {
                if (covered) {
                    ++st.covered_hidden;
                    if (!g_dump.empty() && std::getenv("VB_EMPTY")) {
                        std::printf("  seed %llu cell %d,%d: covered, reported hidden (visible %.2f, alignment %.2f)\n", static_cast<unsigned long long>(seed), cell.first,
                                    cell.second, t.visible, vision::cell_alignment(view, {vision::CellObservation{cell.first, cell.second, 0.0, p.offset_px}}, reader_options.lattice)[0]);
                    }
                    continue;
                }
                ++st.visible_hidden, ++st.missed, ++errors;
                if (!g_dump.empty()) {
                    const auto at = offered.find(cell);
                        std::printf("  seed %llu cell %d,%d: true %s, reported hidden (visible %.2f, not-table share %.2f, %s, alignment %.2f)\n", static_cast<unsigned long long>(seed), cell.first,
                                cell.second, t.tile.c_str(), t.visible, not_table_share(view, cell.first, cell.second),
                                at != offered.end() && !at->second->teaches ? "offered on its outline" : "read by occupancy",
                                vision::cell_alignment(view, {vision::CellObservation{cell.first, cell.second, 0.0, p.offset_px}}, reader_options.lattice)[0]);
                }
                continue;
            }
            const int period = static_cast<int>(type->distinct_rotations.size());
            const int want = (t.rot_deg / 90 + g) % 4;
            const bool same_type = types[static_cast<std::size_t>(p.type)].id == t.tile;
            if (!same_type || ((p.rot - want) % period + period) % period != 0) {
                ++st.wrong, ++errors;
                if (!g_dump.empty() && std::getenv("VB_CROP")) {
                    const double pp = view.pitch_px;
                    cv::Rect r(static_cast<int>(cell.first * pp), static_cast<int>(cell.second * pp), static_cast<int>(pp), static_cast<int>(pp));
                    r &= cv::Rect(0, 0, view.top.cols, view.top.rows);
                    cv::Mat crop;
                    cv::resize(view.top(r), crop, cv::Size(), 6, 6, cv::INTER_NEAREST);
                    const auto lay = vision::terrain_layout(*type, want, 20, 0.06);
                    const cv::Scalar col[] = {{0, 255, 0}, {255, 255, 255}, {0, 128, 255}, {255, 0, 255}, {255, 0, 0}, {0, 0, 255}, {0, 0, 0}};
                    for (int j = 0; j < 20; ++j) {
                        for (int i = 0; i < 20; ++i) {
                            const double u = 0.06 + (i + 0.5) / 20 * 0.88, v = 0.06 + (j + 0.5) / 20 * 0.88;
                            cv::circle(crop, cv::Point(static_cast<int>(u * pp * 6), static_cast<int>(v * pp * 6)), 3, col[lay[static_cast<std::size_t>(j * 20 + i)]], -1);
                        }
                    }
                    cv::imwrite(g_dump + "/crop_" + t.tile + std::to_string(seed) + "_" + std::to_string(cell.first) + "_" + std::to_string(cell.second) + ".png", crop);
                }
                if (!g_dump.empty()) {
                    std::printf("  seed %llu cell %d,%d: true %s rot %d, read %s rot %d (conf %.2f, visible %.2f)\n", static_cast<unsigned long long>(seed), cell.first,
                                cell.second, t.tile.c_str(), want, types[static_cast<std::size_t>(p.type)].id.c_str(), p.rot, p.confidence, t.visible);
                }
                if (!same_type) ++st.wrong_type;
            }
        }
        for (const auto& t : reading->tiles) {
            if (matched.count({t.col, t.row})) continue;
            ++st.invented, ++errors;
            if (!g_dump.empty()) {
                const auto it = offered.find({t.col, t.row});
                const bool outlined = it != offered.end() && !it->second->teaches;
                const double aligned = vision::cell_alignment(view, {vision::CellObservation{t.col, t.row, 0.0, t.offset_px}}, reader_options.lattice)[0];
                std::printf("  seed %llu cell %d,%d: invented %s rot %d (conf %.2f, not-table share %.2f; %s, alignment %.2f)\n", static_cast<unsigned long long>(seed), t.col, t.row,
                            types[static_cast<std::size_t>(t.type)].id.c_str(), t.rot, t.confidence, not_table_share(view, t.col, t.row),
                            outlined ? "offered on its outline" : "read by occupancy", aligned);
            }
        }
        if (!g_dump.empty() && std::getenv("VB_EMPTY")) {
            // Every lattice cell beside a read one where no tile lies: how tile-like it looks (mask, outline).
            std::map<std::pair<int, int>, bool> truth_cells;
            for (const auto& t : truth.tiles) {
                const cv::Point2d c = apply(view.image_to_top, t.centre_px);
                truth_cells[{static_cast<int>(std::floor(c.x / view.pitch_px)), static_cast<int>(std::floor(c.y / view.pitch_px))}] = true;
            }
            std::map<std::pair<int, int>, int> beside;
            for (const auto& t : reading->tiles) {
                for (const auto& [dc, dr] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) ++beside[{t.col + dc, t.row + dr}];
            }
            for (const auto& [cell, count] : beside) {
                if (pred.count(cell) || truth_cells.count(cell) || cell.first < 0 || cell.second < 0 || cell.first >= view.cols || cell.second >= view.rows) continue;
                std::printf("  seed %llu cell %d,%d: empty beside %d (not-table share %.2f, alignment %.2f)\n", static_cast<unsigned long long>(seed), cell.first, cell.second, count,
                            not_table_share(view, cell.first, cell.second),
                            vision::cell_alignment(view, {vision::CellObservation{cell.first, cell.second, 0.0, {0, 0}}}, reader_options.lattice)[0]);
            }
        }
        st.rect_mm.push_back(vision::rigid_alignment_rms(top_mm, table_mm));
        if (!g_dump.empty()) {
            cv::Mat img = view.top.clone();
            for (const auto& t : reading->tiles) {
                const cv::Point2d c = view.cell_centre(t.col, t.row);
                cv::putText(img, types[static_cast<std::size_t>(t.type)].id + std::to_string(t.rot), c - cv::Point2d(10, 0), cv::FONT_HERSHEY_SIMPLEX, 0.4,
                            cv::Scalar(0, 0, 255), 1);
            }
            for (const auto& t : truth.tiles) cv::circle(img, apply(view.image_to_top, t.centre_px), 3, cv::Scalar(255, 0, 0), -1);
            cv::imwrite(g_dump + "/" + std::string(vision::difficulty_name(preset)) + std::to_string(seed) + ".png", img);
            cv::imwrite(g_dump + "/" + std::string(vision::difficulty_name(preset)) + std::to_string(seed) + "_mask.png", view.not_table);
        }
        if (!g_dump.empty() && errors > 3) cv::imwrite(g_dump + "/" + std::string(vision::difficulty_name(preset)) + std::to_string(seed) + "_frame.png", half_size(rendering->image));
        if (!g_dump.empty()) {
            std::printf("  board seed %llu: %zu tiles, %d errors, %zu read, rect %.1f mm, style %s, %s, tilt %.0f, view %d x %d cells\n", static_cast<unsigned long long>(seed),
                        truth.tiles.size(), errors, reading->tiles.size(), st.rect_mm.back(), truth.style.c_str(), truth.surface.c_str(), truth.camera.tilt_deg, view.cols, view.rows);
        }
        st.perfect += errors == 0;
        st.at_most_one += errors <= 1;
    }
}

void print_synthetic(const char* name, const PresetStats& s) {
    const double t = std::max(1, s.tiles);
    std::printf("%-7s %6d %6d %9.2f%% %8.2f%% %7d %8d %8d %8.1f%% %8.1f%% %9.2f %8.1f\n", name, s.boards, s.tiles, 100.0 * (s.wrong + s.missed) / t,
                100.0 * s.wrong_type / t, s.missed, s.invented, s.not_found, 100.0 * s.perfect / std::max(1, s.boards),
                100.0 * s.at_most_one / std::max(1, s.boards), median(s.rect_mm), median(s.ms));
}

void print_split(const char* name, const PresetStats& s) {
    std::printf("%-7s median ms: lattice+refit %.1f, light+classify %.1f, decode+pennants %.1f, total %.1f; CPU (all threads) %.1f\n", name,
                median(s.ms_lattice), median(s.ms_classify), median(s.ms_decode), median(s.ms), median(s.cpu_ms));
    // The finer split: median per stage over the boards (the medians need not add up to the total's).
    auto stage_medians = [&](double vision::StageTime::*field) {
        std::string line;
        const std::pair<const char*, vision::StageTime vision::ReaderStages::*> parts[] = {
            {"veil", &vision::ReaderStages::veil}, {"lines", &vision::ReaderStages::lines},       {"refit", &vision::ReaderStages::refit},   {"light", &vision::ReaderStages::light},
            {"classify", &vision::ReaderStages::classify}, {"decode", &vision::ReaderStages::decode}, {"pennants", &vision::ReaderStages::pennants},
            {"total", &vision::ReaderStages::total}};
        for (const auto& [label, part] : parts) {
            std::vector<double> v;
            for (const auto& r : s.stages) v.push_back(r.*part.*field);
            char buf[48];
            std::snprintf(buf, sizeof buf, "%s%s %.1f", line.empty() ? "" : ", ", label, median(v));
            line += buf;
        }
        return line;
    };
    std::vector<double> candidates;
    for (const auto& r : s.stages) candidates.push_back(r.candidates);
    std::printf("%-7s stages, median CPU ms: %s; candidates refitted: median %.0f\n", name, stage_medians(&vision::StageTime::cpu_ms).c_str(), median(candidates));
    std::printf("%-7s stages, median wall ms: %s\n", name, stage_medians(&vision::StageTime::wall_ms).c_str());
    std::printf("%-7s hands: %d tiles under a hand (visible < 50 %%, on boards found), %d of them reported hidden; %d visible tiles reported hidden (counted missed)\n",
                name, s.covered, s.covered_hidden, s.visible_hidden);
}

// Splits "a,b,c" into names (empty parts dropped).
std::vector<std::string> split_names(const std::string& list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string part;
    while (std::getline(in, part, ',')) {
        if (!part.empty()) out.push_back(part);
    }
    return out;
}

std::vector<std::string> split_csv(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (const char ch : line) {
        if (ch == '"') quoted = !quoted;
        else if (ch == ',' && !quoted) out.push_back(cur), cur.clear();
        else cur += ch;
    }
    out.push_back(cur);
    return out;
}

// Prints every wrong or missed labelled cell of a real photo (--dump), in the labels' frame and
// the reading's lattice: what was read there, or the stage that lost it (offered to the
// classifier, the table mask's share, the outline's alignment, read tiles beside it).
void print_labelled_mistakes(const std::string& file, const vision::BoardReading& reading, const Catalog& catalog,
                             const std::vector<vision::LabelledTile>& labels, const vision::LayoutScore& score) {
    const auto& types = catalog.tiles();
    const auto& view = reading.view;
    std::map<std::pair<int, int>, const vision::DecodedTile*> read_at;
    for (const auto& t : reading.tiles) read_at[{t.col, t.row}] = &t;
    std::map<std::pair<int, int>, const vision::CellObservation*> offered;
    for (const auto& c : reading.offered) offered[{c.col, c.row}] = &c;
    // Undoes the score's turn and shift: a labelled cell's place in the reading's lattice.
    auto reading_cell = [&](int col, int row) {
        int x = col - score.shift.x, y = row - score.shift.y;
        for (int q = 0; q < (4 - score.turn) % 4; ++q) std::tie(x, y) = std::pair{-y, x};
        return std::pair{x, y};
    };
    for (const auto& l : labels) {
        if (l.tile == vision::kUnlabelled) continue;
        const auto cell = reading_cell(l.col, l.row);
        const auto it = read_at.find(cell);
        const auto* type = catalog.find(l.tile);
        if (it != read_at.end() && !it->second->hidden) {
            const auto& t = *it->second;
            const auto& read_type = types[static_cast<std::size_t>(t.type)];
            if (read_type.id == l.tile && type && vision::same_rotation(*type, (t.rot + score.turn) % 4, l.rot)) continue;
            std::printf("  %s label %d,%d (cell %d,%d): true %s rot %d, read %s rot %d (conf %.2f, runner-up %s)\n", file.c_str(), l.col, l.row, cell.first, cell.second,
                        l.tile.c_str(), l.rot, read_type.id.c_str(), (t.rot + score.turn) % 4, t.confidence,
                        t.runner_type >= 0 ? types[static_cast<std::size_t>(t.runner_type)].id.c_str() : "-");
            continue;
        }
        const bool in_view = cell.first >= 0 && cell.second >= 0 && cell.first < view.cols && cell.second < view.rows;
        int beside = 0;
        for (const auto& [dc, dr] : {std::pair{1, 0}, {-1, 0}, {0, 1}, {0, -1}}) beside += read_at.count({cell.first + dc, cell.second + dr}) > 0;
        const double share = in_view ? not_table_share(view, cell.first, cell.second) : -1;
        const double aligned = in_view ? vision::cell_alignment(view, {vision::CellObservation{cell.first, cell.second, share, {0, 0}}}, vision::LatticeOptions{})[0] : 0;
        const char* stage = !in_view                         ? "outside the lattice's view"
                            : it != read_at.end()            ? "read, reported hidden"
                            : offered.count(cell)            ? "offered, dropped by the classifier's table model"
                            : share >= vision::RefineOptions{}.candidate_share ? "kept by the mask, dropped by the outline check or group"
                            : beside == 0                    ? "table by the mask, not beside the board"
                                                             : "table by the mask, outline too weak to offer";
        std::printf("  %s label %d,%d (cell %d,%d): true %s rot %d, missed (%s; not-table share %.2f, alignment %.2f, %d read beside)\n", file.c_str(), l.col, l.row,
                    cell.first, cell.second, l.tile.c_str(), l.rot, stage, share, aligned, beside);
    }
}

// A labelled photo's score as a line: the counts, the per-tile error, `note`, then the confusions.
std::string labelled_counts(const vision::LayoutScore& s, const std::string& note = "") {
    char head[200];
    std::snprintf(head, sizeof head, "%d labelled, right %d, wrong %d, missed %d, invented %d (per-tile error %.1f%%)%s; truth->read:", s.labelled, s.right, s.wrong,
                  s.missed, s.invented, 100.0 * (s.labelled - s.right) / std::max(1, s.labelled), note.c_str());
    std::string line = head;
    for (const auto& c : s.confusions) line += " " + c;
    return line;
}

// Adds a photo's counts to the labelled photos' total.
void add_counts(vision::LayoutScore& total, const vision::LayoutScore& s) {
    total.labelled += s.labelled, total.right += s.right, total.wrong += s.wrong, total.missed += s.missed, total.invented += s.invented;
}

// Prints the labelled photos' total as "<title> summary: ...".
void print_labelled_summary(const char* title, const vision::LayoutScore& t) {
    std::printf("%s summary: %d tiles, right %d, wrong %d, missed %d, invented %d: per-tile error %.1f%%\n", title, t.labelled, t.right, t.wrong, t.missed,
                t.invented, t.labelled ? 100.0 * (t.labelled - t.right) / t.labelled : 0.0);
}

// Scores a labelled real photo's board after the piece detector's reread (detect_pieces_rereading,
// as meeplecam score-photo reads a photo: daylight colours, base-game pieces): the tiles under
// the followers found are read again. `found` is the board reader's reading (null: no board).
struct RereadScore {
    vision::LayoutScore score;
    std::string line;
};
RereadScore labelled_after_reread(const cv::Mat& image, const vision::BoardReading* found, const Catalog& catalog, vision::ReaderOptions options,
                                  const std::vector<vision::LabelledTile>& labels) {
    RereadScore out;
    std::vector<vision::DecodedTile> tiles;
    int followers = 0;
    std::string note;
    if (found) {
        vision::BoardReading board = *found;
        options.cover_pieces = g_cover_pieces;
        auto detection = vision::detect_pieces_rereading(image, board, catalog, vision::ColourModels::daylight(), vision::detector_options_for({}), options);
        if (detection) followers = static_cast<int>(detection->pieces.size());
        else note = " (pieces: " + detection.error().to_string() + ")";
        tiles = board.tiles;
    }
    out.score = vision::score_against_layout(tiles, catalog, labels);
    out.line = std::to_string(followers) + " followers found, " + labelled_counts(out.score, note);
    return out;
}

void real_photos(const std::shared_ptr<const Catalog>& catalog, const std::string& dir) {
    const std::string boards = dir + "/boards";
    std::ifstream tags(boards + "/tags.csv");
    if (!tags) {
        std::printf("\nreal photos: %s not found, skipped\n", boards.c_str());
        return;
    }
    std::printf("\nREAL PHOTOS (%s; self-consistency, and per-tile truth where %s has a hand-labelled layout)\n", boards.c_str(), g_labels.c_str());
    std::printf("%-16s %-9s %5s %6s %9s %8s %8s  %s\n", "file", "category", "found", "tiles", "sides_ok", "ms", "cpu_ms", "message");
    std::string line;
    std::getline(tags, line);
    int boards_n = 0, boards_found = 0, decoys = 0, decoys_refused = 0, pairs = 0, pairs_ok = 0;
    std::vector<double> ms, cpu_ms;
    std::vector<std::string> labelled_lines, reread_lines;
    vision::LayoutScore labelled_total, reread_total;
    const auto& types = catalog->tiles();
    while (std::getline(tags, line)) {
        if (line.empty()) continue;
        const auto f = split_csv(line);
        if (f.size() < 4) continue;
        const bool is_board = f[3] == "board";
        auto image = vision::load_image(boards + "/" + f[0]);
        if (!image) {
            std::printf("%-16s %-9s  load error: %s\n", f[0].c_str(), f[3].c_str(), image.error().to_string().c_str());
            continue;
        }
        const std::clock_t cpu_start = std::clock();
        vision::ReaderOptions options = reader_options_from_flags();
        options.max_frame_side = g_max_frame_side;
        auto reading = vision::read_board(image.value(), *catalog, options);
        print_tiles(f[0], reading);
        cpu_ms.push_back(1000.0 * static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
        const bool found = reading && reading->found;
        int p = 0, ok = 0;
        if (found) {
            std::map<std::pair<int, int>, const vision::DecodedTile*> at;
            for (const auto& t : reading->tiles) at[{t.col, t.row}] = &t;
            for (const auto& t : reading->tiles) {
                for (const auto& [dc, dr, side] : {std::tuple{1, 0, 1}, std::tuple{0, 1, 2}}) {
                    const auto it = at.find({t.col + dc, t.row + dr});
                    if (it == at.end()) continue;
                    const auto& a = types[static_cast<std::size_t>(t.type)];
                    const auto& b = types[static_cast<std::size_t>(it->second->type)];
                    ++p;
                    ok += a.edge_at(t.rot, side) == b.edge_at(it->second->rot, (side + 2) % 4);
                }
            }
        }
        const double t_ms = reading ? reading->ms_total : 0;
        ms.push_back(t_ms);
        if (is_board) ++boards_n, boards_found += found, pairs += p, pairs_ok += ok;
        else ++decoys, decoys_refused += !found;
        std::printf("%-16s %-9s %5s %6zu %8.0f%% %8.1f %8.1f  %s\n", f[0].c_str(), f[3].c_str(), found ? "yes" : "no", found ? reading->tiles.size() : 0,
                    p ? 100.0 * ok / p : 0.0, t_ms, cpu_ms.back(), reading ? reading->message.c_str() : reading.error().to_string().c_str());
        const std::string label_path = g_labels + "/" + std::filesystem::path(f[0]).stem().string() + ".layout.json";
        if (std::filesystem::exists(label_path)) {
            auto labels = vision::load_layout_labels(label_path, *catalog);
            if (!labels) {
                labelled_lines.push_back(f[0] + ": " + labels.error().to_string());
            } else {
                const auto score = vision::score_against_layout(found ? reading->tiles : std::vector<vision::DecodedTile>{}, *catalog, labels->tiles);
                labelled_lines.push_back(f[0] + ": " + labelled_counts(score));
                if (!g_dump.empty() && found) print_labelled_mistakes(f[0], *reading, *catalog, labels->tiles, score);
                add_counts(labelled_total, score);
                if (g_real_reread) {
                    const auto reread = labelled_after_reread(image.value(), found ? &reading.value() : nullptr, *catalog, options, labels->tiles);
                    reread_lines.push_back(f[0] + ": " + reread.line);
                    add_counts(reread_total, reread.score);
                }
            }
        }
        if (!g_dump.empty() && reading) {
            const auto& e = reading->evidence;
            std::printf("    evidence %s: sides %d/%d, unary sides %d/%d, median alignment %.2f over %d tiles\n", f[0].c_str(), e.sides_agreeing, e.side_pairs,
                        e.unary_agreeing, e.unary_pairs, e.median_alignment, e.aligned_cells);
            // Every candidate checked (no truth: cells, contrast, refusal), the frame at half size and the top view read.
            for (const auto& c : reading->checked) {
                std::printf("    candidate %s (%s): %d cells, contrast %.2f, evidence %.1f, unary sides %.2f%s%s\n", f[0].c_str(), c.search, c.cells, c.contrast,
                            c.contrast * std::sqrt(static_cast<double>(c.cells)), c.unary_agreement, c.refusal.empty() ? "" : ": ", c.refusal.c_str());
            }
            const std::string stem = g_dump + "/real_" + std::filesystem::path(f[0]).stem().string();
            cv::imwrite(stem + "_frame.png", half_size(image.value()));
            if (found) {
                cv::Mat img = reading->view.top.clone();
                for (const auto& t : reading->tiles) {
                    cv::putText(img, types[static_cast<std::size_t>(t.type)].id + std::to_string(t.rot), reading->view.cell_centre(t.col, t.row) - cv::Point2d(10, 0),
                                cv::FONT_HERSHEY_SIMPLEX, 0.4, cv::Scalar(0, 0, 255), 1);
                }
                cv::imwrite(stem + "_top.png", img);
            }
        }
    }
    std::printf("real summary: boards found %d/%d, decoys refused %d/%d, touching sides matching %d/%d (%.1f%%), median %.1f ms per image (wall), %.1f ms CPU\n",
                boards_found, boards_n, decoys_refused, decoys, pairs_ok, pairs, pairs ? 100.0 * pairs_ok / pairs : 0.0, median(ms), median(cpu_ms));
    if (labelled_lines.empty()) {
        std::printf("real labelled: no hand-labelled layouts in %s\n", g_labels.c_str());
        return;
    }
    std::printf("real labelled (hand-labelled layouts, %s; a tile right = type and rotation modulo symmetry):\n", g_labels.c_str());
    for (const auto& l : labelled_lines) std::printf("  %s\n", l.c_str());
    print_labelled_summary("real labelled", labelled_total);
    if (reread_lines.empty()) return;
    std::printf("real labelled after the pieces' reread (as score-photo reads them: followers found, tiles under them read again%s):\n",
                g_cover_pieces ? "" : "; cover_pieces off: only the pennant twins decided again");
    for (const auto& l : reread_lines) std::printf("  %s\n", l.c_str());
    print_labelled_summary("real labelled after reread", reread_total);
}

// The 24 real tile scans (`dir`/tiles_AX) and the labelled tile sheets (`dir`/tile_sheets, held
// out), each tile turned four ways, through the classifier `meeplecam classify-tile --game
// carcassonne` uses (the base game's catalog, the default model).
void real_tile_scans(const std::string& dir) {
    std::printf("\n");
    auto base = Catalog::embedded("carcassonne-base");
    if (!base) {
        std::printf("real tile scans: %s\n", base.error().to_string().c_str());
        return;
    }
    auto classifier = vision::TileClassifier::create(base.value());
    if (!classifier) {
        std::printf("real tile scans: %s\n", classifier.error().to_string().c_str());
        return;
    }
    if (auto tally = bench::run_real_scans(classifier.value(), base.value(), dir + "/tiles_AX")) bench::print_real_scan_summary(*tally);
    std::printf("\n");
    if (auto sheets = bench::run_real_sheets(classifier.value(), base.value(), dir + "/tile_sheets", g_labels + "/" + bench::kTileSheetLabels)) {
        bench::print_real_sheet_summary(*sheets);
    }
}

}  // namespace

int main(int argc, char** argv) {
    bool keep_buffers = true;  // --no-keep-buffers: glibc's default (large buffers mapped afresh every frame)
    int n = 10;
    std::uint64_t seed = 1000;
    std::string presets = "easy,medium,hard", real = "../shared/realdata/dev";
    bool do_real = true;
    bool do_scans = true;  // --no-scans: leave out the real tile scans (tiles_AX) and tile sheets after the real boards
    bool do_tiles = true, do_pieces = true;
    int pieces_n = -1;
    bench::PiecesBenchOptions pieces_bench;  // --true-board-only, --width-pose
    std::string overlays = "build/vision_overlays";
    std::vector<std::string> expansions;  // --expansions bridges,castles,ferries: pieces games with them
    std::vector<double> casts;            // --cast K (repeatable): colour accuracy under light of K kelvin, with and without calibration
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--n") n = std::max(1, std::atoi(next().c_str()));
        else if (a == "--seed") seed = std::strtoull(next().c_str(), nullptr, 10);
        else if (a == "--presets") presets = next();
        else if (a == "--real") real = next();
        else if (a == "--no-real") do_real = false;
        else if (a == "--no-scans") do_scans = false;
        else if (a == "--dump") g_dump = next();
        else if (a == "--repeat") g_repeat = std::max(1, std::atoi(next().c_str()));
        else if (a == "--print-tiles") {
            g_print_tiles = std::fopen(next().c_str(), "w");
            if (g_print_tiles == nullptr) {
                std::fprintf(stderr, "--print-tiles: cannot write the file\n");
                return 2;
            }
        }
        else if (a == "--game") g_game = next();
        else if (a == "--no-tiles") do_tiles = false;
        else if (a == "--no-pieces") do_pieces = false;
        else if (a == "--true-board-only") pieces_bench.true_board_only = true;
        else if (a == "--width-pose") pieces_bench.width_pose = true;
        else if (a == "--veil") pieces_bench.veil = true;
        else if (a == "--no-veil") pieces_bench.veil = false;
        else if (a == "--no-adapt") pieces_bench.adapt = false;
        else if (a == "--no-split") pieces_bench.split = false;
        else if (a == "--cover") pieces_bench.cover = true;
        else if (a == "--no-cover") pieces_bench.cover = false;
        else if (a == "--no-real-reread") g_real_reread = false;
        else if (a == "--no-pennant-cover") pieces_bench.pennant_cover = false;
        else if (a == "--min-seen-under-piece") pieces_bench.min_seen_under_piece = std::atof(next().c_str());
        else if (a == "--no-runner-up") pieces_bench.runner_up = false;
        else if (a == "--refit") pieces_bench.refit = true;
        else if (a == "--no-shade") pieces_bench.shade = false;
        else if (a == "--no-grey-grow") pieces_bench.grey_grow = false;
        else if (a == "--no-ferry-cover") pieces_bench.ferry_cover = false;
        else if (a == "--road-white") pieces_bench.road_white = true;
        else if (a == "--cast-inset") pieces_bench.cast_inset_mm = std::atof(next().c_str());
        else if (a == "--min-veil") pieces_bench.min_veil = std::atof(next().c_str());
        else if (a == "--pieces-n") pieces_n = std::max(1, std::atoi(next().c_str()));
        else if (a == "--overlays") overlays = next();
        else if (a == "--expansions") expansions = split_names(next());
        else if (a == "--cast") casts.push_back(std::atof(next().c_str()));
        else if (a == "--no-keep-buffers") keep_buffers = false;
        else if (a == "--no-coarsen") g_coarsen = false;
        else if (a == "--rescaled-refit-cap") pieces_bench.rescaled_refit_cap = g_rescaled_refit_cap = std::atof(next().c_str());
        else if (a == "--refit-cap") pieces_bench.refit_cap = g_refit_cap = std::atof(next().c_str());
        else if (a == "--across-gap") g_across_gap = std::atof(next().c_str());
        else if (a == "--rim-ring") g_rim_ring = std::atoi(next().c_str());
        else if (a == "--board-seed") g_board_seed = std::atof(next().c_str());
        else if (a == "--offset-search") g_offset_search = std::atof(next().c_str());
        else if (a == "--walled-share") pieces_bench.walled_share = g_walled_share = std::atof(next().c_str());
        else if (a == "--grow-share") g_grow_share = std::atof(next().c_str());
        else if (a == "--board-colour-ratio") g_board_colour_ratio = std::atof(next().c_str());
        else if (a == "--board-colour-share") g_board_colour_share = std::atof(next().c_str());
        else if (a == "--offset-neighbours") g_offset_neighbours = std::atoi(next().c_str());
        else if (a == "--offset-overlap") g_offset_overlap = std::atof(next().c_str());
        else if (a == "--offset-seams") g_offset_seams = std::atoi(next().c_str());
        else if (a == "--offset-chain") g_offset_chain = std::atoi(next().c_str());
        else if (a == "--widen-grown") g_widen_grown = std::atoi(next().c_str());
        else if (a == "--grass-nearest") g_grass_nearest = std::atoi(next().c_str());
        else if (a == "--reframe") g_reframe = true;
        else if (a == "--no-reframe") g_reframe = false;
        else if (a == "--reframe-moving") g_reframe_moving = std::atoi(next().c_str());
        else if (a == "--reframe-small") g_reframe_small = std::atoi(next().c_str());
        else if (a == "--keep-unmeasured") g_keep_unmeasured = std::atoi(next().c_str());
        else if (a == "--full-edge-sums") g_read_lines_only = false;
        else if (a == "--max-pennant-area") g_max_pennant_area = std::atof(next().c_str());
        else if (a == "--cover-by-size") g_cover_needs_colour = pieces_bench.cover_needs_colour = false;
        else if (a == "--cover-by-colour") g_cover_needs_colour = pieces_bench.cover_needs_colour = true;
        else if (a == "--follower-hides-spot") g_follower_hides_spot = pieces_bench.follower_hides_spot = true;
        else if (a == "--spot-turned") g_spot_at_rest = pieces_bench.spot_at_rest = false;
        else if (a == "--rank-by-confidence") g_rank_by_silhouette = pieces_bench.rank_by_silhouette = false;
        else if (a == "--min-peeking") g_min_peeking_share = pieces_bench.min_peeking_share = std::atof(next().c_str());
        else if (a == "--max-frame-side") g_max_frame_side = std::atoi(next().c_str());
        else if (a == "--labels") g_labels = next();
        else if (a == "--glare-veil") g_lift_glare = vision::GlareLift::always;
        else if (a == "--no-glare-veil") g_lift_glare = vision::GlareLift::off;
        else if (a == "--glare-stronger") g_lift_glare = vision::GlareLift::when_stronger;
        else {
            std::fprintf(stderr, "usage: vision [--n N] [--seed S] [--presets easy,medium,hard] [--game carcassonne|city|amazonas] [--real DIR] [--no-real] [--no-scans]\n"
                                 "              [--no-tiles] [--no-pieces] [--pieces-n N] [--true-board-only] [--width-pose] [--veil | --no-veil] [--min-veil S] [--no-adapt] [--no-split] [--cover | --no-cover] [--no-pennant-cover] [--min-seen-under-piece S] [--no-runner-up] [--refit] [--no-shade] [--no-grey-grow] [--no-ferry-cover] [--road-white] [--cast-inset MM] [--overlays DIR]\n"
                                 "              [--expansions bridges,castles,ferries]\n"
                                 "              [--cast KELVIN]... [--no-keep-buffers] [--max-frame-side PX] [--no-coarsen] [--across-gap A] [--rim-ring 0|1] [--board-seed S] [--offset-search S] [--walled-share S] [--grow-share S] [--offset-neighbours N] [--offset-overlap F] [--offset-seams N] [--offset-chain 0|1] [--widen-grown 0|1] [--grass-nearest 0|1] [--reframe | --no-reframe] [--reframe-moving N] [--reframe-small 0|1] [--keep-unmeasured 0|1] [--full-edge-sums] [--refit-cap Q] [--rescaled-refit-cap Q] [--max-pennant-area A] [--cover-by-size | --cover-by-colour] [--follower-hides-spot] [--spot-turned] [--rank-by-confidence] [--min-peeking S] [--glare-veil | --glare-stronger | --no-glare-veil] [--labels DIR] [--no-real-reread] [--dump DIR] [--print-tiles FILE] [--repeat R]\n");
            return 2;
        }
    }
    if (keep_buffers) vision::keep_frame_buffers();  // as the meeplecam program does
    if (g_game != "carcassonne" && g_game != "city" && g_game != "amazonas") {
        std::fprintf(stderr, "vision: --game must be carcassonne, city or amazonas\n");
        return 2;
    }
    Record setup;
    setup.game = g_game;
    setup.expansions = expansions;
    auto loaded = catalog_for(setup);
    if (!loaded) {
        std::fprintf(stderr, "%s\n", loaded.error().to_string().c_str());
        return 1;
    }
    const std::shared_ptr<const Catalog> catalog = loaded.value();
    std::printf("SYNTHETIC: %d boards per preset, %d-%d tiles, 1920x1080, seeds %llu.., game %s\n", n, kMinTiles, kMaxTiles,
                static_cast<unsigned long long>(seed), g_game.c_str());
    std::printf("%-7s %6s %6s %10s %9s %7s %8s %8s %9s %9s %9s %8s\n", "preset", "boards", "tiles", "tile_err", "type_err", "missed", "invented",
                "nofound", "perfect", "<=1err", "rect_mm", "med_ms");
    std::stringstream list(do_tiles ? presets : std::string());
    std::string name;
    std::vector<std::pair<std::string, PresetStats>> all_stats;
    while (std::getline(list, name, ',')) {
        auto d = vision::parse_difficulty(name);
        if (!d) {
            std::fprintf(stderr, "%s\n", d.error().to_string().c_str());
            return 2;
        }
        PresetStats st;
        synthetic(catalog, d.value(), n, seed, st);
        print_synthetic(name.c_str(), st);
        all_stats.emplace_back(name, st);
    }
    for (const auto& [preset_name, st] : all_stats) print_split(preset_name.c_str(), st);
    std::printf("tile_err: wrong type or rotation (modulo the tile's symmetry) or missed, per true tile; rect_mm: median over boards of the\n"
                "RMS distance (mm) between true tile centres and their top-view positions after a rigid alignment (includes the off-grid jitter).\n");
    if (do_real && do_tiles && g_game == "carcassonne") {
        g_cover_pieces = pieces_bench.cover;
        if (std::filesystem::exists(real)) real_photos(catalog, real);
        else std::printf("\nreal photos: %s not found, skipped\n", real.c_str());
        if (do_scans) real_tile_scans(real);
    }
    // Pieces: followers and the exact final score on finished games, then the real overlays.
    if (do_pieces && g_game == "carcassonne") {
        std::printf("\n");
        std::stringstream piece_list(presets);
        while (std::getline(piece_list, name, ',')) {
            auto d = vision::parse_difficulty(name);
            if (!d) return 2;
            bench::pieces_synthetic(catalog, d.value(), pieces_n > 0 ? pieces_n : n, seed, g_dump, expansions, pieces_bench);
            for (const double k : casts) bench::pieces_colour_cast(catalog, d.value(), pieces_n > 0 ? pieces_n : n, seed, k);
        }
        if (do_real) bench::pieces_real(catalog, real, overlays, pieces_bench);
    }
    return 0;
}
