# Shared by the command-line script tests (cli_test, session_cli_test): a fresh WORK_DIR and
# expect_run(CODE NEEDLE ARGS...), which runs ${MEEPLECAM} ARGS and fails the test unless it
# exits with CODE and its stdout or stderr holds NEEDLE.
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
