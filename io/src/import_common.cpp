#include "import_common.hpp"
#include "input_guard.hpp"

#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace articula::io::detail {

// ---- resources -------------------------------------------------------------

namespace {

void appendEnvironmentPath(std::vector<fs::path>& out, const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr) return;
  std::string s(value);
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = std::min(s.find(':', start), s.size());
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
}

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

ResourceResolver::ResourceResolver(const ImportOptions& options, fs::path baseDirectory, bool sdf)
    : m_base(std::move(baseDirectory)) {
  m_searchPath = options.packagePath;
  if (options.useEnvironmentPaths) {
    appendEnvironmentPath(m_searchPath, "ARTICULA_PACKAGE_PATH");
    appendEnvironmentPath(m_searchPath, "ROS_PACKAGE_PATH");
    if (sdf) {
      appendEnvironmentPath(m_searchPath, "SDF_PATH");
      appendEnvironmentPath(m_searchPath, "GZ_SIM_RESOURCE_PATH");
    }
  }
  if (!m_base.empty()) {
    std::error_code ec;
    fs::path a = fs::absolute(m_base, ec);
    if (ec) a = m_base;
    for (; !a.empty(); a = a.parent_path()) {
      m_searchPath.push_back(a);
      if (a == a.parent_path()) break;
    }
  }
}

std::optional<fs::path> ResourceResolver::resolve(const std::string& uri, std::string* whyNot) const {
  auto fail = [&](const std::string& why) -> std::optional<fs::path> {
    if (whyNot != nullptr) *whyNot = why;
    return std::nullopt;
  };
  for (const char* scheme : {"package://", "model://"}) {
    const std::string prefix(scheme);
    if (uri.rfind(prefix, 0) != 0) continue;
    std::string rest = uri.substr(prefix.size());
    while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);  // "package:///pkg/..." is common
    const std::size_t slash = rest.find('/');
    if (slash == std::string::npos || slash == 0) return fail("'" + uri + "' names no file inside the package");
    const std::string package = rest.substr(0, slash);
    const fs::path inside = rest.substr(slash + 1);
    for (const fs::path& dir : m_searchPath) {
      if (isFile(dir / package / inside)) return dir / package / inside;
      if (dir.filename() == package && isFile(dir / inside)) return dir / inside;
    }
    // The first folders searched (the package path and the file's own
    // folders come first); the rest by count, to keep the message short.
    constexpr std::size_t kShown = 3;
    std::string tried;
    for (std::size_t i = 0; i < m_searchPath.size() && i < kShown; ++i) {
      tried += (i == 0 ? "" : ", ") + m_searchPath[i].string();
    }
    if (m_searchPath.size() > kShown) tried += " and " + std::to_string(m_searchPath.size() - kShown) + " more";
    if (tried.empty()) tried = "no folder";
    return fail("package '" + package + "' containing '" + inside.string() + "' was not found in the package path (" +
                tried + "); add its parent folder with --package-path or ARTICULA_PACKAGE_PATH");
  }
  fs::path p;
  if (uri.rfind("file://", 0) == 0) {
    p = uri.substr(7);
  } else if (uri.find("://") != std::string::npos) {
    return fail("unsupported URI scheme in '" + uri + "' (package://, model://, file:// or a path)");
  } else {
    p = uri;
  }
  if (p.is_relative()) p = m_base / p;
  if (!isFile(p)) return fail(missingFileReason(p));
  return p;
}

// ---- meshes ----------------------------------------------------------------

