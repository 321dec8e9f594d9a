#pragma once
/// @file
/// Geometry, materials, and the shapes attached to links, rigid bodies and
/// the world.
///
/// A body carries three separate kinds of data: its inertia (Inertia), its
/// collision shapes (what contacts are computed against) and its visual
/// shapes (what is drawn). A link may have a detailed visual mesh and a
/// simple collision box; neither changes the inertia.

#include <articula/types.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace articula {

namespace detail {
struct Access;
}

class World;
class Frame;

/// Geometry types. All primitives are centred on the shape frame.
enum class GeometryType : std::uint8_t {
  Box,           ///< full side lengths `size` (m)
  Sphere,        ///< `radius`
  Capsule,       ///< cylinder of `radius` and `length` along z, with hemispherical caps (total length + 2·radius)
  Cylinder,      ///< `radius`, `length` along z
  Ellipsoid,     ///< semi-axes `size` (m)
  Plane,         ///< infinite half-space below the plane z = 0 of the shape frame (normal +z); static only
  ConvexMesh,    ///< convex hull of `vertices`
  TriangleMesh,  ///< `vertices` + `triangles`; collision on static shapes (the world) only, any visual
};

std::string_view toString(GeometryType type);

/// A run of consecutive triangles of a TriangleMesh drawn in a colour of
/// its own: the submeshes of a mesh file with several materials.
struct MeshPart {
  int firstTriangle = 0;               ///< index into Geometry::triangles
  int triangleCount = 0;               ///< ≥ 1
  Vector4d color{0.7, 0.7, 0.7, 1.0};  ///< RGBA in [0, 1]

  friend bool operator==(const MeshPart& a, const MeshPart& b) {
    return a.firstTriangle == b.firstTriangle && a.triangleCount == b.triangleCount && a.color == b.color;
  }
};

/// A geometry value. Use the factories; fields not used by a type are ignored.
struct Geometry {
  GeometryType type = GeometryType::Box;
  Vector3d size = Vector3d::Ones();           ///< Box: side lengths; Ellipsoid: semi-axes (m)
  double radius = 0.5;                        ///< Sphere, Capsule, Cylinder (m)
  double length = 1.0;                        ///< Capsule, Cylinder: along z (m)
  std::vector<Vector3d> vertices;             ///< ConvexMesh, TriangleMesh (m, shape frame)
  std::vector<std::array<int, 3>> triangles;  ///< TriangleMesh: vertex indices, counter-clockwise seen from outside
  /// ConvexMesh, TriangleMesh: the mesh file the vertices were read from, if
  /// any (absolute path), and the scale applied to it. Scene files refer to
  /// the file instead of writing the vertices inline; the engine itself only
  /// uses `vertices` and `triangles`.
  std::string meshFile;
  Vector3d meshScale = Vector3d::Ones();
  /// TriangleMesh: colours of runs of triangles, in increasing order and not
  /// overlapping. Drawing only: a visual shape draws its other triangles in
  /// the shape's colour, and collision ignores the parts. Mesh files with
  /// several materials fill this in when they are loaded.
  std::vector<MeshPart> parts;

  static Geometry box(const Vector3d& size);
  static Geometry sphere(double radius);
  static Geometry capsule(double radius, double length);
  static Geometry cylinder(double radius, double length);
  static Geometry ellipsoid(const Vector3d& semiAxes);
  static Geometry plane();
  static Geometry convexMesh(std::vector<Vector3d> vertices);
  static Geometry triangleMesh(std::vector<Vector3d> vertices, std::vector<std::array<int, 3>> triangles);
};

struct Inertia;

/// The convex hull of a point set, in indices into the points (so its
/// corners keep their double-precision coordinates).
struct ConvexHull {
  std::vector<int> corners;                   ///< the points that are corners of the hull, ascending
  std::vector<std::vector<int>> faces;        ///< each face's corners in order, counter-clockwise seen from outside
  std::vector<std::array<int, 3>> triangles;  ///< the faces as fans of triangles, same orientation
};

