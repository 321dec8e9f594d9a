# What `cmake --install` installs (GNUInstallDirs layout), in two components:
#   runtime      articula-run, articula-studio, the shipped scenes, the license
#                (what the Debian package holds; packaging/ adds the desktop
#                entry and the icon)
#   development  the libraries, their public headers and the CMake package
#                (find_package(Articula): Articula::engine, ::io, ::viewer)
include(CMakePackageConfigHelpers)

set(ARTICULA_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Articula" CACHE STRING
  "Where the Articula CMake package goes, relative to the installation prefix")

# ---- libraries and headers --------------------------------------------------
set(ARTICULA_INSTALLED_LIBRARIES engine)
set(articula_install_targets articula_engine)
set(articula_header_dirs "${PROJECT_SOURCE_DIR}/engine/include/")
if(TARGET articula_io)
  list(APPEND ARTICULA_INSTALLED_LIBRARIES io)
  list(APPEND articula_install_targets articula_io)
  list(APPEND articula_header_dirs "${PROJECT_SOURCE_DIR}/io/include/")
endif()
if(TARGET articula_viewer)
  list(APPEND ARTICULA_INSTALLED_LIBRARIES viewer)
  list(APPEND articula_install_targets articula_viewer)
  list(APPEND articula_header_dirs "${PROJECT_SOURCE_DIR}/viewer/include/")
endif()

set(ARTICULA_STATIC_LIBRARIES FALSE)
foreach(target IN LISTS articula_install_targets)
  string(REGEX REPLACE "^articula_" "" export_name ${target})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    set(ARTICULA_STATIC_LIBRARIES TRUE)
  endif()
endforeach()

install(TARGETS ${articula_install_targets} EXPORT ArticulaTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${articula_header_dirs} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development
  FILES_MATCHING PATTERN "*.hpp")

# ---- CMake package ----------------------------------------------------------
# The OpenSceneGraph components the viewer links (viewer/CMakeLists.txt).
set(ARTICULA_OSG_COMPONENTS "osg osgViewer osgGA osgDB osgUtil osgText osgShadow")
install(EXPORT ArticulaTargets NAMESPACE Articula:: DESTINATION ${ARTICULA_INSTALL_CMAKEDIR}
  COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ArticulaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ArticulaConfig.cmake INSTALL_DESTINATION ${ARTICULA_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ArticulaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/ArticulaConfig.cmake
  ${PROJECT_BINARY_DIR}/ArticulaConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/ArticulaDependencyTargets.cmake
  DESTINATION ${ARTICULA_INSTALL_CMAKEDIR} COMPONENT development)

# ---- programs, scenes, license ----------------------------------------------
foreach(program IN ITEMS articula-run articula-studio)
  if(TARGET ${program})
    install(TARGETS ${program} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
  endif()
endforeach()
# articula-studio opens <prefix>/share/articula/scenes/four_bar.articula by default.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenes/ DESTINATION ${CMAKE_INSTALL_DATADIR}/articula/scenes
  COMPONENT runtime FILES_MATCHING PATTERN "*.articula")
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/articula
  RENAME copyright COMPONENT runtime)
