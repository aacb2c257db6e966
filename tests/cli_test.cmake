# Runs the stenciljit command-line tool once and checks its exit code and output.
#   cmake -DCLI=path -DEXPECT=code -DREGEX=regex -DARGS=a^^b^^c -P cli_test.cmake
# The arguments are joined with ^^ because CMake lists cannot cross add_test intact.
if(ARGS STREQUAL "")
  set(args "")
else()
  string(REPLACE "^^" ";" args "${ARGS}")
endif()
execute_process(COMMAND ${CLI} ${args} RESULT_VARIABLE code OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
message("$ stenciljit ${args}\n--- stdout\n${out}--- stderr\n${err}--- exit code ${code}")
if(NOT code STREQUAL "${EXPECT}")
  message(FATAL_ERROR "exit code ${code}, expected ${EXPECT}")
endif()
if(NOT "${out}${err}" MATCHES "${REGEX}")
  message(FATAL_ERROR "output does not match /${REGEX}/")
endif()
