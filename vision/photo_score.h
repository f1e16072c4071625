// Photo score: the game a photo of a finished table shows, built so the rules engine can
// check and score it (meeplecam score-photo, bench/vision).
//
// The board as read (tiles, rotations) is placed on the engine's board tile by tile in
// breadth-first order from a start tile (the catalog's start tile type when one was read),
// so every placement is legal when touching sides match (the board checks each); then the
// followers found are put on the features under them, and the game is finished: final
// scoring as if the game ended now. Who drew which tile is not on a photo, so tiles go on
// the board directly, not as turns; more copies of a type than the edition has is a
// warning (a misread tile), not an error. Cells are the reader's lattice cells renumbered from the board's
// top-left occupied cell (as `meeplecam recognize` prints them); the board's orientation is
// the reading's (a photo has no north), which scoring does not depend on.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "engine/catalog.h"
#include "engine/game.h"
#include "engine/record.h"
#include "vision/board_reader.h"
#include "vision/piece_detector.h"

namespace meeplecam::vision {

struct PhotoGame {
    std::shared_ptr<std::deque<TileType>> variants = std::make_shared<std::deque<TileType>>();  // tiles with a bridge (the board points at them)
    Game game;                          // finished: its Final score events are the photo's score
    Cell origin;                        // reading cell (col, row) of board cell [0, 0]
    std::vector<std::string> warnings;  // e.g. a follower on a completed feature (left out)
    std::vector<int> follower_of_piece;  // per detected piece: its follower index on the board, -1 when not placed
    std::vector<std::string> left_out;   // per detected piece: why it was not placed (e.g. "not a player's colour"); empty when placed
};

struct PhotoOptions {
    bool take_runner_up = true;  // a read tile whose sides clash with its neighbours is taken as the reader's second choice
                                 // (DecodedTile::runner_type) when that fits every read neighbour; a warning names both
    bool refit_clashing = false;  // a read tile whose sides still clash is taken as the best of its scored readings (BoardReading::hypotheses)
                                  // that fits every read neighbour (then two touching clashing tiles at once), a warning naming both,
                                  // so a misread board can be scored at all: off by default, as the tiles so taken are mostly
                                  // wrong too (synthetic: 1 of 4 right) and the score then only approximate (score-photo --fit-clashing)...
    double max_refit_loss = 1e9;  // ...when that costs at most this much of the reader's score (log-likelihood with the prior below)
    double count_prior = 1.0;    // weight of log(copies in the edition) in that score (DecoderOptions::count_prior)
    int max_loose_tiles = 2;     // up to this many tiles not joined to the rest are left out of the board with a warning (more: refused)
};

// Builds and finishes the game. `setup` gives the game, expansions, edition and players (its
// events are ignored); `catalog` must be the one the board was read with. Errors (Invalid):
// no board, touching sides that do not match (names every such pair of cells), tiles not
// joined to the rest beyond PhotoOptions::max_loose_tiles (after PhotoOptions::take_runner_up).
// Warnings (the piece left out, `left_out` says why): a tile taken as the reader's second
// choice, or as its best reading that fits (PhotoOptions::refit_clashing); tiles not joined to the rest, left out; a follower of a
// colour no player has (a false follower: art or a table of that colour; names it, its cell
// and the players), a follower on no feature or on a completed road, city or monastery (on a
// real table its owner took it back); more copies of a tile than the edition has.
// `tokens` (bridges, ferries, castle tokens) go on the board before the followers: a bridge turns
// its tile into the engine's bridge variant, a ferry links its two jetties, a castle marks its
// small city (with the Castles rules among `setup`'s expansions; else a warning). A token the
// board refuses (a bridge end not on a field, a castle on no small city) is a warning, left out.
Result<PhotoGame> build_photo_game(const Record& setup, std::shared_ptr<const Catalog> catalog, const BoardReading& reading,
                                   const std::vector<DetectedPiece>& pieces, const std::vector<DetectedPiece>& tokens = {},
                                   const PhotoOptions& options = {});

// Returns a copy of `image` showing what was read (tile outlines and types), the followers
// found, and what scored: each final score's tiles outlined in its winner's colour, with
// its points.
cv::Mat draw_photo_score(const cv::Mat& image, const BoardReading& reading, const PieceDetection& detection, const PhotoGame& photo);

// Returns each player's final-scoring points (Final score events only), by colour.
std::map<std::string, int> final_points(const Game& game);

// What a photo shows: the board as read and the followers found on it.
struct PhotoReading {
    BoardReading board;
    PieceDetection pieces;
};

// Returns the piece detector's options for a game with `expansions`: bridges and castle
// tokens are looked for only when their expansion is in play.
PieceDetectorOptions detector_options_for(const std::vector<std::string>& expansions);

// Detects the pieces on a found board (detect_pieces); when pieces lie on read tiles, reads
// those tiles again (reread_under_pieces): under a bridge as the printed tile (the reader takes
// a bridge for road art), under a follower, castle or ferry without the art it hides
// (ReaderOptions::cover_pieces; a follower on a road read as field made the board impossible),
// and detects again on the board so read when a tile changed; with cover_pieces off, decides
// the pennant twins again without the pieces' pixels (ReaderOptions::pennants_under_pieces,
// decide_pennants_under_pieces: a knight was read as a pennant). Errors: detect_pieces's.
Result<PieceDetection> detect_pieces_rereading(const cv::Mat& bgr, BoardReading& board, const Catalog& catalog, const ColourModels& colours,
                                               const PieceDetectorOptions& detector, const ReaderOptions& reader = {});

// Reads a photo of a table (8-bit BGR): the board reader, then the piece detector (as
// meeplecam score-photo does) with the pieces of `expansions` (detect_pieces_rereading).
// Errors (Invalid): bad input, no board found (the reader's reason).
Result<PhotoReading> read_photo(const cv::Mat& bgr, const Catalog& catalog, const std::string& edition,
                                const std::vector<std::string>& expansions, const ColourModels& colours = ColourModels::daylight());

// Returns the text score-photo prints: "<title>: N tiles, M followers[, K bridges...]", the
// final scoring per player, every final score event with its explanation, and the warnings.
std::string photo_score_text(const std::string& title, const PhotoGame& photo, std::size_t tiles, const PieceDetection& detection);

}  // namespace meeplecam::vision
