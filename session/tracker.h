// Session tracker: watches a live table frame by frame and turns each settled change into
// record events — the new tile (type, rotation, cell), the follower placed on it — checked
// by the rules engine before it is committed.
//
// Frames: the tracker works in TABLE coordinates (millimetres, x east, y south) whose origin
// is the centre of the start tile's cell; cell (x, y) is centred at (x, y) * pitch. The
// caller gives the image -> table homography: in the app it comes from the calibration file
// (ArUco markers, calibration/), in tests from the renderer's truth
// (RenderTruth::table_to_image, shifted so the start tile sits at the origin).
//
// Threading: a Tracker is not thread-safe; one worker thread owns it and feeds it frames.
// See docs/session.md for how it decides and what it cannot see yet.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "engine/error.h"
#include "engine/game.h"
#include "engine/record.h"
#include "session/follower_on_tile.h"
#include "vision/piece_detector.h"

namespace meeplecam::session {

struct TrackerOptions {
    // Geometry of the table.
    double tile_mm = 45.0;              // side of a tile
    double gap_mm = 1.0;                // nominal gap between neighbouring tiles (pitch = tile + gap)
    double view_px_per_mm = 2.0;        // resolution of the warped table view the cells are read from

    // Stable frames.
    int motion_width_px = 320;          // frames are shrunk to this width to look for motion
    double motion_threshold = 8.0;      // a pixel moved when its grey level changed this much (8-bit) since the last frame...
    double motion_share = 0.002;        // ...and a frame is moving when more than this share of its pixels moved
    int stable_frames = 3;              // consecutive still frames before the table is read

    // Changes against the last confirmed state (in the table view).
    double change_threshold = 20.0;     // a view pixel changed when its Lab distance to the confirmed view exceeds this
    double tile_change_share = 0.12;    // an empty cell holds a new tile when this share of it changed (an all-city tile on a wooden table changes ~18%)
    double piece_change_share = 0.03;   // a placed tile's look changed (a follower came or went) above this share
    double occlusion_share = 0.02;      // the frame is occluded (a hand) when this share of the view outside
                                        // the board and its open cells changed...
    int occlusion_cells = 3;            // ...or when more than this many cells changed at once

    // Deciding the tile.
    double commit_margin = 1.0;         // classifier cost between the best and the second legal placement
                                        // needed to commit without asking (cost units, see vision/tile_classifier.h)
    double illegal_margin = 2.0;        // an illegal (type, rotation) must beat the best legal one by this
                                        // to report the move as illegal rather than ask
    int max_candidates = 5;             // candidates listed in an ambiguity
    // When a move or an event the players enter does not fit the record, one or two of the last
    // reread_depth tiles are re-read as other likely readings under which it fits (a headless
    // pick or a twin read wrong); an earlier tile only as readings at least reread_min_confidence
    // as likely as the recorded one (the last tile: its four likeliest others).
    int reread_depth = 3;
    double reread_min_confidence = 0.05;
    // Tiles lie a few millimetres off their cell: the likeliest `shift_candidates` legal
    // placements are re-scored on the tile square shifted by up to shift_reach_mm each way, in
    // steps of shift_step_mm, each keeping its best fit (0 candidates: no shifting).
    int shift_candidates = 8;
    double shift_reach_mm = 2.0;
    double shift_step_mm = 1.0;
    double pennant_cost = 3.0;          // cost added to the pennant twin (M/N, O/P, ...) the pennant reader
                                        // (vision::decide_pennants, plain city learnt from the placed tiles) speaks against
    double supply_prior_weight = 0.3;   // weight of the prior "a type with more copies left is likelier" (0: none)
    double pennant_min_area = 0.003;    // share of the tile a blob unlike plain city must cover to be a pennant...
    double pennant_none_area = 0.001;   // ...and below which there is none (between: the classifier alone decides)
    // Before that blob reader, once placed tiles with pennants showed the pennant colour (their
    // pixels at the art's pennant spot farther than pennant_spot_unlike in Lab from their own
    // plain city): a disc at the candidate's spot with at least pennant_spot_present of its
    // pixels nearer than pennant_spot_near to that colour is a pennant, at most
    // pennant_spot_absent none (between: the blob reader decides).
    double pennant_spot_present = 0.5;
    double pennant_spot_absent = 0.2;
    double pennant_spot_unlike = 20.0;
    double pennant_spot_near = 20.0;
    double pennant_spot_slack = 0.06;   // how far off its spot (share of the tile) the disc is looked for
    double pennant_hidden_share = 0.3;  // a pennant spot this much under a follower painted over gives no evidence (spot nor blob)

