# `meeplecam app` with no display runs the live pipeline headless (capture thread, match
# worker with the tracker, journal) over rendered footage and prints the recorded match.
# Args: -DMEEPLECAM=... -DSOURCE_DIR=... -DWORK_DIR=...
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(record "${SOURCE_DIR}/tests/ui/data/footage-3-events.json")
execute_process(COMMAND "${MEEPLECAM}" render-footage "${record}" -o "${WORK_DIR}/footage" --seed 1 --size 960x540
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "render-footage failed (${rc}): ${out} ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM
                        "${MEEPLECAM}" app --images "${WORK_DIR}/footage" --truth-camera "${WORK_DIR}/footage/truth.json"
                        --fps 20 --journal "${WORK_DIR}/match.journal"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "app headless failed (${rc}): ${out} ${err}")
endif()
foreach(want
    "No display: running the live pipeline headless"
    "recorded match \\(3 events"
    "1: {\"at\":\\[-1,0\\],\"player\":\"red\",\"rot\":270,\"tile\":\"V\",\"type\":\"tile\"}"
    "2: {\"at\":\\[-1,0\\],\"loc\":\"NL\",\"player\":\"red\",\"type\":\"meeple\"}"
    "Final score after 2 tiles")
  if(NOT out MATCHES "${want}")
    message(FATAL_ERROR "app headless output lacks '${want}':\n${out}\n${err}")
  endif()
endforeach()
# The journal holds the same match, finished.
file(STRINGS "${WORK_DIR}/match.journal" lines)
list(LENGTH lines n)
if(NOT n EQUAL 4)
  message(FATAL_ERROR "the journal should hold a header and 3 events, has ${n} lines")
endif()
list(GET lines 0 header)
if(NOT header MATCHES "\"finished\":true")
  message(FATAL_ERROR "the journal header should say finished: ${header}")
endif()

# The same footage through a calibration file instead of the footage's camera: a table plane
# (the renderer's true plane, table mm with its own origin) and a set-up holding only the
# start tile. The app must find the start tile on the first frames and record the same match.
file(READ "${WORK_DIR}/footage/truth.json" truth)
string(JSON plane GET "${truth}" table_to_image)
file(WRITE "${WORK_DIR}/calibration.json"
     "{\"format\": \"meeplecam-calibration\", \"version\": 1, \"table\": {\"source\": \"tiles\", \"image_size\": [960, 540], \"table_to_image\": ${plane}, \"rms_error_px\": 0}}")
string(JSON setup GET "${truth}" record)
string(JSON start GET "${setup}" events 0)
string(JSON setup SET "${setup}" events "[${start}]")
string(JSON setup SET "${setup}" finished false)
file(WRITE "${WORK_DIR}/setup.json" "${setup}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM
                        "${MEEPLECAM}" app --images "${WORK_DIR}/footage" --calibration "${WORK_DIR}/calibration.json"
                        --setup "${WORK_DIR}/setup.json" --fps 20 --journal "${WORK_DIR}/calibrated.journal"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "app headless with --calibration failed (${rc}): ${out} ${err}")
endif()
foreach(want
    "start tile found at"
    "recorded match \\(3 events"
    "1: {\"at\":\\[-1,0\\],\"player\":\"red\",\"rot\":270,\"tile\":\"V\",\"type\":\"tile\"}"
    "2: {\"at\":\\[-1,0\\],\"loc\":\"NL\",\"player\":\"red\",\"type\":\"meeple\"}")
  if(NOT out MATCHES "${want}")
    message(FATAL_ERROR "app headless --calibration output lacks '${want}':\n${out}\n${err}")
  endif()
endforeach()
# A calibration file that cannot be read stops the app with exit code 2 and names the file.
file(WRITE "${WORK_DIR}/bad-calibration.json" "{\"format\": \"meeplecam-calibration\", \"version\": 7}")
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM
                        "${MEEPLECAM}" app --images "${WORK_DIR}/footage" --calibration "${WORK_DIR}/bad-calibration.json"
                        --setup "${WORK_DIR}/setup.json" --journal "${WORK_DIR}/bad.journal"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT rc EQUAL 2 OR NOT err MATCHES "bad-calibration.json")
  message(FATAL_ERROR "app --calibration with a bad file should exit 2 naming it, got ${rc}: ${out} ${err}")
endif()
# Photo mode with no display: a rendered finished table is read and its scoring printed (as
# score-photo does); the scene (seed 6, 16 tiles, a follower wherever one could go) reads exactly.
execute_process(COMMAND "${MEEPLECAM}" random-game --seed 6 --players 2 --followers 1 --max-tiles 16 -o "${WORK_DIR}/table.json"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "random-game failed (${rc}): ${out} ${err}")
endif()
execute_process(COMMAND "${MEEPLECAM}" render "${WORK_DIR}/table.json" -o "${WORK_DIR}/table.png" --seed 6 --preset easy --style classic
                        --surface plain
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "render failed (${rc}): ${out} ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM
                        XDG_CONFIG_HOME=${WORK_DIR}/config
                        "${MEEPLECAM}" app --photo "${WORK_DIR}/table.png" --players red,blue
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "app --photo headless failed (${rc}): ${out} ${err}")
endif()
# The totals: the record's own final scoring (meeplecam score on the game played gives red 9, blue 6,
# all of it final scoring: nothing completed during these 16 tiles).
foreach(want "No display: reading .*table.png headless" "16 tiles, 14 followers" "Final scoring \\(as if the game ended now\\)"
             "  red  9\n  blue  6\n")
  if(NOT out MATCHES "${want}")
    message(FATAL_ERROR "app --photo output lacks '${want}':\n${out}\n${err}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM
                        "${MEEPLECAM}" app --photo "${WORK_DIR}/missing.png" --players red,blue
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "missing.png")
  message(FATAL_ERROR "app --photo on a missing file should exit 2 naming it, got ${rc}: ${err}")
endif()
