# Installs a build tree into a fresh temporary prefix, then configures,
# builds and runs tests/install/consumer against that prefix
# (find_package(Articula CONFIG REQUIRED)). Fails if any step fails.
#
#   cmake -DBUILD_DIR=<build tree> -DCONSUMER_DIR=<tests/install/consumer>
#         -DGENERATOR=<generator> -DCXX_COMPILER=<c++> -P run_install_consumer.cmake
foreach(var BUILD_DIR CONSUMER_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_install_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()

execute_process(COMMAND mktemp -d -t articula-install-XXXXXX OUTPUT_VARIABLE tmp
  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT IS_DIRECTORY "${tmp}")
  message(FATAL_ERROR "mktemp -d failed")
endif()
set(prefix "${tmp}/prefix")

# Runs one step; on failure shows its output, removes the temporary folder
# and fails.
function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    file(REMOVE_RECURSE "${tmp}")
    message(FATAL_ERROR "${name} failed (${rc}):\n${ARGN}\n${out}")
  endif()
  message(STATUS "${name}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

# The consumer sees the prefix only: no package registry, no environment paths.
step("configure the consumer" ${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${tmp}/build" -G "${GENERATOR}"
  -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CXX_COMPILER_LAUNCHER= -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_CMAKE_ENVIRONMENT_PATH=OFF)
file(STRINGS "${tmp}/build/CMakeCache.txt" articula_dir REGEX "^Articula_DIR:")
string(REGEX REPLACE "^Articula_DIR:[A-Z]+=" "" articula_dir "${articula_dir}")
string(FIND "${articula_dir}" "${prefix}/" at)
if(NOT at EQUAL 0)
  file(REMOVE_RECURSE "${tmp}")
  message(FATAL_ERROR "the consumer found Articula in '${articula_dir}', not under ${prefix}")
endif()
message(STATUS "Articula_DIR: ${articula_dir}")

step("build the consumer" ${CMAKE_COMMAND} --build "${tmp}/build" -j 2)
step("run the consumer" "${tmp}/build/articula_consumer" "${prefix}/share/articula/scenes/four_bar.articula")
message("${step_output}")

# The Python package (ARTICULA_BUILD_PYTHON): installed into the
# interpreter's site directory under the prefix, importable from there alone.
if(PYTHON)
  step("find the site directory" "${PYTHON}" "${SOURCE_DIR}/python/tools/site_dir.py" "${prefix}")
  string(STRIP "${step_output}" site)
  if(NOT EXISTS "${site}/articula/__init__.py" OR NOT EXISTS "${site}/articula/_articula.pyi")
    file(REMOVE_RECURSE "${tmp}")
    message(FATAL_ERROR "cmake --install put no articula package into ${site}")
  endif()
  step("import the installed package" ${CMAKE_COMMAND} -E env "PYTHONPATH=${site}" PYTHONNOUSERSITE=1
    "${PYTHON}" -c "import articula, sys
assert articula.__file__.startswith(sys.argv[1]), articula.__file__
w = articula.io.load(sys.argv[2])
w.step(100)
print('installed articula', articula.__version__, 'stepped', w.get_frame_index(), 'steps from', articula.__file__)"
    "${site}" "${prefix}/share/articula/scenes/four_bar.articula")
  message("${step_output}")
endif()

file(REMOVE_RECURSE "${tmp}")
