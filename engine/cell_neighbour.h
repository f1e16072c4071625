// The cell next to another across one of its sides (shared by the board and the rule modules).
#pragma once

#include "engine/board.h"
#include "engine/ports.h"

namespace meeplecam {

// Returns the cell next to `c` across side `side` (0 N, 1 E, 2 S, 3 W).
inline Cell neighbour(Cell c, int side) { return Cell{c.x + kSideDx[side], c.y + kSideDy[side]}; }

}  // namespace meeplecam