    // Followers.
    // A follower put down in the same move as its tile: found on the new tile by its player's
    // colour (piece_colours) and painted over before the tile is read, then placed on the
    // feature under it once the tile is committed (session/follower_on_tile.h). A player colour
    // without a model falls back to pixels unlike their terrain's colour (art fools that).
    bool read_follower_with_tile = true;
    vision::ColourModels piece_colours = vision::ColourModels::daylight();  // the app passes the table's calibrated colours
    FollowerOnTileOptions follower_on_tile;
    double piece_min_area = 0.02;       // a follower blob covers at least this share of the tile
    double piece_colour_threshold = 30.0;  // Lab distance above the tile's own terrain colour for a follower pixel

    // A camera that moved (bumped, a phone in a holder nudged): before reading a settled frame,
    // the confirmed tiles are looked for where they are now (phase correlation, then ECC with
    // a turn) and the image -> table mapping is corrected when they moved at least
    // camera_shift_min_mm and at most camera_shift_max_mm, and the fit's correlation reaches
    // camera_min_correlation. Off: the camera is taken as fixed.
    bool follow_camera = true;
    double camera_shift_min_mm = 1.0;
    double camera_shift_max_mm = 60.0;
    double camera_min_correlation = 0.75;
    // A plane measured from the start tile alone (calibration/start_tile_plane.h) drifts away
    // from it. With refit_plane, after each committed tile the outlines of all placed tiles are
    // found in the frame (around where the plane puts them) and the image -> table mapping is
    // refitted to their corners at their cells' places, once refit_min_tiles tiles are down and
    // the fit's rms is within refit_max_rms_mm. Off by default: a marker plane needs no refit.
    bool refit_plane = false;
    int refit_min_tiles = 3;
    double refit_max_rms_mm = 1.5;

    // Checks every field; the error names it and the allowed range.
    Status check() const;
};

enum class FrameState { Moving, Occluded, Stable };

// One way the new tile may lie, ranked by the classifier.
struct CandidateMove {
    std::string tile;        // tile type id
    Cell at;
    int rot = 0;             // quarter turns clockwise
    double cost = 0;         // classifier cost, lower is better
    double confidence = 0;   // share among the listed candidates, 0..1
    nlohmann::json extra;    // a rule module's fields of the placement (a bridge that makes it legal), or null
};

// A move seen on the table that the rules refuse; never recorded.
struct IllegalMove {
    CandidateMove move;      // what the tracker believes was placed
    std::string rule;        // why the engine refuses it (the engine's message)
};

// A follower on the board, as the tracker tracks it.
struct TrackedFollower {
    std::string colour;      // player colour
    Cell at;
    std::string loc;         // port name ("N", "NL", ..., "C")
    bool on_table = true;    // whether the tracker still sees it on the table
};

// What the tracker saw of a follower it read from the camera: how far (mm) the blob lay from
// each feature of its tile the follower could have stood on (it takes the nearest), and the
// colour of the blob (CIE Lab, OpenCV's float convention).
struct FollowerReading {
    struct Feature {
        std::vector<std::string> ports;  // the feature's port names
        double mm = 0;                   // distance to the blob
    };
    std::vector<Feature> features;  // nearest first
    cv::Vec3f lab{0, 0, 0};
    bool has_colour = false;        // lab was measured (enough blob pixels)
    cv::Point2d centre_mm{0, 0};    // the blob's centre from the tile's centre (mm, table axes)
    bool has_centre = false;
};

struct TrackerUpdate {
    FrameState state = FrameState::Moving;
    bool analysed = false;                        // a settled frame was read this call
    std::vector<Event> committed;                 // events recorded during this frame (in order)
    std::optional<IllegalMove> illegal;           // the move on the table breaks a rule (not recorded)
    std::vector<CandidateMove> ambiguity;         // non-empty: the players must choose() one
    std::vector<TrackedFollower> must_return;     // followers a scoring returned that are still to come off
    std::vector<TrackedFollower> removed_by_mistake;  // followers gone from the table without a scoring
    std::vector<std::string> notes;               // what the tracker saw but did not record, for the log
    double ms_motion = 0;                         // time spent on motion detection
    double ms_analysis = 0;                       // time spent reading the table (0 unless analysed)
    double ms_total = 0;
};

class Tracker {
public:
    // Sets up a tracker for a match: `setup` holds the game, expansions, edition, players,
    // options and at least the start tile event (further events are replayed, so a match may
    // resume). Errors (Invalid): a record that does not replay, options failing check(), a
    // singular homography.
    static Result<Tracker> create(Record setup, const TrackerOptions& options, const cv::Matx33d& image_to_table_mm);

