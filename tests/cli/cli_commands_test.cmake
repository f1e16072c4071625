# End-to-end checks of the meeplecam command line, part 1 of 3: the rules commands (score, legal,
# catalog, random-game), bad files, expansions and the desktop command; exit codes 0/2/3 and messages.
include(${CMAKE_CURRENT_LIST_DIR}/expect_run.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cli_fixtures.cmake)

set(SAMPLE ${SOURCE_DIR}/samples/matches/sample-2p.json)
expect_run(0 "Final score" score ${SAMPLE})
expect_run(0 "\"scores\"" score ${SAMPLE} --json)
expect_run(0 "usage: meeplecam score" score --help)
expect_run(0 "usage: meeplecam legal" legal --help)
expect_run(0 "commands:" --help)

# legal on the start position: U fits east, west and south of the start tile.
expect_run(0 "3 legal placement(s)" legal ${WORK_DIR}/start.json --tile U)
expect_run(0 "\"rot\": 90" legal ${WORK_DIR}/start.json --tile U --json)
expect_run(0 "\"loc\": \"NL\"" legal ${WORK_DIR}/start.json --tile U --at 1,0 --rot 90 --json)
expect_run(3 "cannot go at [1, 0] rot 0" legal ${WORK_DIR}/start.json --tile U --at 1,0 --rot 0)
expect_run(2 "unknown tile id 'Q7'" legal ${WORK_DIR}/start.json --tile Q7)
expect_run(2 "--tile ID is required" legal ${WORK_DIR}/start.json)

# Bad input: exit 2 for unreadable or invalid files, 3 for illegal moves, never a crash.
expect_run(2 "cannot open" score ${WORK_DIR}/missing.json)
expect_run(2 "not valid JSON (byte" score ${WORK_DIR}/truncated.json)
expect_run(3 "event 1 (tile): tile U cannot go at [1, 0] rot 0" score ${WORK_DIR}/illegal.json)
expect_run(2 "unknown option --bogus" score ${SAMPLE} --bogus)
expect_run(2 "unknown command" frobnicate)
expect_run(2 "cannot open catalog file" score ${SAMPLE} --catalog ${WORK_DIR}/nope.json)
expect_run(0 "Final score" score ${SAMPLE} --catalog ${SOURCE_DIR}/samples/catalogs/carcassonne-base.json)

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
expect_run(0 "Amazon: 19 river spaces (last 18)\; boats: red 1, blue 0" score ${WORK_DIR}/amazonas.json)
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
