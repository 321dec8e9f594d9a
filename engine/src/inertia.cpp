// Mass properties of solids and their sums: the formulas of the primitive
// shapes, the volume integral of a closed triangle mesh, and the
// parallel-axis sum every importer and the studio use.
#include <articula/error.hpp>
#include <articula/options.hpp>
#include <articula/shape.hpp>

#include <cmath>
#include <numbers>
#include <sstream>

namespace articula {

namespace {

constexpr double kPi = std::numbers::pi;

void requirePositive(double value, const char* what) {
  if (!std::isfinite(value) || value <= 0.0) {
    std::ostringstream os;
    os << what << " must be positive and finite (got " << value << ")";
    throw InvalidArgument(os.str());
  }
}

// m (|d|² 1 − d dᵀ): what a mass m at offset d adds to an inertia about the origin.
Matrix3d shift(double mass, const Vector3d& d) {
  return mass * (d.squaredNorm() * Matrix3d::Identity() - d * d.transpose());
}

}  // namespace

Inertia Inertia::box(double mass, const Vector3d& size) {
  Inertia in;
  in.mass = mass;
  const Vector3d s2 = size.cwiseProduct(size);
  in.rotational = (mass / 12.0 * Vector3d(s2.y() + s2.z(), s2.x() + s2.z(), s2.x() + s2.y())).asDiagonal();
  return in;
}

Inertia Inertia::sphere(double mass, double radius) {
  Inertia in;
  in.mass = mass;
  in.rotational = Matrix3d::Identity() * (0.4 * mass * radius * radius);
  return in;
}

Inertia Inertia::cylinder(double mass, double radius, double length) {
  Inertia in;
  in.mass = mass;
  const double side = mass * (3.0 * radius * radius + length * length) / 12.0;
  in.rotational = Vector3d(side, side, 0.5 * mass * radius * radius).asDiagonal();
  return in;
}

Inertia Inertia::pointMass(double mass, const Vector3d& com) {
  Inertia in;
  in.mass = mass;
  in.com = com;
  in.rotational.setZero();
  return in;
}

Inertia Inertia::capsule(double mass, double radius, double length) {
  // Split by volume between the cylinder and the two hemispheres. A
  // hemisphere of mass m has its centre 3r/8 from its flat face and 2/5 m r²
  // about a diameter of that face; about the capsule's centre, l/2 + 3r/8
  // from its own centre, that is m (2/5 r² + l²/4 + 3 l r / 8).
  const double r = radius;
  const double l = length;
  const double cylinderVolume = kPi * r * r * l;
  const double spheresVolume = 4.0 / 3.0 * kPi * r * r * r;
  const double total = cylinderVolume + spheresVolume;
  const double mc = total > 0.0 ? mass * cylinderVolume / total : 0.0;
  const double ms = mass - mc;
  Inertia in;
  in.mass = mass;
  const double side = mc * (3.0 * r * r + l * l) / 12.0 + ms * (0.4 * r * r + 0.25 * l * l + 0.375 * l * r);
  const double axial = 0.5 * mc * r * r + 0.4 * ms * r * r;
  in.rotational = Vector3d(side, side, axial).asDiagonal();
  return in;
}

Inertia Inertia::ellipsoid(double mass, const Vector3d& semiAxes) {
  const Vector3d a2 = semiAxes.cwiseProduct(semiAxes);
  Inertia in;
  in.mass = mass;
  in.rotational = (mass / 5.0 * Vector3d(a2.y() + a2.z(), a2.x() + a2.z(), a2.x() + a2.y())).asDiagonal();
  return in;
}

Inertia Inertia::zero() {
  Inertia in;
  in.mass = 0.0;
  in.rotational.setZero();
  return in;
}

Inertia& Inertia::add(const Inertia& part, const Isometry3d& X) {
  const double total = mass + part.mass;
  if (!(total > 0.0)) return *this;
  const Vector3d c = X * part.com;
  const Vector3d centre = (mass * com + part.mass * c) / total;
  const Matrix3d& R = X.linear();
  rotational =
      rotational + shift(mass, com - centre) + R * part.rotational * R.transpose() + shift(part.mass, c - centre);
  rotational = (0.5 * (rotational + rotational.transpose())).eval();  // the round-off asymmetry of the sums
  mass = total;
  com = centre;
  return *this;
}

std::optional<Inertia> solidMeshInertia(const std::vector<Vector3d>& vertices,
                                        const std::vector<std::array<int, 3>>& triangles, double density) {
  requirePositive(density, "density");
  // Signed tetrahedra (origin, a, b, c): volume, first and second moments.
  double volume = 0.0;
  Vector3d first = Vector3d::Zero();
  Matrix3d second = Matrix3d::Zero();  // ∫ x xᵀ dV
  const auto n = static_cast<int>(vertices.size());
  for (const auto& t : triangles) {
    if (t[0] < 0 || t[1] < 0 || t[2] < 0 || t[0] >= n || t[1] >= n || t[2] >= n) {
      throw InvalidArgument("a mesh triangle refers to a vertex that does not exist");
    }
    const Vector3d& a = vertices[static_cast<std::size_t>(t[0])];
    const Vector3d& b = vertices[static_cast<std::size_t>(t[1])];
    const Vector3d& c = vertices[static_cast<std::size_t>(t[2])];
    const double v = a.dot(b.cross(c)) / 6.0;
    const Vector3d s = a + b + c;
    volume += v;
    first += v * s / 4.0;
    second += v / 20.0 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  if (volume < 0.0) {  // triangles facing inwards
    volume = -volume;
    first = -first;
    second = -second;
  }
  if (!(volume > 1e-15)) return std::nullopt;
  Inertia in;
  in.mass = density * volume;
  in.com = first / volume;
  const Matrix3d aboutCom = density * (second - volume * in.com * in.com.transpose());
  in.rotational = Matrix3d::Identity() * aboutCom.trace() - aboutCom;
  return in;
}

std::optional<Inertia> solidInertia(const Geometry& g, double density) {
  requirePositive(density, "density");
  switch (g.type) {
    case GeometryType::Box:
      requirePositive(g.size.x(), "box size x");
      requirePositive(g.size.y(), "box size y");
      requirePositive(g.size.z(), "box size z");
      return Inertia::box(density * g.size.prod(), g.size);
    case GeometryType::Sphere:
      requirePositive(g.radius, "sphere radius");
      return Inertia::sphere(density * 4.0 / 3.0 * kPi * g.radius * g.radius * g.radius, g.radius);
    case GeometryType::Cylinder:
      requirePositive(g.radius, "cylinder radius");
      requirePositive(g.length, "cylinder length");
      return Inertia::cylinder(density * kPi * g.radius * g.radius * g.length, g.radius, g.length);
    case GeometryType::Capsule: {
      requirePositive(g.radius, "capsule radius");
      if (!std::isfinite(g.length) || g.length < 0.0) requirePositive(g.length, "capsule length");
      const double r = g.radius;
      return Inertia::capsule(density * (kPi * r * r * g.length + 4.0 / 3.0 * kPi * r * r * r), r, g.length);
    }
    case GeometryType::Ellipsoid:
      requirePositive(g.size.x(), "ellipsoid semi-axis x");
      requirePositive(g.size.y(), "ellipsoid semi-axis y");
      requirePositive(g.size.z(), "ellipsoid semi-axis z");
      return Inertia::ellipsoid(density * 4.0 / 3.0 * kPi * g.size.prod(), g.size);
    case GeometryType::TriangleMesh:
      return solidMeshInertia(g.vertices, g.triangles, density);  // the vertices carry the mesh scale
    case GeometryType::Plane:
    case GeometryType::ConvexMesh:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace articula
