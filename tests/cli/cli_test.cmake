# End-to-end checks of the meeplecam command line: output and exit codes on good and bad input.
include(${CMAKE_CURRENT_LIST_DIR}/expect_run.cmake)

set(SAMPLE ${SOURCE_DIR}/samples/matches/sample-2p.json)
expect_run(0 "Final score" score ${SAMPLE})
expect_run(0 "\"scores\"" score ${SAMPLE} --json)
expect_run(0 "usage: meeplecam score" score --help)
expect_run(0 "usage: meeplecam legal" legal --help)
expect_run(0 "commands:" --help)

# legal on the start position: U fits east, west and south of the start tile.
file(WRITE ${WORK_DIR}/start.json [=[{"format": "meeplecam-record", "version": 1, "game": "carcassonne",
 "players": [{"name": "Ana", "color": "red"}, {"name": "Ben", "color": "blue"}],
 "events": [{"type": "tile", "tile": "D", "at": [0, 0], "rot": 0}], "finished": false}]=])
expect_run(0 "3 legal placement(s)" legal ${WORK_DIR}/start.json --tile U)
expect_run(0 "\"rot\": 90" legal ${WORK_DIR}/start.json --tile U --json)
expect_run(0 "\"loc\": \"NL\"" legal ${WORK_DIR}/start.json --tile U --at 1,0 --rot 90 --json)
expect_run(3 "cannot go at [1, 0] rot 0" legal ${WORK_DIR}/start.json --tile U --at 1,0 --rot 0)
expect_run(2 "unknown tile id 'Q7'" legal ${WORK_DIR}/start.json --tile Q7)
expect_run(2 "--tile ID is required" legal ${WORK_DIR}/start.json)