namespace {

struct CacheEntry {
  fs::file_time_type time;
  std::uintmax_t size = 0;
  std::shared_ptr<const MeshData> mesh;
};

std::mutex g_cacheMutex;
std::map<std::string, CacheEntry> g_cache;

std::shared_ptr<const MeshData> readMesh(const fs::path& file) {
  checkMeshFile(file);
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE, aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const aiScene* scene = importer.ReadFile(file.string(), aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                                                              aiProcess_PreTransformVertices | aiProcess_SortByPType |
                                                              aiProcess_DropNormals);
  if (scene == nullptr) throw Error(std::string("cannot read mesh: ") + importer.GetErrorString());
  auto out = std::make_shared<MeshData>();
  std::size_t runStart = 0;  // first triangle of the current submesh
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    const int base = static_cast<int>(out->vertices.size());
    for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
      const aiVector3D& v = mesh->mVertices[i];
      const Vector3d p(static_cast<double>(v.x), static_cast<double>(v.y), static_cast<double>(v.z));
      if (!p.allFinite()) throw Error("mesh has a non-finite vertex");
      out->vertices.push_back(p);
    }
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices != 3) continue;
      out->triangles.push_back({base + static_cast<int>(face.mIndices[0]), base + static_cast<int>(face.mIndices[1]),
                                base + static_cast<int>(face.mIndices[2])});
    }
    std::optional<Vector4d> color;
    if (mesh->mMaterialIndex < scene->mNumMaterials) {
      aiColor4D c;
      if (scene->mMaterials[mesh->mMaterialIndex]->Get(AI_MATKEY_COLOR_DIFFUSE, c) == AI_SUCCESS) {
        color = Vector4d(static_cast<double>(c.r), static_cast<double>(c.g), static_cast<double>(c.b),
                         static_cast<double>(c.a))
                    .cwiseMax(0.0)
                    .cwiseMin(1.0);
        if (!color->allFinite()) color.reset();
      }
    }
    if (!out->color) out->color = color;
    const int first = static_cast<int>(runStart);
    const int count = static_cast<int>(out->triangles.size() - runStart);
    runStart = out->triangles.size();
    if (count == 0 || !color) continue;
    if (!out->parts.empty() && out->parts.back().color == *color &&
        out->parts.back().firstTriangle + out->parts.back().triangleCount == first) {
      out->parts.back().triangleCount += count;
    } else {
      out->parts.push_back(MeshPart{first, count, *color});
    }
  }
  if (out->triangles.empty()) throw Error("mesh has no triangles");
  // One colour (or none) is the shape's colour, not parts. Submeshes
  // without a colour of their own are drawn in the shape's colour.
  bool several = false;
  for (const MeshPart& part : out->parts) several = several || part.color != out->parts.front().color;
  if (!several) out->parts.clear();
  return out;
}

}  // namespace

std::shared_ptr<const MeshData> loadMesh(const fs::path& file) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(file, ec);
  const std::string key = (ec ? file : canonical).string();
  const fs::file_time_type time = fs::last_write_time(file, ec);
  if (ec) throw Error("cannot read mesh '" + file.string() + "': " + ec.message());
  const std::uintmax_t size = fs::file_size(file, ec);
  {
    std::lock_guard<std::mutex> lock(g_cacheMutex);
    const auto it = g_cache.find(key);
    if (it != g_cache.end() && it->second.time == time && it->second.size == size) return it->second.mesh;
  }
  std::shared_ptr<const MeshData> mesh = readMesh(file);
  std::lock_guard<std::mutex> lock(g_cacheMutex);
  g_cache[key] = CacheEntry{time, size, mesh};
  return mesh;
}

Geometry meshGeometry(const fs::path& file, const Vector3d& scale, bool convexHull) {
  const std::shared_ptr<const MeshData> mesh = loadMesh(file);
  Geometry g;
  g.meshFile = file.string();
  g.meshScale = scale;
  if (!convexHull) {
    g.type = GeometryType::TriangleMesh;
    g.vertices.reserve(mesh->vertices.size());
    for (const Vector3d& v : mesh->vertices) g.vertices.push_back(v.cwiseProduct(scale));
    g.triangles = mesh->triangles;
    g.parts = mesh->parts;
    return g;
  }
  g.type = GeometryType::ConvexMesh;
  std::vector<Vector3d> scaled;
  scaled.reserve(mesh->vertices.size());
  for (const Vector3d& v : mesh->vertices) scaled.push_back(v.cwiseProduct(scale));
  // The hull's corners, as the file gives them (in double precision).
  const ConvexHull hull = articula::convexHull(scaled);
  if (hull.faces.empty()) throw Error("mesh '" + file.string() + "' is flat: its convex hull has no volume");
  for (const int corner : hull.corners) g.vertices.push_back(scaled[static_cast<std::size_t>(corner)]);
  return g;
}

// ---- transforms ------------------------------------------------------------

Isometry3d poseFromXyzRpy(const Vector3d& xyz, const Vector3d& rpy) {
  Isometry3d X = Isometry3d::Identity();
  X.linear() = (Eigen::AngleAxisd(rpy.z(), Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Vector3d::UnitY()) *
                Eigen::AngleAxisd(rpy.x(), Vector3d::UnitX()))
                   .toRotationMatrix();
  X.translation() = xyz;
  return X;
}

Matrix3d rotationWithZAlong(const Vector3d& axis) {
  return Eigen::Quaterniond::FromTwoVectors(Vector3d::UnitZ(), axis.normalized()).toRotationMatrix();
}

// ---- closures --------------------------------------------------------------

