// PhotoSession: photo mode's state — a photo of a finished table, the board and followers read
// from it, the players' corrections, and the game built from them (scored as if it ended now).
// Copyable: the photo worker keeps one and sends the window copies (the game is shared, never
// changed: a correction builds a new one).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "engine/record.h"
#include "ui/corrections.h"
#include "vision/photo_score.h"

namespace meeplecam::ui {

class PhotoSession {
public:
    // Reads `bgr` (the board reader and the piece detector) and builds the game for `setup`
    // (game, expansions, edition, players). Errors (Invalid): no board, an impossible board,
    // a follower of a colour not among the players.
    static Result<PhotoSession> read(const cv::Mat& bgr, Record setup, const vision::ColourModels& colours = vision::ColourModels::daylight());

    // The tile at board cell `at` becomes `tile` turned `rot` quarter turns; the game is rebuilt.
    // Errors (nothing changes): no tile there, an unknown type, a board the rules refuse.
    Status correct_tile(Cell at, const std::string& tile, int rot);
    // Follower `piece` (index into pieces()) takes owner `colour` and feature port `loc`; an
    // empty colour removes it. Errors as correct_tile.
    Status correct_piece(int piece, const std::string& colour, const std::string& loc);

    // The types and rotations the tile at `at` may be instead (touching sides still match),
    // the reader's own runner-up ranked by its likelihood first.
    std::vector<TileChoice> tile_choices(Cell at) const;
    // Other owners and features of follower `piece` (one port per other feature of its tile), then removing it.
    std::vector<PieceChoice> piece_choices(int piece) const;
    // The follower of pieces() nearest `within` (0..1 inside the tile) on the tile at `at`, or -1.
    int piece_at(Cell at, double within_x, double within_y) const;
    // The reader's likelihood of the placements at `at` (its choice and its runner-up).
    std::vector<TileOdds> odds(Cell at) const;

    const cv::Mat& image() const { return image_; }
    const Record& setup() const { return setup_; }
    const vision::BoardReading& reading() const { return read_.board; }
    const std::vector<vision::DetectedPiece>& pieces() const { return read_.pieces.pieces; }
    const vision::PhotoGame& photo() const { return *photo_; }
    const Game& game() const { return photo_->game; }
    // The corrections made, one line each ("tile at [2, 1]: Q 90° -> R 90°").
    const std::vector<std::string>& corrections() const { return corrections_; }
    // The photo with the board read, the followers and what scored drawn over it.
    cv::Mat overlay() const;
    // The text `meeplecam score-photo` prints for this state.
    std::string score_text(const std::string& title) const;

private:
    PhotoSession() = default;
    // Rebuilds the game from the reading; keeps the old state when it fails.
    Status rebuild(vision::PhotoReading next);
    // The decoded tile at board cell `at`, or null.
    const vision::DecodedTile* tile_at(Cell at) const;

    cv::Mat image_;
    Record setup_;
    std::shared_ptr<const Catalog> catalog_;
    vision::PhotoReading read_;
    std::shared_ptr<const vision::PhotoGame> photo_;
    std::vector<std::string> corrections_;
};

}  // namespace meeplecam::ui
