# Builds the Debian package of a build tree into a temporary folder (cpack)
# and checks it: the programs, desktop entry, icon and default scene are in
# it, dpkg-shlibdeps filled Depends, and the packaged articula-run runs (on
# the packaged scene) once extracted.
#
#   cmake -DBUILD_DIR=<build tree> -P check_deb.cmake
if(NOT DEFINED BUILD_DIR)
  message(FATAL_ERROR "check_deb.cmake: -DBUILD_DIR=... is required")
endif()

execute_process(COMMAND mktemp -d -t articula-deb-XXXXXX OUTPUT_VARIABLE tmp
  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${tmp}")
  message(FATAL_ERROR "mktemp -d failed")
endif()

function(fail why)
  file(REMOVE_RECURSE "${tmp}")
  message(FATAL_ERROR "${why}")
endfunction()

# Runs one step; on failure shows its output and fails. Its output is left
# in step_output.
function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    fail("${name} failed (${rc}):\n${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${name}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step("cpack" cpack -G DEB --config "${BUILD_DIR}/CPackConfig.cmake" -B "${tmp}")
file(GLOB debs "${tmp}/articula-*.deb")
list(LENGTH debs count)
if(NOT count EQUAL 1)
  fail("expected one articula-*.deb in ${tmp}, found: ${debs}")
endif()
get_filename_component(name "${debs}" NAME)
message(STATUS "package: ${name}")

step("dpkg-deb -c" dpkg-deb -c "${debs}")
set(contents "${step_output}")
foreach(path IN ITEMS
    ./usr/bin/articula-run
    ./usr/bin/articula-studio
    ./usr/share/applications/articula-studio.desktop
    ./usr/share/icons/hicolor/scalable/apps/articula.svg
    ./usr/share/articula/scenes/four_bar.articula
    ./usr/share/doc/articula/copyright)
  string(FIND "${contents}" " ${path}\n" at)
  if(at EQUAL -1)
    fail("${name} lacks ${path}; it holds:\n${contents}")
  endif()
endforeach()
# Nothing for developers: the runtime component only.
foreach(path IN ITEMS "/include/articula/" "/cmake/Articula/" ".a\n")
  string(FIND "${contents}" "${path}" at)
  if(NOT at EQUAL -1)
    fail("${name} holds development files (${path}):\n${contents}")
  endif()
endforeach()

step("dpkg-deb -f" dpkg-deb -f "${debs}" Package Version Architecture Depends Section Maintainer)
message(STATUS "control fields:\n${step_output}")
foreach(dependency IN ITEMS libc6 libstdc\\+\\+6 libqt6widgets6 libopenscenegraph libsdformat12 libassimp)
  if(NOT step_output MATCHES "Depends:[^\n]*${dependency}")
    fail("Depends lacks ${dependency}:\n${step_output}")
  endif()
endforeach()

step("dpkg-deb -x" dpkg-deb -x "${debs}" "${tmp}/root")
step("articula-run --help" "${tmp}/root/usr/bin/articula-run" --help)
step("articula-run on the packaged scene" "${tmp}/root/usr/bin/articula-run" run
  "${tmp}/root/usr/share/articula/scenes/four_bar.articula" --steps 100 --quiet)
message(STATUS "${step_output}")

file(REMOVE_RECURSE "${tmp}")