std::optional<LoopClosureFamily> closureFamilyForJointType(const std::string& type) {
  if (type == "revolute" || type == "continuous") return LoopClosureFamily::Hinge;
  if (type == "prismatic") return LoopClosureFamily::Slider;
  if (type == "fixed") return LoopClosureFamily::Rigid;
  if (type == "ball" || type == "spherical") return LoopClosureFamily::Point;
  if (type == "universal") return LoopClosureFamily::Universal;
  return std::nullopt;
}

void addCutClosure(World& world, const CutJoint& cut, LoopClosureFamily family, const std::string& reason,
                   const std::string& file, ImportReport& report) {
  // The joint frame on each side, turned so that the closure's axes are the
  // joint's: z along the axis (Hinge, Slider), x along the first and y along
  // the second axis (Universal).
  Matrix3d R = Matrix3d::Identity();
  if (family == LoopClosureFamily::Universal) {
    const Vector3d a1 = cut.axis.normalized();
    Vector3d a2 = cut.axis2 - a1.dot(cut.axis2) * a1;
    if (a2.norm() < 1e-9) {
      throw ImportError(file, cut.line, "universal joint '" + cut.name + "' has parallel axes");
    }
    a2.normalize();
    R.col(0) = a1;
    R.col(1) = a2;
    R.col(2) = a1.cross(a2);
  } else if (family == LoopClosureFamily::Hinge || family == LoopClosureFamily::Slider) {
    if (!(cut.axis.norm() > 1e-12)) throw ImportError(file, cut.line, "joint '" + cut.name + "' has a zero axis");
    R = rotationWithZAlong(cut.axis);
  }
  Isometry3d turn = Isometry3d::Identity();
  turn.linear() = R;
  LoopClosureSpec spec;
  spec.frameA = cut.parent;
  spec.frameB = cut.child;
  spec.family = family;
  spec.offsetA = cut.jointInParent * turn;
  spec.offsetB = cut.jointInChild * turn;
  try {
    world.addLoopClosure(cut.name, spec);
  } catch (const Error& e) {
    throw ImportError(file, cut.line, "loop-closing joint '" + cut.name + "': " + e.what());
  }
  report.cuts.push_back(LoopCut{cut.name, cut.name, family, reason, file, cut.line});
}

// ---- finishing -------------------------------------------------------------

void assembleClosures(World& world, const ImportOptions& options, const std::string& file, ImportReport& report) {
  if (world.numLoopClosures() + world.numJointCouplers() == 0) return;
  double before = 0.0;
  bool violated = false;
  for (const LoopClosure& c : world.getLoopClosures()) {
    const LoopClosureResidual r = c.computeResidual();
    before += r.norm * r.norm;
    if (r.norm > c.getRuntimePolicy().tolerance) violated = true;
  }
  for (const JointCoupler& c : world.getJointCouplers()) {
    const double r = c.computeResidual().residual;
    before += r * r;
    if (std::abs(r) > c.getRuntimePolicy().tolerance) violated = true;
  }
  before = std::sqrt(before);
  report.assembly.residualBefore = before;
  report.assembly.residualAfter = before;
  if (!violated || !options.assemble) return;
  ClosureProjectionResult result = world.projectClosures();
  // A drawing with every link in line (a four-bar drawn straight) is a
  // singular start: the residual has no first-order direction to go. Then
  // the projection starts again from the file's configuration turned by a
  // few tenths of a radian in a fixed pattern (deterministic), larger each
  // time.
  std::vector<std::pair<Joint, VectorXd>> start;
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Link& link : mb.getLinks()) {
      const Joint j = link.getParentJoint();
      if (j.numDofs() > 0 && j.numPositions() == j.numDofs()) start.emplace_back(j, j.getPositions());
    }
  }
  int attempt = 0;
  for (; !result.success && attempt < 4 && !start.empty(); ++attempt) {
    const double amplitude = 0.1 * (attempt + 1);
    int k = 0;
    for (auto& [joint, q0] : start) {
      VectorXd q = q0;
      for (Eigen::Index i = 0; i < q.size(); ++i) q[i] += amplitude * std::sin(1.0 + 2.3 * k++);
      joint.setPositions(q);
    }
    result = world.projectClosures();
  }
  if (result.success && attempt > 0) {
    std::ostringstream os;
    os << "the closed loops could not be assembled from the file's configuration (a singular start, e.g. links in "
          "line); they were assembled from it turned by up to "
       << 0.1 * attempt << " rad per joint";
    report.warnings.push_back(ReportEntry{file, 0, os.str()});
  }
  if (!result.success) {
    for (auto& [joint, q0] : start) joint.setPositions(q0);
  }
  report.assembly.performed = true;
  report.assembly.residualAfter = result.finalResidual;
  report.assembly.iterations = result.iterations;
  if (!result.success) {
    std::ostringstream os;
    os << "cannot assemble the closed loops and couplings: residual " << before << " → " << result.finalResidual
       << " after " << result.iterations << " iterations (" << result.message
       << "); fix the joint frames or import without assembly";
    throw ImportError(file, 0, os.str());
  }
}

