# End-to-end checks of the meeplecam command line, part 3 of 3: score-photo on a rendered finished
# table, and its clear errors.
include(${CMAKE_CURRENT_LIST_DIR}/expect_run.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cli_fixtures.cmake)

expect_run(0 ": 1 tile," render ${WORK_DIR}/start.json -o ${WORK_DIR}/start.png --preset easy --size 320x240)
expect_run(0 "70 tiles, " render --random-board 70 -o ${WORK_DIR}/board70.png --seed 7 --preset easy)

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
expect_run(0 "is not among the players (red): left out, not counted; left out)" score-photo ${WORK_DIR}/board70.png --players red)
expect_run(0 "\"counted\": false;\"left_out\": \"not a player's colour\"" score-photo ${WORK_DIR}/board70.png --players red --json)
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
