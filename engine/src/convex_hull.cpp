// The convex hull of a point set, once for the engine (ray queries against
// convex meshes) and the importers (convex collision meshes, MJCF meshes
// given by their vertices): Bullet computes it in its precision, and the
// result is given back as indices of the original points.
#include <articula/shape.hpp>

#include <LinearMath/btConvexHullComputer.h>

#include <algorithm>

namespace articula {

ConvexHull convexHull(const std::vector<Vector3d>& points) {
  ConvexHull out;
  if (points.size() < 4) return out;
  std::vector<double> coords;
  coords.reserve(3 * points.size());
  for (const Vector3d& p : points) coords.insert(coords.end(), {p.x(), p.y(), p.z()});
  btConvexHullComputer hull;
  hull.compute(coords.data(), static_cast<int>(3 * sizeof(double)), static_cast<int>(points.size()), 0, 0);
  if (hull.vertices.size() < 4 || hull.original_vertex_index.size() != hull.vertices.size()) return out;
  const auto original = [&](int hullVertex) { return hull.original_vertex_index[hullVertex]; };
  Vector3d centre = Vector3d::Zero();
  for (int i = 0; i < hull.vertices.size(); ++i) {
    out.corners.push_back(original(i));
    centre += points[static_cast<std::size_t>(original(i))];
  }
  centre /= static_cast<double>(hull.vertices.size());
  std::sort(out.corners.begin(), out.corners.end());
  for (int f = 0; f < hull.faces.size(); ++f) {
    std::vector<int> face;
    const btConvexHullComputer::Edge* first = &hull.edges[hull.faces[f]];
    const btConvexHullComputer::Edge* e = first;
    do {
      face.push_back(original(e->getSourceVertex()));
      e = e->getNextEdgeOfFace();
    } while (e != first && face.size() <= static_cast<std::size_t>(hull.vertices.size()));
    if (face.size() < 3) continue;
    // Newell's normal of the loop (robust for nearly collinear corners):
    // outwards, away from the hull's centre, or the loop is turned.
    Vector3d n = Vector3d::Zero();
    for (std::size_t i = 0; i < face.size(); ++i) {
      n += points[static_cast<std::size_t>(face[i])].cross(
          points[static_cast<std::size_t>(face[(i + 1) % face.size()])]);
    }
    if (!(n.norm() > 0.0)) continue;
    if (n.dot(points[static_cast<std::size_t>(face[0])] - centre) < 0.0) std::reverse(face.begin(), face.end());
    for (std::size_t i = 1; i + 1 < face.size(); ++i) out.triangles.push_back({face[0], face[i], face[i + 1]});
    out.faces.push_back(std::move(face));
  }
  if (out.faces.size() < 4) out = ConvexHull{};
  return out;
}

}  // namespace articula