void checkInertia(const Inertia& inertia, const std::string& what, const std::string& file, int line) {
  if (!std::isfinite(inertia.mass) || !inertia.com.allFinite() || !inertia.rotational.allFinite()) {
    throw ImportError(file, line, what + ": mass properties must be finite numbers");
  }
  if (inertia.mass < 0.0) {
    std::ostringstream os;
    os << what << ": mass " << inertia.mass << " is negative";
    throw ImportError(file, line, os.str());
  }
}

std::string repairInertia(Inertia& inertia, const std::string& what) {
  const Matrix3d symmetric = 0.5 * (inertia.rotational + inertia.rotational.transpose());
  Eigen::SelfAdjointEigenSolver<Matrix3d> es(symmetric);
  const Vector3d before = es.eigenvalues();  // ascending
  Vector3d ev = before.cwiseMax(0.0);
  const double scale = std::max(1e-12, ev.maxCoeff());
  const bool negative = before.minCoeff() < 0.0;
  const bool triangle = ev[0] + ev[1] < ev[2] - 1e-9 * scale;
  if (!negative && !triangle) return {};
  if (triangle) {
    // The smallest change that restores a real mass distribution: raise the
    // two smaller moments together until they sum to the largest.
    // (A margin of 1e-6 of the largest keeps the result inside the valid
    // set for readers that check it again with their own eigenvalue
    // solver: sdformat refused the two nearly equal moments of a repair
    // with a margin of 1e-9.)
    const double raise = 0.5 * (ev[2] - ev[0] - ev[1]) + 1e-6 * ev[2];
    ev[0] += raise;
    ev[1] += raise;
  }
  const Matrix3d V = es.eigenvectors();
  inertia.rotational = V * ev.asDiagonal() * V.transpose();
  inertia.rotational = 0.5 * (inertia.rotational + inertia.rotational.transpose()).eval();
  std::ostringstream os;
  os << what << ": principal moments of inertia " << before.transpose() << " "
     << (negative && triangle ? "include negative values and violate the triangle inequality"
         : negative           ? "include negative values"
                              : "violate the triangle inequality")
     << "; raised to " << ev.transpose();
  return os.str();
}

double lowestPoint(const Geometry& g, const Isometry3d& X_WS) {
  const Matrix3d& R = X_WS.linear();
  const double z = X_WS.translation().z();
  // Row z of R: how far each shape axis reaches down.
  const Vector3d down = R.row(2).transpose().cwiseAbs();
  switch (g.type) {
    case GeometryType::Sphere:
      return z - g.radius;
    case GeometryType::Box:
      return z - 0.5 * down.dot(g.size);
    case GeometryType::Ellipsoid:
      return z - R.row(2).transpose().cwiseProduct(g.size).norm();
    case GeometryType::Capsule:
      return z - 0.5 * g.length * down.z() - g.radius;
    case GeometryType::Cylinder:
      // The rim: half the length along the axis, the radius across it.
      return z - 0.5 * g.length * down.z() - g.radius * std::sqrt(std::max(0.0, 1.0 - down.z() * down.z()));
    case GeometryType::ConvexMesh:
    case GeometryType::TriangleMesh: {
      double lowest = std::numeric_limits<double>::infinity();
      for (const Vector3d& v : g.vertices) lowest = std::min(lowest, (X_WS * v).z());  // already scaled
      return lowest;
    }
    case GeometryType::Plane:
      break;
  }
  return std::numeric_limits<double>::infinity();
}

