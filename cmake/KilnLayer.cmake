# kiln_layer(NAME [DEPS...]): a static library from src/NAME/**/*.cc, linked to the layers
# below it. Headers are included as "NAME/file.h" from src/ (and from include/kiln once installed).
function(kiln_layer name)
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cc)
  add_library(kiln_${name} STATIC ${srcs})
  target_include_directories(kiln_${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:include/kiln>
    $<INSTALL_INTERFACE:include>)
  foreach(dep ${ARGN})
    target_link_libraries(kiln_${name} PUBLIC kiln_${dep})
  endforeach()
  set_target_properties(kiln_${name} PROPERTIES EXPORT_NAME ${name} LINKER_LANGUAGE CXX)
endfunction()
