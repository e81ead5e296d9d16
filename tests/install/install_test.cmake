# cmake -P script behind the install_example test (see CMakeLists.txt beside it).
# Inputs: BUILD_DIR SOURCE_DIR WORK_DIR CXX LAUNCHER BUILD_TYPE FLAGS.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "install test: ${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
if(NOT EXISTS ${prefix}/lib/cmake/kiln/kilnConfig.cmake)
  message(FATAL_ERROR "install test: ${prefix}/lib/cmake/kiln/kilnConfig.cmake was not installed")
endif()
if(NOT EXISTS ${prefix}/bin/kiln)
  message(FATAL_ERROR "install test: the kiln CLI was not installed to ${prefix}/bin")
endif()

set(example_build ${WORK_DIR}/mlp-build)
set(launcher_arg "")
if(LAUNCHER)
  set(launcher_arg -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
step("configure examples/mlp with find_package(kiln)"
     ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/mlp -B ${example_build} -G Ninja
     -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
     "-DCMAKE_CXX_FLAGS=${FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}" ${launcher_arg})
step("build examples/mlp" ${CMAKE_COMMAND} --build ${example_build})
step("run examples/mlp" ${example_build}/mlp)
message("${step_output}")