void addGround(World& world, const ImportOptions& options, const std::string& groundName) {
  for (const Shape& shape : world.getCollisionShapes(Frame::World())) {
    if (shape.getGeometry().type == GeometryType::Plane) return;  // the file has its ground
  }
  world.addGroundPlane(options.groundHeight, Material{}, groundName);
  if (!options.placeOnGround) return;
  for (const Multibody& mb : world.getMultibodies()) {
    const std::optional<Link> root = mb.getRootLink();
    if (!root) continue;
    const JointType type = root->getParentJoint().type();
    if (type != JointType::Free && type != JointType::Weld) continue;
    double lowest = std::numeric_limits<double>::infinity();
    for (const Link& link : mb.getLinks()) {
      for (const Shape& shape : link.getCollisionShapes()) {
        lowest = std::min(lowest, lowestPoint(shape.getGeometry(), shape.getWorldTransform()));
      }
    }
    if (!std::isfinite(lowest)) continue;
    Joint rootJoint = root->getParentJoint();
    const double rise = options.groundHeight - lowest;
    if (type == JointType::Free) {
      // Set down (or lifted) onto the ground: free-joint q = [p, quaternion].
      VectorXd q = rootJoint.getPositions();
      q[2] += rise;
      rootJoint.setPositions(q);
    } else if (rise > 0.0) {
      // A welded robot that reaches through the ground (legs of a humanoid
      // welded at the origin) is lifted until it stands on it; one that is
      // above the ground stays where the file mounts it.
      JointSpec spec = rootJoint.getSpec();
      spec.parentOffset.translation().z() += rise;
      rootJoint.setSpec(spec);
    }
  }
}

namespace {

// The solid sphere (m) a repaired link's mass is spread as.
constexpr double kRepairRadius = 0.05;

// A link or joint name as the file writes it, without "MULTIBODY/".
std::string localName(const Multibody& mb, const std::string& name) {
  const std::string prefix = mb.name() + "/";
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

// Whether the symmetric matrix M is singular (or not positive definite) to
// working precision: its smallest eigenvalue at most 1e-12 of its largest.
bool isSingular(const MatrixXd& M) {
  if (M.size() == 0) return false;
  const Eigen::SelfAdjointEigenSolver<MatrixXd> eig(M, Eigen::EigenvaluesOnly);
  if (eig.info() != Eigen::Success) return true;
  const double largest = eig.eigenvalues().cwiseAbs().maxCoeff();
  return !(eig.eigenvalues().minCoeff() > 1e-12 * largest);
}

}  // namespace

void giveMassToMasslessSubtrees(World& world, const std::string& file, ImportReport& report) {
  for (const Multibody& mb : world.getMultibodies()) {
    std::vector<Link> links = mb.getLinks();
    double total = 0.0;
    for (const Link& link : links) total += link.getInertia().mass;
    const double mass = total > 0.0 ? 0.01 * total : 1.0;
    // Subtree masses, leaves first: getLinks() lists parents before children.
    std::map<std::string, double> subtree;
    for (auto it = links.rbegin(); it != links.rend(); ++it) {
      double m = it->getInertia().mass;
      for (const Link& child : it->getChildLinks()) m += subtree[child.name()];
      if (m <= 0.0 && it->getParentJoint().numDofs() > 0) {
        Inertia given = Inertia::sphere(mass, kRepairRadius);
        it->setInertia(given);
        m = mass;
        std::ostringstream os;
        os << "link '" << localName(mb, it->name()) << "' moves (joint '" << localName(mb, it->getParentJoint().name())
           << "') but neither it nor the links it carries have mass; given " << mass << " kg (a solid sphere of "
           << kRepairRadius << " m at its origin) so that it can be simulated";
        report.warnings.push_back(ReportEntry{file, 0, os.str()});
      }
      subtree[it->name()] = m;
    }
    // A joint with several DoFs moving a body that has no mass of its own,
    // nor through links welded to it, is singular even when the links
    // beyond it have mass (a floating base without an inertial: it turns
    // about a child's hinge axis for free). Such a body gets the same mass.
    std::map<std::string, double> welded;  // own mass plus that of links welded below
    for (auto it = links.rbegin(); it != links.rend(); ++it) {
      double m = it->getInertia().mass;
      for (const Link& child : it->getChildLinks()) {
        if (child.getParentJoint().numDofs() == 0) m += welded[child.name()];
      }
      welded[it->name()] = m;
      if (m > 0.0 || it->getParentJoint().numDofs() < 2) continue;
      it->setInertia(Inertia::sphere(mass, kRepairRadius));
      welded[it->name()] = mass;
      std::ostringstream os;
      os << "link '" << localName(mb, it->name()) << "' moves with " << it->getParentJoint().numDofs()
         << " DoFs (joint '" << localName(mb, it->getParentJoint().name())
         << "') but has no mass of its own or through welded links; given " << mass << " kg (a solid sphere of "
         << kRepairRadius << " m at its origin) so that it can be simulated";
      report.warnings.push_back(ReportEntry{file, 0, os.str()});
    }
  }
}

void giveMassWhereMassMatrixIsSingular(World& world, const std::string& file, ImportReport& report) {
  for (const Multibody& mb : world.getMultibodies()) {
    if (!isSingular(mb.getMassMatrix())) continue;
    std::vector<Link> massless;
    for (const Link& link : mb.getLinks()) {
      if (link.getParentJoint().numDofs() > 0 && !(link.getInertia().mass > 0.0)) massless.push_back(link);
    }
    std::ostringstream os;
    if (massless.empty()) {
      os << "the mass matrix of '" << mb.name()
         << "' is singular at its initial pose (some joint moves neither mass nor rotational inertia); the model "
            "cannot be simulated as it is";
      report.warnings.push_back(ReportEntry{file, 0, os.str()});
      continue;
    }
    // 1 % of the model's mass, or as much as its lightest link with mass
    // when that is more (a model whose only masses are its fingers' should
    // not hang an arm of almost nothing on them).
    const double total = mb.getMass();
    double lightest = std::numeric_limits<double>::infinity();
    for (const Link& link : mb.getLinks()) {
      if (link.getInertia().mass > 0.0) lightest = std::min(lightest, link.getInertia().mass);
    }
    const double mass = total > 0.0 ? std::max(0.01 * total, lightest) : 1.0;
    for (Link& link : massless) link.setInertia(Inertia::sphere(mass, kRepairRadius));
    os << "the mass matrix of '" << mb.name() << "' is singular with the file's masses: its " << massless.size()
       << " moving link" << (massless.size() > 1 ? "s" : "") << " without mass (";
    for (std::size_t i = 0; i < massless.size(); ++i)
      os << (i > 0 ? ", '" : "'") << localName(mb, massless[i].name()) << "'";
    os << ") " << (massless.size() > 1 ? "were each" : "was") << " given " << mass << " kg (a solid sphere of "
       << kRepairRadius << " m at the link origin) so that it can be simulated";
    report.warnings.push_back(ReportEntry{file, 0, os.str()});
  }
}

void startInsideLimits(World& world, const std::string& file, ImportReport& report,
                       const std::function<int(const std::string& joint)>& lineOf) {
  for (const Multibody& mb : world.getMultibodies()) {
    for (Joint joint : mb.getJoints()) {
      if (joint.numPositions() != joint.numDofs()) continue;  // quaternion coordinates: no per-coordinate limit
      const JointSpec spec = joint.getSpec();
      for (int k = 0; k < joint.numDofs(); ++k) {
        const auto i = static_cast<Eigen::Index>(k);
        const double lo = i < spec.positionLowerLimits.size() ? spec.positionLowerLimits[i]
                                                              : -std::numeric_limits<double>::infinity();
        const double hi =
            i < spec.positionUpperLimits.size() ? spec.positionUpperLimits[i] : std::numeric_limits<double>::infinity();
        const double q = joint.getPosition(k);
        if (q >= lo && q <= hi) continue;
        const double start = std::clamp(q, lo, hi);
        joint.setPosition(k, start);
        const std::string name = localName(mb, joint.name());
        std::ostringstream os;
        os << "joint '" << name << "'" << (joint.numDofs() > 1 ? " coordinate " + std::to_string(k) : "")
           << " would start at " << q << ", outside its limits [" << lo << ", " << hi << "]; it starts at " << start;
        report.warnings.push_back(ReportEntry{file, lineOf ? lineOf(name) : 0, os.str()});
      }
    }
  }
}

void warnMasslessLinks(const World& world, const std::string& file, ImportReport& report) {
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Link& link : mb.getLinks()) {
      if (link.getParentJoint().numDofs() == 0) continue;
      if (link.getInertia().mass > 0.0) continue;
      report.warnings.push_back(ReportEntry{file, 0,
                                            "link '" + localName(mb, link.name()) + "' moves (joint '" +
                                                localName(mb, link.getParentJoint().name()) + "') but has no mass"});
    }
  }
}

