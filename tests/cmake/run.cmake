# run.cmake: builds and runs tests/cmake/consumer three ways: add_subdirectory of this source tree,
# FetchContent from this git repository at its current commit, and find_package after
# cmake --install of the library into a scratch prefix. Fails on the first way that does not
# configure, build or pass.
#   cmake -DAP_SOURCE_DIR=<repo> -DAP_WORK_DIR=<scratch> -DAP_VERSION=<version> \
#         [-DAP_GENERATOR=<generator>] [-DCMAKE_CXX_COMPILER=<c++>] -P tests/cmake/run.cmake
# The library is built without optimisation or debug information: the cheapest build that runs it.
cmake_minimum_required(VERSION 3.19)

foreach(var AP_SOURCE_DIR AP_WORK_DIR AP_VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run.cmake: set ${var}")
  endif()
endforeach()
# AP_WAYS: a subset of "subdirectory;fetchcontent;package" (all three by default).
if(NOT AP_WAYS)
  set(AP_WAYS subdirectory fetchcontent package)
endif()
if(NOT AP_GENERATOR)
  set(AP_GENERATOR "Unix Makefiles")
endif()
set(consumer ${AP_SOURCE_DIR}/tests/cmake/consumer)
set(common -G ${AP_GENERATOR} -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0
    -DAP_FIXTURE=${AP_SOURCE_DIR}/tests/fixtures/attention_v1.json -DAP_VERSION=${AP_VERSION})
if(CMAKE_CXX_COMPILER)
  list(APPEND common -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
endif()

function(run what)
  string(TIMESTAMP start "%s")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status)
  string(TIMESTAMP end "%s")
  math(EXPR seconds "${end} - ${start}")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "package: ${what} failed (${status})")
  endif()
  message(STATUS "package: ${what}: ${seconds} s")
endfunction()

function(consume way)
  set(build ${AP_WORK_DIR}/${way})
  run("${way}: configure" ${CMAKE_COMMAND} -S ${consumer} -B ${build} ${common} -DAP_CONSUME=${way}
      ${ARGN})
  run("${way}: build" ${CMAKE_COMMAND} --build ${build} --parallel 2)
  run("${way}: run" ${build}/consumer)
endfunction()

file(REMOVE_RECURSE ${AP_WORK_DIR})
file(MAKE_DIRECTORY ${AP_WORK_DIR})

if(subdirectory IN_LIST AP_WAYS)
  consume(subdirectory -DAP_SOURCE_DIR=${AP_SOURCE_DIR})
endif()

# FetchContent clones the repository, so it sees the current commit, not uncommitted edits.
if(fetchcontent IN_LIST AP_WAYS)
  execute_process(COMMAND git -C ${AP_SOURCE_DIR} rev-parse HEAD OUTPUT_VARIABLE commit
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "package: ${AP_SOURCE_DIR} is not a git checkout; FetchContent needs one")
  endif()
  consume(fetchcontent -DAP_GIT_URL=file://${AP_SOURCE_DIR} -DAP_GIT_TAG=${commit})
endif()

# The library alone (this project at the top level with its programs and tests off), installed.
if(package IN_LIST AP_WAYS)
  set(prefix ${AP_WORK_DIR}/prefix)
  run("package: configure the library" ${CMAKE_COMMAND} -S ${AP_SOURCE_DIR}
      -B ${AP_WORK_DIR}/library ${common} -DAP_BUILD_CLI=OFF -DAP_BUILD_TESTS=OFF)
  run("package: build the library" ${CMAKE_COMMAND} --build ${AP_WORK_DIR}/library --parallel 2)
  run("package: install" ${CMAKE_COMMAND} --install ${AP_WORK_DIR}/library --prefix ${prefix})
  # The installed package stands alone: nothing in it points back into the source or build tree.
  file(GLOB_RECURSE installed ${prefix}/*.cmake ${prefix}/*.hpp)
  foreach(file IN LISTS installed)
    file(READ ${file} text)
    foreach(tree ${AP_SOURCE_DIR} ${AP_WORK_DIR}/library)
      string(FIND "${text}" "${tree}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "package: ${file} names ${tree}")
      endif()
    endforeach()
  endforeach()
  consume(package -DCMAKE_PREFIX_PATH=${prefix})
endif()
