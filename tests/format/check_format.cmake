# Fails, listing them, if C++ files under engine/ io/ viewer/ app/ python/ tests/
# are not formatted as the repository's .clang-format says (clang-format
# --dry-run -Werror). In a git checkout the tracked *.cpp and *.hpp files are
# checked, otherwise every such file found below those folders.
#
#   cmake -DSOURCE_DIR=<repository> -DCLANG_FORMAT=<clang-format> -P check_format.cmake
#
# To fix what it reports: clang-format -i <files> (from the repository root).
foreach(var SOURCE_DIR CLANG_FORMAT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_format.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${CLANG_FORMAT}")
  message(FATAL_ERROR "clang-format not found ('${CLANG_FORMAT}'): packaging/install-deps.sh installs it")
endif()
if(NOT EXISTS "${SOURCE_DIR}/.clang-format")
  message(FATAL_ERROR "${SOURCE_DIR}/.clang-format is missing")
endif()

set(folders engine io viewer app python tests)
set(files)
find_program(GIT git)
if(GIT AND EXISTS "${SOURCE_DIR}/.git")
  set(pathspecs)
  foreach(folder IN LISTS folders)
    list(APPEND pathspecs "${folder}/*.cpp" "${folder}/*.hpp")
  endforeach()
  execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" ls-files -- ${pathspecs}
    OUTPUT_VARIABLE listed RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "git ls-files failed: ${err}")
  endif()
  string(REPLACE "\n" ";" listed "${listed}")
  foreach(file IN LISTS listed)
    if(file)
      list(APPEND files "${file}")
    endif()
  endforeach()
else()
  foreach(folder IN LISTS folders)
    file(GLOB_RECURSE found RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/${folder}/*.cpp" "${SOURCE_DIR}/${folder}/*.hpp")
    list(APPEND files ${found})
  endforeach()
endif()
list(LENGTH files count)
if(count EQUAL 0)
  message(FATAL_ERROR "no C++ files found under ${folders} in ${SOURCE_DIR}")
endif()

execute_process(COMMAND "${CLANG_FORMAT}" --version OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
execute_process(COMMAND "${CLANG_FORMAT}" --dry-run -Werror --style=file ${files}
  WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE diagnostics)
if(rc EQUAL 0)
  message(STATUS "${count} files formatted (${version})")
  return()
endif()

# "file:line:col: error: code should be clang-formatted" -> the files.
string(REGEX MATCHALL "[^\n]*:[0-9]+:[0-9]+: error: code should be clang-formatted" hits "${diagnostics}")
set(bad)
foreach(hit IN LISTS hits)
  string(REGEX REPLACE ":[0-9]+:[0-9]+: error: code should be clang-formatted$" "" file "${hit}")
  list(APPEND bad "${file}")
endforeach()
list(REMOVE_DUPLICATES bad)
if(NOT bad)
  message(FATAL_ERROR "clang-format failed (${rc}):\n${diagnostics}")
endif()
list(LENGTH bad nbad)
list(JOIN bad "\n  " listing)
message(FATAL_ERROR "${nbad} of ${count} files are not formatted (${version}); run clang-format -i on:\n  ${listing}")
