// PhotoSession: photo mode's state — a photo of a finished table, the board and followers read
// from it, the players' corrections (tiles and followers changed, added, removed), and the game
// built from them (scored as if it ended now). Copyable: the photo worker keeps one and sends
// the window copies (the game is shared, never changed: a correction builds a new one).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/record.h"
#include "ui/corrections.h"
#include "vision/photo_score.h"

namespace meeplecam::ui {

// One correction the players made, in the reading's lattice cells (which, unlike board cells,
// stay put when a tile is added left of or above the board): what photo mode saves and replays.
struct PhotoEdit {
    std::string op;                    // "tile", "add tile", "remove tile", "follower", "add follower"
    int col = 0, row = 0;              // the reading's lattice cell of the tile (or the follower's tile)
    std::string tile;                  // tile ops: the new type...
    int rot = 0;                       // ...and its quarter turns (reading frame)
    std::string was_colour, was_loc;   // "follower": the follower changed (owner, port)
    std::string colour, loc;           // follower ops: the new owner and port; "follower" with no colour removes it
    std::string by = "players";        // who made it
    std::string text;                  // one line: "tile at [2, 1]: Q 90° -> R 90° (players)"
};

class PhotoSession {
public:
    // Reads `bgr` (the board reader and the piece detector) and builds the game for `setup`
    // (game, expansions, edition, players). Errors (Invalid): no board, an impossible board,
    // a follower of a colour not among the players.
    static Result<PhotoSession> read(const cv::Mat& bgr, Record setup, const vision::ColourModels& colours = vision::ColourModels::daylight());
    // Builds the session from a reading already made (`as_read`: a saved one, its lattice
    // view's top image warped from `bgr`), then applies `edits` in order. Errors name `where`
    // (and "corrections[i]" for the edit that fails): an impossible board, an edit that does not apply.
    static Result<PhotoSession> from_reading(const cv::Mat& bgr, Record setup, vision::PhotoReading as_read,
                                             const std::vector<PhotoEdit>& edits = {}, const std::string& where = "photo");

    // The tile at board cell `at` becomes `tile` turned `rot` quarter turns; the game is rebuilt.
    // Errors (nothing changes): no tile there, an unknown type, a board the rules refuse.
    Status correct_tile(Cell at, const std::string& tile, int rot, const std::string& by = "players");
    // Follower `piece` (index into pieces()) takes owner `colour` and feature port `loc`; an
    // empty colour removes it. Errors as correct_tile.
    Status correct_piece(int piece, const std::string& colour, const std::string& loc, const std::string& by = "players");
    // A tile the reader missed: `tile` turned `rot` goes on the empty cell `at` next to the
    // board (board cells are renumbered when `at` lies left of or above the board). Errors
    // (nothing changes): a tile already there, no tile beside it, sides that do not match.
    Status add_tile(Cell at, const std::string& tile, int rot, const std::string& by = "players");
    // A tile the reader invented: it goes, with the followers and tokens on it. Errors: no
    // tile there, a board that falls apart without it.
    Status remove_tile(Cell at, const std::string& by = "players");
    // A follower the detector missed: `colour` on the feature of the tile at `at` that owns
    // port `loc`. Errors: no tile there, a colour no player has, no feature at that port.
    Status add_piece(Cell at, const std::string& colour, const std::string& loc, const std::string& by = "players");
    // Applies one edit (what the methods above record; a saved one on reopening).
    Status apply(const PhotoEdit& edit);

    // The types and rotations the tile at `at` may be instead (touching sides still match),
    // the reader's own runner-up ranked by its likelihood first.
    std::vector<TileChoice> tile_choices(Cell at) const;
    // Other owners and features of follower `piece` (one port per other feature of its tile), then removing it.
    std::vector<PieceChoice> piece_choices(int piece) const;
    // The follower of pieces() nearest `within` (0..1 inside the tile) on the tile at `at`, or -1.
    int piece_at(Cell at, double within_x, double within_y) const;
    // The reader's likelihood of the placements at `at` (its choice and its runner-up).
    std::vector<TileOdds> odds(Cell at) const;
    // The empty cells beside the board (where a missed tile may go), board cells.
    std::vector<Cell> free_cells() const;
    // The tiles that may go on the free cell `at` (every side touching a tile matches, the
    // type is in the edition), ranked by the classifier's likelihood for that square of the
    // photo (every placement scored; a square the classifier takes for bare table, or one
    // outside the view, is not judged: then by copies left).
    std::vector<TileChoice> add_tile_choices(Cell at) const;
    // The classifier's likelihood of every placement on the free cell `at` (empty when not judged).
    std::vector<TileOdds> free_cell_odds(Cell at) const;
    // Adding a follower to the tile at `at`: the feature under `within` (0..1 in the tile as
    // drawn), one choice per player colour. Empty when no tile or no feature is there.
    std::vector<PieceChoice> add_piece_choices(Cell at, double within_x, double within_y) const;

    const cv::Mat& image() const { return image_; }
    const Record& setup() const { return setup_; }
    const vision::BoardReading& reading() const { return read_.board; }
    const std::vector<vision::DetectedPiece>& pieces() const { return read_.pieces.pieces; }
    const vision::PhotoGame& photo() const { return *photo_; }
    const Game& game() const { return photo_->game; }
    // The corrections made, one line each ("tile at [2, 1]: Q 90° -> R 90° (players)").
    std::vector<std::string> corrections() const;
    // The corrections as edits (what a save holds), and the reading they apply to.
    const std::vector<PhotoEdit>& edits() const { return edits_; }
    const vision::PhotoReading& as_read() const { return as_read_; }
    // The photo with the board read, the followers and what scored drawn over it.
    cv::Mat overlay() const;
    // The text `meeplecam score-photo` prints for this state.
    std::string score_text(const std::string& title) const;

private:
    PhotoSession() = default;
    // Rebuilds the game from the reading; keeps the old state when it fails. With
    // `tiles_changed` the free cells' likelihoods are classified again.
    Status rebuild(vision::PhotoReading next, bool tiles_changed = false);
    // Scores every placement on each free cell with the cell classifier (the whole board's
    // colours, as the reader does).
    void classify_free_cells();
    // Orders each free cell's pennant twins (M/N, O/P, ...: the classifier cannot tell them
    // apart) by the pennant reader's evidence for that square (vision::decide_pennants).
    void order_pennant_twins();
    // Records an edit made.
    void log(PhotoEdit edit);
    // The decoded tile at board cell `at`, or null.
    const vision::DecodedTile* tile_at(Cell at) const;
    // Whether `type` turned `rot` matches every tile read beside board cell `at`.
    bool fits_beside(Cell at, const TileType& type, int rot) const;

    cv::Mat image_;
    Record setup_;
    std::shared_ptr<const Catalog> catalog_;
    vision::PhotoReading as_read_;  // the reading before any edit
    vision::PhotoReading read_;     // ... and with the edits
    std::shared_ptr<const vision::PhotoGame> photo_;
    std::vector<PhotoEdit> edits_;
    std::map<Cell, std::vector<TileOdds>> free_odds_;  // per free cell (reading frame): likeliest placement first
};

}  // namespace meeplecam::ui
