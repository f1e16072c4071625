# Shared by the three command-line tests (cli_commands, cli_vision, cli_score_photo): the small
# records they read, written into WORK_DIR. Include after expect_run.cmake (which empties WORK_DIR).

# The start tile alone (two players): the position `legal` is asked about, and the one-tile photo.
file(WRITE ${WORK_DIR}/start.json [=[{"format": "meeplecam-record", "version": 1, "game": "carcassonne",
 "players": [{"name": "Ana", "color": "red"}, {"name": "Ben", "color": "blue"}],
 "events": [{"type": "tile", "tile": "D", "at": [0, 0], "rot": 0}], "finished": false}]=])
# A record cut off inside its first event.
file(WRITE ${WORK_DIR}/truncated.json [=[{"format": "meeplecam-record", "version": 1, "players": [{"color": "red"}], "events": [{"type": "ti]=])
# U east of the start tile at rot 0 puts its field against the start tile's road: illegal (exit 3).
file(WRITE ${WORK_DIR}/illegal.json [=[{"format": "meeplecam-record", "version": 1, "game": "carcassonne",
 "players": [{"name": "Ana", "color": "red"}, {"name": "Ben", "color": "blue"}],
 "events": [{"type": "tile", "tile": "D", "at": [0, 0], "rot": 0},
            {"type": "tile", "player": "red", "tile": "U", "at": [1, 0], "rot": 0}], "finished": false}]=])
