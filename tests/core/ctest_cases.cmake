# ctest_cases.cmake: lists the doctest cases of a test binary and writes one CTest entry per case
# (run after every build of the binary). Each entry runs exactly its case: commas are escaped for
# doctest's filter, semicolons are kept inside the name, and an entry that runs no case fails.
#   cmake -DEXECUTABLE=<binary> -DOUTPUT=<ctest file> -DPREFIX=<name prefix> -DLABEL=<label>
#         -P tests/core/ctest_cases.cmake
cmake_minimum_required(VERSION 3.18)

execute_process(COMMAND ${EXECUTABLE} --list-test-cases OUTPUT_VARIABLE out RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ctest_cases: ${EXECUTABLE} --list-test-cases failed (${status})")
endif()
# one list element per output line, with the semicolons in case names kept aside
string(REPLACE ";" "<semicolon>" out "${out}")
string(REPLACE "\n" ";" lines "${out}")

set(script "")
set(names "")
foreach(line IN LISTS lines)
  if(line STREQUAL "" OR line MATCHES "^=+$" OR line MATCHES "^\\[doctest\\] ")
    continue()
  endif()
  string(REPLACE "<semicolon>" ";" name "${line}")
  if(name MATCHES "]=====]")
    message(FATAL_ERROR "ctest_cases: a case name cannot contain ]=====]: ${name}")
  endif()
  if(line IN_LIST names)
    message(FATAL_ERROR "ctest_cases: two cases are called \"${name}\"")
  endif()
  list(APPEND names "${line}")
  string(REPLACE "," "\\," filter "${name}")
  string(APPEND script
         "add_test([=====[${PREFIX}${name}]=====] [=====[${EXECUTABLE}]=====] [=====[--test-case=${filter}]=====])\n"
         "set_tests_properties([=====[${PREFIX}${name}]=====] PROPERTIES LABELS ${LABEL}\n"
         "                     FAIL_REGULAR_EXPRESSION \"test cases: +0 [|]\")\n")
endforeach()
if(names STREQUAL "")
  message(FATAL_ERROR "ctest_cases: ${EXECUTABLE} lists no test case")
endif()
file(WRITE ${OUTPUT} "${script}")
