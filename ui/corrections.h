// Corrections: the menus of what a clicked tile or follower may have been instead — every
// choice the rules allow, ranked by how well it fitted what the camera (or the photo reader)
// saw — shared by the live window and photo mode.
#pragma once

#include <QString>

#include <map>
#include <string>
#include <vector>

#include "engine/game.h"
#include "engine/record.h"

namespace meeplecam::ui {

// How likely one (type, rotation) is at a cell, as the tracker or the photo reader judged it.
struct TileOdds {
    std::string tile;
    int rot = 0;        // quarter turns
    double share = 0;   // 0..1
};
// Per cell: the judged placements, likeliest first.
using CellOdds = std::map<Cell, std::vector<TileOdds>>;

// One way to correct a tile: another type or rotation, ranked.
struct TileChoice {
    std::string tile;
    int rot = 0;            // quarter turns
    double likelihood = -1; // 0..1 as judged by the reader; -1: not judged
    int copies_left = 0;    // copies of the type still in the supply (counting the one corrected away)
    QString label;          // "Q 90° 71 %" or "V 90° (3 left)"
};

// How likely each owner and each port is for a follower, as the tracker judged it (shares
// 0..1; a port or colour missing was not judged).
struct PieceOdds {
    std::map<std::string, double> port;    // port name -> share (the ports of one feature share its value)
    std::map<std::string, double> colour;  // player colour -> share; empty: the colour was not judged
};
// Per cell the tracker read a follower in.
using CellPieceOdds = std::map<Cell, PieceOdds>;

// One way to correct a follower: another owner or feature, or removing it.
struct PieceChoice {
    std::string colour;     // empty: remove the follower
    std::string loc;        // port name
    QString label;          // "feature: NL 83 %", "owner: blue (Ben) 4 %", "remove the follower"
    double likelihood = -1; // 0..1: the share of its owner times that of its port; -1: not judged
};

// Orders tile choices: the judged ones by likelihood (highest first), then the rest — other
// rotations of `current_type` (the type read) first, then by copies left; fills in
// likelihoods from `odds` (may be null) and the labels.
void rank_tile_choices(std::vector<TileChoice>& choices, const std::vector<TileOdds>* odds, const std::string& current_type);

// Every (type, rotation) the tile at `at` may be instead that keeps the whole record legal
// (each is tried as a correction event and replayed), ranked by rank_tile_choices.
std::vector<TileChoice> record_tile_choices(const Record& record, const Game& open, Cell at, const std::vector<TileOdds>* odds);
// Every other owner and feature the follower at `at` may have (the record stays legal), then
// removing it. With `odds` (may be null) the judged choices come first, by the likelihood of
// the (owner, port) each one leaves (the owner's share times the port's; an owner not judged
// counts as likely as any), highest first; otherwise other owners, then other features.
std::vector<PieceChoice> record_piece_choices(const Record& record, Cell at, const PieceOdds* odds = nullptr);

// Shares from distances (a softmax of -distance / scale), in the order given: smaller distance, larger share.
std::vector<double> shares_from_distances(const std::vector<double>& distance, double scale);

}  // namespace meeplecam::ui
