# Imported targets for the dependencies that CMake's find modules describe
# with variables only: Bullet (FindBullet; Debian's BulletConfig.cmake gives
# relative paths) and OpenSceneGraph (FindOpenSceneGraph). The libraries link
# these targets rather than absolute paths, so that the exported link
# interface of the static libraries names targets that ArticulaConfig.cmake
# can recreate on the consumer's machine.
#
# Include after find_package(Bullet) and/or find_package(OpenSceneGraph ...):
# the build (engine/, io/, viewer/) and ArticulaConfig.cmake both do. Each
# target is created once (GLOBAL, so every directory of the build sees it).

if(BULLET_FOUND AND NOT TARGET ArticulaDeps::LinearMath)
  add_library(ArticulaDeps::LinearMath UNKNOWN IMPORTED GLOBAL)
  set_target_properties(ArticulaDeps::LinearMath PROPERTIES
    IMPORTED_LOCATION "${BULLET_MATH_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${BULLET_INCLUDE_DIRS}")
  add_library(ArticulaDeps::BulletCollision UNKNOWN IMPORTED GLOBAL)
  set_target_properties(ArticulaDeps::BulletCollision PROPERTIES
    IMPORTED_LOCATION "${BULLET_COLLISION_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${BULLET_INCLUDE_DIRS}"
    INTERFACE_LINK_LIBRARIES ArticulaDeps::LinearMath)
endif()

if(OPENSCENEGRAPH_FOUND AND NOT TARGET ArticulaDeps::OpenSceneGraph)
  # OPENSCENEGRAPH_LIBRARIES may hold "optimized X debug Y" pairs, which a
  # target's link interface does not take: keep the release libraries.
  set(_articula_osg_libs)
  set(_articula_skip_next FALSE)
  foreach(_articula_item IN LISTS OPENSCENEGRAPH_LIBRARIES)
    if(_articula_skip_next)
      set(_articula_skip_next FALSE)
    elseif(_articula_item STREQUAL "debug")
      set(_articula_skip_next TRUE)
    elseif(NOT _articula_item STREQUAL "optimized" AND NOT _articula_item STREQUAL "general")
      list(APPEND _articula_osg_libs "${_articula_item}")
    endif()
  endforeach()
  add_library(ArticulaDeps::OpenSceneGraph INTERFACE IMPORTED GLOBAL)
  set_target_properties(ArticulaDeps::OpenSceneGraph PROPERTIES
    INTERFACE_LINK_LIBRARIES "${_articula_osg_libs}"
    INTERFACE_INCLUDE_DIRECTORIES "${OPENSCENEGRAPH_INCLUDE_DIRS}")
  unset(_articula_osg_libs)
  unset(_articula_skip_next)
  unset(_articula_item)
endif()