# Bad input: exit 2 for unreadable or invalid files, 3 for illegal moves, never a crash.
expect_run(2 "cannot open" score ${WORK_DIR}/missing.json)
file(WRITE ${WORK_DIR}/truncated.json [=[{"format": "meeplecam-record", "version": 1, "players": [{"color": "red"}], "events": [{"type": "ti]=])
expect_run(2 "not valid JSON (byte" score ${WORK_DIR}/truncated.json)
file(WRITE ${WORK_DIR}/illegal.json [=[{"format": "meeplecam-record", "version": 1, "game": "carcassonne",
 "players": [{"name": "Ana", "color": "red"}, {"name": "Ben", "color": "blue"}],
 "events": [{"type": "tile", "tile": "D", "at": [0, 0], "rot": 0},
            {"type": "tile", "player": "red", "tile": "U", "at": [1, 0], "rot": 0}], "finished": false}]=])
expect_run(3 "event 1 (tile): tile U cannot go at [1, 0] rot 0" score ${WORK_DIR}/illegal.json)
expect_run(2 "unknown option --bogus" score ${SAMPLE} --bogus)
expect_run(2 "unknown command" frobnicate)
expect_run(2 "cannot open catalog file" score ${SAMPLE} --catalog ${WORK_DIR}/nope.json)
expect_run(0 "Final score" score ${SAMPLE} --catalog ${SOURCE_DIR}/samples/catalogs/carcassonne-base.json)

# render: a synthetic photograph of a record's board, with its ground truth beside it.
expect_run(0 "usage: meeplecam render" render --help)
expect_run(0 "render SCENE.json" --help)
expect_run(0 "72 tiles, " render ${SAMPLE} -o ${WORK_DIR}/sample.png --seed 2 --size 640x360)
if(NOT EXISTS ${WORK_DIR}/sample.png OR NOT EXISTS ${WORK_DIR}/sample.truth.json)
  message(SEND_ERROR "render did not write sample.png and sample.truth.json")
endif()
file(READ ${WORK_DIR}/sample.truth.json truth)
string(JSON cell_count LENGTH "${truth}" cells)
string(JSON piece_count LENGTH "${truth}" pieces)
if(piece_count LESS 1)
  message(SEND_ERROR "sample.truth.json lists no pieces; the sample match has followers on the board")
endif()
if(NOT cell_count EQUAL 72)
  message(SEND_ERROR "sample.truth.json lists ${cell_count} cells, expected 72")
endif()
expect_run(0 "preset hard" render --random-board 6 -o ${WORK_DIR}/random.jpg --preset hard --size 640x480 --style muted --surface cloth)
expect_run(0 ": 1 tile," render ${WORK_DIR}/start.json -o ${WORK_DIR}/start.png --preset easy --size 320x240)
expect_run(2 "-o OUT.png is required" render ${SAMPLE})
expect_run(2 "exactly one SCENE.json, or --random-board" render -o ${WORK_DIR}/x.png)
expect_run(2 "exactly one SCENE.json, or --random-board" render ${SAMPLE} --random-board 4 -o ${WORK_DIR}/x.png)
expect_run(2 "must be easy, medium or hard" render ${SAMPLE} -o ${WORK_DIR}/x.png --preset nightmare)
expect_run(2 "unknown tile style 'cubist'" render ${SAMPLE} -o ${WORK_DIR}/x.png --style cubist)
expect_run(2 "must be wood, cloth, plain or busy" render ${SAMPLE} -o ${WORK_DIR}/x.png --surface marble)
expect_run(2 "expected WIDTHxHEIGHT" render ${SAMPLE} -o ${WORK_DIR}/x.png --size big)
expect_run(2 "width and height" render ${SAMPLE} -o ${WORK_DIR}/x.png --size 20x20)
expect_run(2 "must end in .png, .jpg or .jpeg" render ${SAMPLE} -o ${WORK_DIR}/x.bmp --size 320x240)
expect_run(2 "must be 1..10000" render --random-board 0 -o ${WORK_DIR}/x.png)
expect_run(2 "expected an integer" render --random-board many -o ${WORK_DIR}/x.png)
expect_run(2 "cannot open" render ${WORK_DIR}/missing.json -o ${WORK_DIR}/x.png)
expect_run(3 "event 1 (tile)" render ${WORK_DIR}/illegal.json -o ${WORK_DIR}/x.png)
file(WRITE ${WORK_DIR}/no_tiles.json [=[{"format": "meeplecam-record", "version": 1, "game": "carcassonne",
 "players": [{"name": "Ana", "color": "red"}], "events": [], "finished": false}]=])
expect_run(2 "no tiles to render" render ${WORK_DIR}/no_tiles.json -o ${WORK_DIR}/x.png)

# Expansions: bridge-enabled placements, and a placement's expansion actions.
file(WRITE ${WORK_DIR}/bridges.json [=[{"format": "meeplecam-record", "version": 1, "game": "carcassonne",
 "expansions": ["bridges", "ferries"],
 "players": [{"name": "Ana", "color": "red"}, {"name": "Ben", "color": "blue"}],
 "events": [{"type": "tile", "tile": "D", "at": [0, 0], "rot": 0},
            {"type": "tile", "player": "red", "tile": "U", "at": [1, 0], "rot": 90},
            {"type": "tile", "player": "blue", "tile": "U", "at": [-1, 0], "rot": 90}], "finished": false}]=])
expect_run(0 "with {\"bridge\":{\"at\":[1,0],\"axis\":\"NS\"}}" legal ${WORK_DIR}/bridges.json --tile V)
expect_run(0 "\"type\": \"ferry\"" legal ${WORK_DIR}/bridges.json --tile FE2 --at 2,0 --rot 0 --json)
expect_run(0 "with {\"bridge\"" legal ${WORK_DIR}/bridges.json --tile U --at 1,1 --rot 0)

# The desktop command: headless without a display, a screenshot offscreen.
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM
                        ${MEEPLECAM} app RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT out MATCHES "No display: replaying")
  message(SEND_ERROR "meeplecam app without a display: exit ${code}\n${out}${err}")
endif()
expect_run(0 "wrote" app --record ${SAMPLE} --screenshot ${WORK_DIR}/app.png)
expect_run(2 "not valid JSON" app --record ${WORK_DIR}/truncated.json --screenshot ${WORK_DIR}/bad.png)

# Amazonas: the catalog check compares a user's catalog with the published totals.
expect_run(0 "every known total of the published Amazonas is met" catalog check ${SOURCE_DIR}/samples/catalogs/amazonas.json)
expect_run(0 "(PROVISIONAL)" catalog check ${SOURCE_DIR}/samples/catalogs/amazonas.json)
file(READ ${SOURCE_DIR}/samples/catalogs/amazonas.json amazonas_text)
string(REPLACE "\"id\": \"L01\", \"count\": 5" "\"id\": \"L01\", \"count\": 4" amazonas_text "${amazonas_text}")
file(WRITE ${WORK_DIR}/amazonas-short.json "${amazonas_text}")
expect_run(2 "standard land tiles: 64, the published game has 65" catalog check ${WORK_DIR}/amazonas-short.json)
expect_run(2 "expects: catalog check FILE" catalog)
expect_run(0 "usage: meeplecam catalog check" catalog --help)
file(WRITE ${WORK_DIR}/amazonas.json [=[{"format": "meeplecam-record", "version": 1, "game": "amazonas",
  "players": [{"color": "red"}, {"color": "blue"}],
  "events": [{"type": "tile", "tile": "SB0", "at": [0, 0], "rot": 0},
             {"type": "tile", "player": "red", "tile": "A13", "at": [4, 0], "rot": 0},
             {"type": "double", "player": "red", "tile": "D3", "at": [5, 0], "rot": 0}], "finished": true}]=])
expect_run(0 "Amazon: 19 river spaces (last 18); boats: red 1, blue 0" score ${WORK_DIR}/amazonas.json)
expect_run(0 "\"amazonas\"" score ${WORK_DIR}/amazonas.json --json)
expect_run(0 "2 legal placement(s)" legal ${WORK_DIR}/amazonas.json --tile A01)
file(WRITE ${WORK_DIR}/amazonas-bad.json [=[{"format": "meeplecam-record", "version": 1, "game": "amazonas",
  "players": [{"color": "red"}, {"color": "blue"}],
  "events": [{"type": "tile", "tile": "SB0", "at": [0, 0], "rot": 0},
             {"type": "tile", "player": "red", "tile": "A13", "at": [4, 0], "rot": 0},
             {"type": "tile", "player": "blue", "tile": "L25", "at": [0, -1], "rot": 0}]}]=])
expect_run(3 "event 2 (tile): a \"!\" Amazon tile must be followed at once by a 'double' event" score ${WORK_DIR}/amazonas-bad.json)
expect_run(0 "wrote" random-game --game amazonas --players 4 --seed 3 -o ${WORK_DIR}/amazonas-random.json)
expect_run(0 "Amazon: " score ${WORK_DIR}/amazonas-random.json)
expect_run(2 "must be carcassonne, city or amazonas" random-game --game chess -o ${WORK_DIR}/x.json)
# recognize: the board in a photograph; exit 2 for unreadable images and frames without a board.
expect_run(0 "usage: meeplecam recognize" recognize --help)
expect_run(0 "recognize IMAGE" --help)
expect_run(0 "70 tiles, " render --random-board 70 -o ${WORK_DIR}/board70.png --seed 7 --preset easy)
expect_run(0 "tiles (lattice" recognize ${WORK_DIR}/board70.png)
expect_run(0 "\"image_to_board\"" recognize ${WORK_DIR}/board70.png --json)
expect_run(2 "cannot open" recognize ${WORK_DIR}/missing.png)
file(WRITE ${WORK_DIR}/corrupt.png "not an image")
expect_run(2 "not a readable image" recognize ${WORK_DIR}/corrupt.png)
expect_run(2 "no board found" recognize ${WORK_DIR}/start.png)
expect_run(2 "expects at least one IMAGE" recognize)
expect_run(2 "no rules for game" recognize ${WORK_DIR}/board70.png --game nonsense)

# calibrate: printed targets, the table plane from the printed marker sheet itself (seen
# straight on: marker centres 105 x 138.5 mm apart), the file shown and used by recognize.
expect_run(0 "print-charuco -o board.pdf" calibrate --help)
foreach(sub print-charuco print-markers camera table colours show)
  expect_run(0 "usage: meeplecam calibrate ${sub}" calibrate ${sub} --help)
endforeach()
expect_run(0 "9 x 6 squares of 28.0 mm" calibrate print-charuco -o ${WORK_DIR}/board.pdf)
expect_run(0 "A4 landscape" calibrate print-charuco -o ${WORK_DIR}/board.png)
expect_run(0 "side 60.0 mm" calibrate print-markers -o ${WORK_DIR}/markers.png)
expect_run(2 "can be written as .png or .pdf" calibrate print-markers -o ${WORK_DIR}/markers.svg)
expect_run(0 "table plane from markers" calibrate table ${WORK_DIR}/markers.png --rect-mm 105x138.5 -o ${WORK_DIR}/cal.json)
expect_run(0 "marker 3 (SW) at 0.0, 138.5 mm" calibrate show ${WORK_DIR}/cal.json)
expect_run(0 "\"meeplecam-calibration\"" calibrate show ${WORK_DIR}/cal.json --json)
expect_run(2 "marker 0 (NW corner) measures" calibrate table ${WORK_DIR}/markers.png --rect-mm 300x400 -o ${WORK_DIR}/cal.json)
expect_run(2 "give exactly one of --rect-mm, --markers-mm, --from-tiles" calibrate table ${WORK_DIR}/markers.png -o ${WORK_DIR}/cal.json)
expect_run(2 "expected four centres" calibrate table ${WORK_DIR}/markers.png --markers-mm 0,0 -o ${WORK_DIR}/cal.json)
expect_run(2 "but the table plane was measured at" recognize ${WORK_DIR}/board70.png --calibration ${WORK_DIR}/cal.json)
expect_run(0 "table plane from tiles" calibrate table ${WORK_DIR}/board70.png --from-tiles -o ${WORK_DIR}/tiles.json)
expect_run(0 "tiles (lattice" recognize ${WORK_DIR}/board70.png --calibration ${WORK_DIR}/tiles.json)
expect_run(2 "none read as the start tile D" calibrate table ${WORK_DIR}/markers.png --from-start-tile -o ${WORK_DIR}/start-tile-cal.json)
expect_run(2 "no rules for game 'bogus'" calibrate table ${WORK_DIR}/markers.png --from-start-tile --game bogus -o ${WORK_DIR}/start-tile-cal.json)
expect_run(2 "unknown subcommand 'bogus'" calibrate bogus)
expect_run(2 "cannot open" calibrate show ${WORK_DIR}/missing.json)
expect_run(2 "no sheet of white paper found" calibrate colours ${WORK_DIR}/board70.png --players red,blue -o ${WORK_DIR}/cal.json)

# score-photo: the final score of a finished table from one photo; clear errors for a photo
# without a board, bad --players and a bad calibration.
expect_run(0 "usage: meeplecam score-photo" score-photo --help)
expect_run(0 "score-photo IMAGE" --help)
expect_run(0 "Final scoring (as if the game ended now)" score-photo ${WORK_DIR}/board70.png --players red,blue --overlay ${WORK_DIR}/score70.png)
if(NOT EXISTS ${WORK_DIR}/score70.png)
  message(SEND_ERROR "score-photo --overlay wrote no ${WORK_DIR}/score70.png")
endif()
expect_run(0 "\"events\"" score-photo ${WORK_DIR}/board70.png --players red,blue --json)
# A follower of a colour nobody plays is left out with a warning (not a refusal), and says so.
expect_run(0 "is not among the players (red): left out, not counted" score-photo ${WORK_DIR}/board70.png --players red)
expect_run(0 " left out)" score-photo ${WORK_DIR}/board70.png --players red)
expect_run(0 "\"counted\": false" score-photo ${WORK_DIR}/board70.png --players red --json)
expect_run(0 "\"left_out\": \"not a player's colour\"" score-photo ${WORK_DIR}/board70.png --players red --json)
expect_run(2 "no board found" score-photo ${WORK_DIR}/start.png --players red,blue)
expect_run(2 "--players red,blue,... is required" score-photo ${WORK_DIR}/board70.png)
expect_run(2 "unknown colour 'purple'" score-photo ${WORK_DIR}/board70.png --players red,purple)
expect_run(2 "cannot open" score-photo ${WORK_DIR}/missing.png --players red)
file(WRITE ${WORK_DIR}/not-calibration.json [=[{"format": "meeplecam-record"}]=])
expect_run(2 "not-calibration.json: format: must be \"meeplecam-calibration\"" score-photo ${WORK_DIR}/board70.png --players red,blue --calibration ${WORK_DIR}/not-calibration.json)
file(WRITE ${WORK_DIR}/calibration-bad-colour.json [=[{"format": "meeplecam-calibration", "version": 1,
  "colours": {"white_balance_rgb": [1, 1, 1], "players": {"red": {"lab_mean": [45, 60]}}}}]=])
expect_run(2 "colours.players.red.lab_mean" score-photo ${WORK_DIR}/board70.png --players red,blue --calibration ${WORK_DIR}/calibration-bad-colour.json)
# A good calibration's colour models (calibration::colour_models_of) and white balance are used;
# one without colours is refused naming the file.
file(WRITE ${WORK_DIR}/calibration-colours.json [=[{"format": "meeplecam-calibration", "version": 1,
  "colours": {"white_balance_rgb": [1.02, 1, 0.98], "players": {
    "red": {"lab_mean": [45, 60, 40], "lab_covariance": [[40, 0, 0], [0, 60, 0], [0, 0, 60]], "pixels": 400},
    "blue": {"lab_mean": [35, 15, -50], "lab_covariance": [[40, 0, 0], [0, 60, 0], [0, 0, 60]], "pixels": 400}}}}]=])
expect_run(0 "board70.png: 70 tiles, " score-photo ${WORK_DIR}/board70.png --players red,blue --calibration ${WORK_DIR}/calibration-colours.json)
file(WRITE ${WORK_DIR}/calibration-no-colours.json [=[{"format": "meeplecam-calibration", "version": 1}]=])
expect_run(2 "calibration-no-colours.json: holds no player colours" score-photo ${WORK_DIR}/board70.png --players red,blue --calibration ${WORK_DIR}/calibration-no-colours.json)
