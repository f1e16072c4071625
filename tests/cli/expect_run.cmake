# Shared by the command-line script tests (cli_*_test, session_cli_test): a fresh WORK_DIR and
# expect_run(CODE NEEDLES ARGS...), which runs ${MEEPLECAM} ARGS and fails the test unless it
# exits with CODE and its stdout or stderr holds every item of NEEDLES (one string, or several
# joined by ";": one run checks them all, which saves a slow read under the sanitizers; write a
# needle's own semicolon as "\;").
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

function(expect_run expected_code needle)
  execute_process(COMMAND ${MEEPLECAM} ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT code EQUAL expected_code)
    message(SEND_ERROR "meeplecam ${ARGN}: exit ${code}, expected ${expected_code}\nstdout: ${out}\nstderr: ${err}")
  endif()
  foreach(item IN LISTS needle)
    string(FIND "${out}${err}" "${item}" pos)
    if(pos EQUAL -1)
      message(SEND_ERROR "meeplecam ${ARGN}: output lacks '${item}'\nstdout: ${out}\nstderr: ${err}")
    endif()
  endforeach()
endfunction()
