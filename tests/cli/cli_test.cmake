# End-to-end checks of the meeplecam command line: output and exit codes on good and bad input.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(expect_run expected_code needle)
  execute_process(COMMAND ${MEEPLECAM} ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL expected_code)
    message(SEND_ERROR "meeplecam ${ARGN}: exit ${code}, expected ${expected_code}\nstdout: ${out}\nstderr: ${err}")
  endif()
  string(FIND "${out}${err}" "${needle}" pos)
  if(pos EQUAL -1)
    message(SEND_ERROR "meeplecam ${ARGN}: output lacks '${needle}'\nstdout: ${out}\nstderr: ${err}")
  endif()
endfunction()

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
