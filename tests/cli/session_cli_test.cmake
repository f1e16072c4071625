# End-to-end: random-game -> render-footage -> track (with a journal), and the commands' bad input.
include(${CMAKE_CURRENT_LIST_DIR}/expect_run.cmake)

expect_run(0 "usage: meeplecam render-footage" render-footage --help)
expect_run(0 "usage: meeplecam track" track --help)
expect_run(0 "6 tiles" random-game --seed 3 --max-tiles 6 -o ${WORK_DIR}/game.json)
expect_run(0 "frames of 7 events" render-footage ${WORK_DIR}/game.json -o ${WORK_DIR}/footage --seed 3 --size 800x450)
if(NOT EXISTS ${WORK_DIR}/footage/truth.json OR NOT EXISTS ${WORK_DIR}/footage/frame_00000.jpg)
  message(SEND_ERROR "render-footage did not write truth.json and the frames")
endif()
# The tracker reads the footage back: every event of the script, and the journal holds them.
expect_run(0 "against the footage truth: 7 of 7 events equal, recorded 7" track --images ${WORK_DIR}/footage
           --truth-camera ${WORK_DIR}/footage/truth.json --enter-from-truth -o ${WORK_DIR}/tracked.json
           --journal ${WORK_DIR}/tracked.journal)
file(STRINGS ${WORK_DIR}/tracked.journal journal_lines)
list(LENGTH journal_lines journal_count)
if(NOT journal_count EQUAL 8)
  message(SEND_ERROR "the journal should hold a header and 7 events, it has ${journal_count} lines")
endif()
expect_run(0 "Final score" score ${WORK_DIR}/tracked.json)
# The same footage with a calibration file (the footage's true plane in its own table frame,
# nothing about the start tile): the start tile is found on the first frame and the same
# events are recorded.
file(READ ${WORK_DIR}/footage/truth.json truth)
string(JSON plane GET "${truth}" table_to_image)
file(WRITE ${WORK_DIR}/calibration.json
     "{\"format\": \"meeplecam-calibration\", \"version\": 1, \"table\": {\"source\": \"tiles\", \"image_size\": [800, 450], \"table_to_image\": ${plane}, \"rms_error_px\": 0}}")
expect_run(0 "frame_00000.jpg: start tile found at" track --images ${WORK_DIR}/footage --calibration ${WORK_DIR}/calibration.json
           -o ${WORK_DIR}/calibrated.json)
file(READ ${WORK_DIR}/tracked.json by_truth)
file(READ ${WORK_DIR}/calibrated.json by_calibration)
string(JSON by_truth_events GET "${by_truth}" events)
string(JSON by_calibration_events GET "${by_calibration}" events)
if(NOT by_truth_events STREQUAL by_calibration_events)
  message(SEND_ERROR "track --calibration recorded other events than --truth-camera:\n${by_calibration_events}\n${by_truth_events}")
endif()
# A calibration file without a table plane, and frames that never show the start tile alone.
file(WRITE ${WORK_DIR}/no_table.json "{\"format\": \"meeplecam-calibration\", \"version\": 1}")
expect_run(2 "the calibration has no table plane" track --images ${WORK_DIR}/footage --calibration ${WORK_DIR}/no_table.json -o ${WORK_DIR}/x.json)
file(MAKE_DIRECTORY ${WORK_DIR}/late)
file(GLOB frames ${WORK_DIR}/footage/frame_*.jpg)
list(SORT frames)
list(LENGTH frames n_frames)
math(EXPR last "${n_frames} - 1")
list(GET frames ${last} last_frame)
file(COPY ${last_frame} DESTINATION ${WORK_DIR}/late)
expect_run(2 "no frame showed the start tile alone on the calibrated table" track --images ${WORK_DIR}/late
           --calibration ${WORK_DIR}/calibration.json -o ${WORK_DIR}/x.json)

# Bad input.
expect_run(2 "-o RECORD.json is required" track --images ${WORK_DIR}/footage --truth-camera ${WORK_DIR}/footage/truth.json)
expect_run(2 "exactly one of --images DIR and --video FILE" track --truth-camera ${WORK_DIR}/footage/truth.json -o ${WORK_DIR}/x.json)
expect_run(2 "holds no .jpg" track --images ${WORK_DIR} --truth-camera ${WORK_DIR}/footage/truth.json -o ${WORK_DIR}/x.json)
expect_run(2 "no such video file" track --video ${WORK_DIR}/none.mp4 --truth-camera ${WORK_DIR}/footage/truth.json -o ${WORK_DIR}/x.json)
file(WRITE ${WORK_DIR}/bad_cal.json "{\"table_to_image\": [[1, 0], [0, 1]]}")
expect_run(2 "table_to_image must be 3 rows of 3 numbers" track --images ${WORK_DIR}/footage --calibration ${WORK_DIR}/bad_cal.json -o ${WORK_DIR}/x.json)
expect_run(2 "cannot open" render-footage ${WORK_DIR}/missing.json -o ${WORK_DIR}/f2)
expect_run(2 "-o DIR is required" render-footage ${WORK_DIR}/game.json)
