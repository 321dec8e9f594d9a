// Viewpoints: named camera views saved with a World (articula/viewpoint.hpp).

#include <articula/error.hpp>
#include <articula/viewpoint.hpp>
#include <articula/world.hpp>

#include "world_impl.hpp"

#include <algorithm>
#include <cmath>

namespace articula {

namespace {

auto findViewpoint(const std::vector<ViewpointSpec>& viewpoints, const std::string& name) {
  return std::find_if(viewpoints.begin(), viewpoints.end(), [&](const ViewpointSpec& v) { return v.name == name; });
}

void checkViewpoint(const ViewpointSpec& v) {
  const std::string where = "viewpoint '" + v.name + "'";
  if (v.name.empty()) throw InvalidArgument("viewpoint: the name must not be empty");
  // Names go on command lines as they are (articula-run render --camera NAME).
  if (v.name.find_first_of("/:, \t\n\r") != std::string::npos) {
    throw InvalidArgument(where + ": the name must not contain '/', ':', ',' or white space");
  }
  if (!v.eye.allFinite() || !v.center.allFinite()) throw InvalidArgument(where + ": eye and center must be finite");
  if (v.eye == v.center) throw InvalidArgument(where + ": the eye must not be at the center it looks at");
  if (!(v.fovYDegrees >= 1.0 && v.fovYDegrees <= 170.0)) {
    throw InvalidArgument(where + ": the field of view must lie between 1 and 170 degrees");
  }
}

}  // namespace

void World::setViewpoint(const ViewpointSpec& viewpoint) {
  checkViewpoint(viewpoint);
  auto& list = m_impl->viewpoints;
  const auto it = findViewpoint(list, viewpoint.name);
  if (it == list.end()) {
    list.push_back(viewpoint);
  } else {
    list[static_cast<std::size_t>(it - list.begin())] = viewpoint;
  }
}

void World::removeViewpoint(const std::string& name) {
  auto& list = m_impl->viewpoints;
  const auto it = findViewpoint(list, name);
  if (it != list.end()) list.erase(it);
}

std::vector<ViewpointSpec> World::getViewpoints() const {
  return m_impl->viewpoints;
}

std::optional<ViewpointSpec> World::getViewpoint(const std::string& name) const {
  const auto it = findViewpoint(m_impl->viewpoints, name);
  if (it == m_impl->viewpoints.end()) return std::nullopt;
  return *it;
}

}  // namespace articula
