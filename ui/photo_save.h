// Photo save: photo mode's reading and the players' corrections, kept next to the photo so
// that reopening the photo offers them. One versioned JSON document ("meeplecam-photo",
// docs/ui.md "Photo mode saves"), written atomically:
//
//   {"format": "meeplecam-photo", "version": 1,
//    "photo": "table.png", "photo_bytes": n, "photo_fnv1a64": "hex",   (relative to the save's folder, or absolute)
//    "setup": {a meeplecam-record with no events: game, expansions, edition, players},
//    "lattice": {"image_to_top": [[..],[..],[..]], "pitch_px": p, "px_per_mm": s, "cols": c, "rows": r},
//    "read": {"tiles": [{"cell": [col, row], "tile": "V", "rot": 1, "offset_px": [x, y], "confidence": c,
//                        "runner": {"tile": "U", "rot": 0, "confidence": c} | null, "hidden": false}],
//             "followers": [{"colour": "red", "cell": [col, row], "loc": "N", "lying": false,
//                            "image_px": [x, y], "top_px": [x, y], "confidence": c}],
//             "tokens": [{"kind": "bridge", "colour": "", "cell": [col, row], "cell2": [col, row],
//                         "ports": ["N", "S"], "image_px": [x, y]}]},
//    "corrections": [{"op": "add tile", "cell": [col, row], "tile": "V", "rot": 1, "by": "players",
//                     "text": "tile added at [3, 0]: V 90° (players)"}, ...]}
//
// "read" is the reading as the reader made it (before any correction); the corrections are
// replayed on it in order when the save is opened, each checked as when it was made. Cells
// and rotations are the reading's lattice frame (rot in quarter turns).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/error.h"
#include "ui/photo_session.h"

namespace meeplecam::ui {

// The save photo mode offers for a photo: "table.png" -> "table.png.photo.json".
std::string default_photo_save_path(const std::string& photo_path);

// The save's document for `session` read from `photo_path`, written to `save_path` (the photo
// is named relative to the save's folder when it lies in it or below). Errors: the photo cannot be read.
Result<nlohmann::json> photo_save_json(const PhotoSession& session, const std::string& photo_path, const std::string& save_path);
// Writes the save atomically.
Status save_photo_session(const PhotoSession& session, const std::string& photo_path, const std::string& save_path);

struct OpenedPhotoSave {
    std::string photo_path;  // the photo the save names (resolved)
    PhotoSession session;    // the reading with the corrections replayed
};

// Opens a save: parses it (a syntax error names the byte; a bad field its JSON path, e.g.
// "s.json: read.tiles[3].tile: unknown tile id 'ZZ'"), loads the photo it names (it must be
// the same photo: size and FNV-1a hash), rebuilds the reading and replays the corrections
// (one that no longer applies names "corrections[i]"). Errors (Invalid) name `save_path`.
Result<OpenedPhotoSave> open_photo_save(const std::string& save_path);

// The corrected final board as a meeplecam-record: the start tile, then one turn per tile
// (players in seat order, each follower placed in its owner's turn on the tile it stands on,
// found greedily: a tile with the turn player's follower first while its feature is still
// free, else a tile with none), finished; checked by replaying it: its final scoring must
// equal the photo's. A photo has no history, so the order is one that could have happened,
// not the one that did; points scored during that invented game are not the table's.
// Errors (Invalid) say why no such record exists: no start tile, bridges/ferries/castles
// (not exported), two followers on one tile, more copies of a tile or more followers than
// the supply has, no turn order found (every tile left carries another player's follower,
// or a follower's feature is already taken whenever its tile can be placed).
Result<Record> photo_record(const PhotoSession& session);

}  // namespace meeplecam::ui