/// The convex hull of `points` (Bullet's btConvexHullComputer). Points that
/// span no volume (fewer than four, all on a plane) give a hull without faces.
ConvexHull convexHull(const std::vector<Vector3d>& points);

/// Mass properties of a solid of uniform `density` (kg/m³) filling `g`, in
/// the shape's own frame: boxes, spheres, cylinders, capsules, ellipsoids,
/// and triangle meshes (the volume their closed surface bounds, either
/// orientation). Nothing for a plane, a convex mesh given by its vertices
/// alone, or a mesh that bounds no volume.
/// @throws InvalidArgument for a density or a size that is not positive and finite.
std::optional<Inertia> solidInertia(const Geometry& g, double density);

/// The solid a closed triangle surface bounds, at `density`, from the
/// signed tetrahedra of its triangles with the origin (so either
/// orientation, and any origin); nothing when the volume is zero.
std::optional<Inertia> solidMeshInertia(const std::vector<Vector3d>& vertices,
                                        const std::vector<std::array<int, 3>>& triangles, double density);

/// Contact material of a collision shape. For a contact between shapes A
/// and B the friction coefficient is √(μA·μB) and the restitution max(eA, eB).
struct Material {
  double friction = 0.8;     ///< Coulomb coefficient μ ≥ 0
  double restitution = 0.0;  ///< coefficient of restitution e ∈ [0, 1]
};

/// Construction data of a collision shape.
struct CollisionShapeOptions {
  std::string name;                          ///< unique in the world; empty = autogenerated ("shape", "shape_1", ...)
  Geometry geometry;                         ///< shape geometry
  Isometry3d pose = Isometry3d::Identity();  ///< pose of the shape frame in its owner frame
  Material material;
  bool collidable = true;  ///< false keeps the shape but excludes it from contact generation
};

/// Construction data of a visual shape.
struct VisualShapeOptions {
  std::string name;  ///< unique in the world; empty = autogenerated
  Geometry geometry;
  Isometry3d pose = Isometry3d::Identity();
  Vector4d color{0.7, 0.7, 0.7, 1.0};  ///< RGBA in [0, 1]
};

/// Handle to a collision or visual shape. Shapes belong to a link, a rigid
/// body or the world (static geometry). Adding and removing shapes, and
/// changing geometry or pose, is design-mode work; material, collidable
/// flag and colour may change in simulation mode.
class Shape {
 public:
  Shape() = default;
  bool isValid() const;
  std::string name() const;
  /// Renames the shape (design mode); unique in the world.
  void setName(const std::string& name);
  /// True for a collision shape, false for a visual shape.
  bool isCollision() const;
  /// The link, rigid body or world frame the shape is attached to.
  Frame getOwner() const;
  const Geometry& getGeometry() const;
  /// Replaces the geometry (design mode), checked as addCollisionShape /
  /// addVisualShape check it.
  void setGeometry(const Geometry& geometry);
  /// Pose of the shape frame in its owner frame.
  Isometry3d getLocalPose() const;
  void setLocalPose(const Isometry3d& pose);
  /// X_WS.
  Isometry3d getWorldTransform() const;
  /// Collision shapes only. @throws InvalidArgument on a visual shape.
  Material getMaterial() const;
  void setMaterial(const Material& material);
  bool isCollidable() const;
  void setCollidable(bool collidable);
  /// Visual shapes only.
  Vector4d getColor() const;
  void setColor(const Vector4d& rgba);

  friend bool operator==(const Shape& a, const Shape& b) {
    return a.m_world == b.m_world && a.m_index == b.m_index && a.m_generation == b.m_generation;
  }
  std::uint32_t index() const { return m_index; }
  std::uint32_t generation() const { return m_generation; }

 private:
  Shape(World* w, std::uint32_t i, std::uint32_t g) : m_world(w), m_index(i), m_generation(g) {}
  World* m_world = nullptr;
  std::uint32_t m_index = 0;
  std::uint32_t m_generation = 0;
  friend class World;
  friend struct detail::Access;
};

}  // namespace articula