    Tracker(Tracker&&) noexcept;
    Tracker& operator=(Tracker&&) noexcept;
    Tracker(const Tracker&) = delete;
    ~Tracker();

    // Reads one camera frame (8-bit BGR). Moving and occluded frames only update the motion
    // state; the first settled frame after a change is compared with the last confirmed state.
    TrackerUpdate on_frame(const cv::Mat& bgr);

    // Answers an open ambiguity with its candidate `candidate` (index into the last
    // update's `ambiguity`); commits that tile, and the follower read on it. Returns what was
    // committed with the notes of that reading; invalid when no ambiguity is open or the index
    // is out of range.
    Result<TrackerUpdate> choose(int candidate);
    // Records an event the camera cannot see (an auction, a castle, a ferry, a bridge...),
    // entered by the players; Illegal when the engine refuses it.
    Status record_event(const Event& event);
    // Takes back the last turn (its tile and whatever followed it); the tracker then expects
    // the tile to leave the table.
    Status undo_last_move();
    // Replaces the tile at `at` by `tile` turned `rot` quarter turns: its event is rewritten and
    // a correction event appended (engine/correction.h), and the record is replayed (followers
    // on the tile keep their port when the new tile allows it).
    Status correct_tile(Cell at, const std::string& tile, int rot);
    // Moves or re-colours the follower standing at `at` to port `loc` of player `colour`;
    // an empty colour removes it. Appends a correction event, as correct_tile.
    Status correct_piece(Cell at, const std::string& colour, const std::string& loc);
    // Ends the match: final scoring (the record is marked finished).
    Status finish();

    const Game& game() const;
    const Record& record() const;
    const TrackerOptions& options() const;
    // The image -> table (mm, start cell at the origin) mapping as it stands now: the one given
    // to create(), corrected when the camera moved (follow_camera) or refitted (refit_plane).
    const cv::Matx33d& image_to_table() const;
    // Corrections and undos made so far, as sentences
    // ("correction of event 12 (tile at [1, 0]): B 90° -> D 0° by the players").
    const std::vector<std::string>& corrections() const;
    // Per cell the tracker read a tile in: every (type, rotation) that was legal there, with its
    // classifier cost and likelihood (confidence: a softmax over all of them), likeliest first.
    // The correction menu ranks its choices by it. The latest reading of a cell wins.
    const std::map<Cell, std::vector<CandidateMove>>& likelihoods() const;
    // Per cell the tracker read a follower in: what it saw of it (for ranking corrections;
    // the tracker itself takes the nearest feature and the turn's player). The latest wins.
    const std::map<Cell, FollowerReading>& follower_readings() const;

private:
    struct State;
    explicit Tracker(std::unique_ptr<State> state);
    std::unique_ptr<State> s_;
};

}  // namespace meeplecam::session