[[noreturn]] void rethrowAsImportError(const std::string& file) {
  try {
    throw;
  } catch (const ImportError&) {
    throw;
  } catch (const std::exception& e) {
    throw ImportError(file, 0, e.what());
  }
}

std::optional<double> parseFiniteDouble(const std::string& text) {
  std::size_t b = 0;
  while (b < text.size() && std::isspace(static_cast<unsigned char>(text[b])) != 0) ++b;
  std::size_t e = text.size();
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])) != 0) --e;
  if (b < e && text[b] == '+') ++b;
  double v = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data() + b, text.data() + e, v);
  if (ec != std::errc() || ptr != text.data() + e || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::vector<double>> parseDoubles(const std::string& text, std::size_t n) {
  std::vector<double> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0) ++i;
    if (i == text.size()) break;
    std::size_t j = i;
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j])) == 0) ++j;
    const std::optional<double> v = parseFiniteDouble(text.substr(i, j - i));
    if (!v) return std::nullopt;
    out.push_back(*v);
    i = j;
  }
  if (out.size() != n) return std::nullopt;
  return out;
}

}  // namespace articula::io::detail

// ---- report ------------------------------------------------------------------

namespace articula::io {

namespace {

std::string number(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

std::string where(const std::string& file, int line) {
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

}  // namespace

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned>(c));
          out += buffer;
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

int addHoldingServos(World& world) {
  std::set<std::pair<std::string, int>> driven;
  for (const Actuator& a : world.getActuators()) {
    const ActuatorSpec s = a.getSpec();
    driven.emplace(s.joint, s.coordinate);
  }
  int added = 0;
  for (const Multibody& mb : world.getMultibodies()) {
    for (const Joint& j : mb.getJoints()) {
      const JointType type = j.getSpec().type;
      const int nv = numDofs(type);
      if (nv == 0 || numPositions(type) != nv) continue;  // fixed, ball, free
      const std::string joint = mb.name() + "/" + j.name();
      for (int k = 0; k < nv; ++k) {
        if (driven.count({joint, k}) != 0) continue;
        ActuatorSpec s;
        s.name = mb.name() + "_" + j.name() + (nv > 1 ? "_" + std::to_string(k) : std::string()) + "_hold";
        s.joint = joint;
        s.coordinate = k;
        s.type = ActuatorType::PositionServo;
        s.gravityCompensation = true;
        if (world.hasActuator(s.name)) s.name.clear();  // an automatic name
        world.addActuator(s);
        ++added;
      }
    }
  }
  return added;
}

std::string ImportReport::toText() const {
  std::ostringstream os;
  os << "import of " << file << " (" << format << "): " << cuts.size() << " loop cut(s), " << couplers.size()
     << " coupler(s), " << ignored.size() << " ignored element(s), " << warnings.size() << " warning(s), "
     << numMeshesLoaded << " mesh(es)\n";
  for (const LoopCut& c : cuts) {
    os << "  cut: " << where(c.file.empty() ? file : c.file, c.line) << ": joint '" << c.joint << "' → loop closure '"
       << c.closure << "' (" << toString(c.family) << "): " << c.reason << "\n";
  }
  for (const ActuatorMade& a : actuators) {
    os << "  actuator: " << where(a.file.empty() ? file : a.file, a.line) << ": '" << a.actuator << "' (" << a.type
       << ") on " << a.joint << " from " << a.interface << ", gear " << number(a.gear) << ", force limit "
       << number(a.forceLimit) << "\n";
  }
  for (const SensorMade& x : sensors) {
    os << "  sensor: " << where(x.file.empty() ? file : x.file, x.line) << ": '" << x.sensor << "' (" << x.type
       << ") on " << x.attachedTo << "\n";
  }
  for (const CouplerMade& c : couplers) {
    os << "  coupler: " << where(c.file.empty() ? file : c.file, c.line) << ": '" << c.coupler << "': " << c.follower
       << " = " << number(c.ratio) << "·" << c.leader << " + " << number(c.offset) << "\n";
  }
  if (assembly.performed) {
    os << "  assembled: closure residual " << number(assembly.residualBefore) << " → " << number(assembly.residualAfter)
       << " in " << assembly.iterations << " iteration(s)\n";
  }
  for (const ReportEntry& e : ignored) os << "  ignored: " << where(e.file, e.line) << ": " << e.message << "\n";
  for (const ReportEntry& e : warnings) os << "  warning: " << where(e.file, e.line) << ": " << e.message << "\n";
  return os.str();
}

std::string reportEntryKind(const std::string& message) {
  static const std::regex leadingTag(R"(^\s*<(/?[A-Za-z_][\w:.-]*))");
  static const std::regex quoted(R"('[^']*'|"[^"]*")");
  static const std::regex number(R"([-+]?\b\d+(\.\d+)?([eE][-+]?\d+)?\b)");
  std::smatch m;
  if (std::regex_search(message, m, leadingTag)) return "<" + m[1].str() + ">";
  std::string kind = std::regex_replace(message, quoted, "'…'");
  kind = std::regex_replace(kind, number, "N");
  const std::size_t b = kind.find_first_not_of(" \t");
  const std::size_t e = kind.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : kind.substr(b, e - b + 1);
}

std::vector<std::pair<std::string, int>> ImportReport::ignoredKinds() const {
  std::vector<std::pair<std::string, int>> kinds;
  for (const ReportEntry& e : ignored) {
    const std::string kind = reportEntryKind(e.message);
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == kind; });
    if (it == kinds.end()) {
      kinds.emplace_back(kind, 1);
    } else {
      ++it->second;
    }
  }
  return kinds;
}

std::string ImportReport::summary() const {
  std::ostringstream os;
  auto count = [](std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  std::vector<std::string> parts;
  if (!warnings.empty()) parts.push_back(count(warnings.size(), "warning", "warnings"));
  if (!cuts.empty()) parts.push_back(count(cuts.size(), "loop cut", "loops cut"));
  if (!couplers.empty()) parts.push_back(count(couplers.size(), "coupler", "couplers"));
  if (!actuators.empty()) parts.push_back(count(actuators.size(), "actuator", "actuators"));
  if (!sensors.empty()) parts.push_back(count(sensors.size(), "sensor", "sensors"));
  if (assembly.performed)
    parts.push_back("loops assembled (residual " + number(assembly.residualBefore) + " → " +
                    number(assembly.residualAfter) + ")");
  if (!ignored.empty()) {
    const std::size_t kinds = ignoredKinds().size();
    parts.push_back(count(ignored.size(), "ignored element", "ignored elements") + " of " +
                    count(kinds, "kind", "kinds"));
  }
  os << "import of " << file << " (" << format << "): ";
  if (parts.empty()) os << "nothing to report";
  for (std::size_t i = 0; i < parts.size(); ++i) os << (i ? ", " : "") << parts[i];
  return os.str();
}

std::string ImportReport::toJson() const {
  std::ostringstream os;
  auto entries = [&](const std::vector<ReportEntry>& list) {
    os << "[";
    for (std::size_t i = 0; i < list.size(); ++i) {
      os << (i ? "," : "") << "{\"file\":" << jsonString(list[i].file) << ",\"line\":" << list[i].line
         << ",\"message\":" << jsonString(list[i].message) << "}";
    }
    os << "]";
  };
  os << "{\"file\":" << jsonString(file) << ",\"format\":" << jsonString(format) << ",\"cuts\":[";
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    const LoopCut& c = cuts[i];
    os << (i ? "," : "") << "{\"joint\":" << jsonString(c.joint) << ",\"closure\":" << jsonString(c.closure)
       << ",\"family\":" << jsonString(std::string(toString(c.family))) << ",\"reason\":" << jsonString(c.reason)
       << ",\"file\":" << jsonString(c.file) << ",\"line\":" << c.line << "}";
  }
  os << "],\"couplers\":[";
  for (std::size_t i = 0; i < couplers.size(); ++i) {
    const CouplerMade& c = couplers[i];
    os << (i ? "," : "") << "{\"coupler\":" << jsonString(c.coupler) << ",\"leader\":" << jsonString(c.leader)
       << ",\"follower\":" << jsonString(c.follower) << ",\"ratio\":" << number(c.ratio)
       << ",\"offset\":" << number(c.offset) << ",\"file\":" << jsonString(c.file) << ",\"line\":" << c.line << "}";
  }
  os << "],\"actuators\":[";
  for (std::size_t i = 0; i < actuators.size(); ++i) {
    const ActuatorMade& a = actuators[i];
    os << (i ? "," : "") << "{\"actuator\":" << jsonString(a.actuator) << ",\"joint\":" << jsonString(a.joint)
       << ",\"type\":" << jsonString(a.type) << ",\"interface\":" << jsonString(a.interface)
       << ",\"gear\":" << number(a.gear)
       << ",\"force_limit\":" << (std::isfinite(a.forceLimit) ? number(a.forceLimit) : std::string("null"))
       << ",\"file\":" << jsonString(a.file) << ",\"line\":" << a.line << "}";
  }
  os << "],\"sensors\":[";
  for (std::size_t i = 0; i < sensors.size(); ++i) {
    const SensorMade& x = sensors[i];
    os << (i ? "," : "") << "{\"sensor\":" << jsonString(x.sensor) << ",\"type\":" << jsonString(x.type)
       << ",\"attached_to\":" << jsonString(x.attachedTo) << ",\"file\":" << jsonString(x.file)
       << ",\"line\":" << x.line << "}";
  }
  os << "],\"assembly\":{\"performed\":" << (assembly.performed ? "true" : "false")
     << ",\"residual_before\":" << number(assembly.residualBefore)
     << ",\"residual_after\":" << number(assembly.residualAfter) << ",\"iterations\":" << assembly.iterations
     << "},\"ignored\":";
  entries(ignored);
  os << ",\"warnings\":";
  entries(warnings);
  os << ",\"meshes\":" << numMeshesLoaded << "}";
  return os.str();
}

}  // namespace articula::io
