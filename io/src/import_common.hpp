#pragma once
// Pieces shared by the URDF and SDF importers and the scene reader: package
// and URI resolution, mesh loading (assimp, cached per file), closures made
// from cut joints, assembly of the initial state, and the import report.

#include <articula/io/import.hpp>

#include <articula/articula.hpp>

#include <array>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace articula::io::detail {

// ---- resources -------------------------------------------------------------

/// Resolves `package://NAME/rest`, `model://NAME/rest`, `file://path` and
/// relative or absolute paths to existing files.
class ResourceResolver {
 public:
  /// `baseDirectory`: the folder of the file being imported (relative paths
  /// and the folders above it are searched). `sdf` adds SDF_PATH and
  /// GZ_SIM_RESOURCE_PATH to the search path.
  ResourceResolver(const ImportOptions& options, std::filesystem::path baseDirectory, bool sdf);

  /// The file the URI names, or nothing with `whyNot` saying what was tried.
  std::optional<std::filesystem::path> resolve(const std::string& uri, std::string* whyNot = nullptr) const;
  const std::vector<std::filesystem::path>& searchPath() const { return m_searchPath; }
  const std::filesystem::path& baseDirectory() const { return m_base; }

 private:
  std::filesystem::path m_base;
  std::vector<std::filesystem::path> m_searchPath;
};

// ---- meshes ----------------------------------------------------------------

/// A mesh file flattened into one triangle list (node transforms applied).
struct MeshData {
  std::vector<Vector3d> vertices;
  std::vector<std::array<int, 3>> triangles;
  std::optional<Vector4d> color;  ///< diffuse colour of the first material, if the file has one
  /// Colour per run of triangles when the file's submeshes have two or more
  /// different diffuse colours; empty otherwise.
  std::vector<MeshPart> parts;
};

/// Loads STL (ASCII, binary), OBJ, COLLADA and whatever else assimp reads.
/// Results are cached per file (and reloaded when the file changes).
/// @throws Error with the reason when the file cannot be read or has no triangles.
std::shared_ptr<const MeshData> loadMesh(const std::filesystem::path& file);

/// Geometry for a mesh file: TriangleMesh (visuals, static collision) or the
/// convex hull of the scaled vertices (ConvexMesh, moving collision). The
/// geometry remembers the file and the scale; a TriangleMesh carries the
/// file's coloured parts.
Geometry meshGeometry(const std::filesystem::path& file, const Vector3d& scale, bool convexHull);

// ---- transforms ------------------------------------------------------------

/// URDF/SDF pose: translation and roll-pitch-yaw (fixed axes X, then Y, then Z).
Isometry3d poseFromXyzRpy(const Vector3d& xyz, const Vector3d& rpy);
/// A rotation whose z axis is `axis` (unit length).
Matrix3d rotationWithZAlong(const Vector3d& axis);

// ---- closures from cut joints ---------------------------------------------

/// A joint of a file that closes a loop, in the terms of the engine.
struct CutJoint {
  std::string name;
  int line = 0;
  Frame parent;                                       ///< parent link (or the world)
  Frame child;                                        ///< child link
  Isometry3d jointInParent = Isometry3d::Identity();  ///< joint frame in the parent frame
  Isometry3d jointInChild = Isometry3d::Identity();   ///< joint frame in the child frame (equal at zero joint position)
  Vector3d axis = Vector3d::UnitZ();                  ///< first axis, joint frame
  Vector3d axis2 = Vector3d::UnitY();                 ///< second axis (universal), joint frame
};

/// The family of closure that keeps what the joint keeps: revolute and
/// continuous → Hinge, prismatic → Slider, fixed → Rigid, ball → Point,
/// universal → Universal. Nothing for joint types with no closure
/// equivalent.
std::optional<LoopClosureFamily> closureFamilyForJointType(const std::string& type);

/// Adds the LoopClosure for a cut joint and records it in the report.
/// @throws ImportError (file, line) when the joint type has no closure family.
void addCutClosure(World& world, const CutJoint& cut, LoopClosureFamily family, const std::string& reason,
                   const std::string& file, ImportReport& report);

// ---- finishing -------------------------------------------------------------

/// Projects violated closures onto their constraints (if the options ask for
/// it) and records the residual before and after.
/// @throws ImportError when the closures cannot be assembled.
void assembleClosures(World& world, const ImportOptions& options, const std::string& file, ImportReport& report);

/// Checks what no engine can simulate in mass properties read from a file:
/// non-finite numbers and negative mass (zero mass is a warning, see
/// warnMasslessLinks).
/// @throws ImportError naming `what`, file and line.
void checkInertia(const Inertia& inertia, const std::string& what, const std::string& file, int line);

/// Repairs what peers accept in a file's rotational inertia: negative
/// principal moments (round-off such as −5e-20 next to 0, or worse) are set
/// to zero, and moments that violate the triangle inequality (rounded CAD
/// output) are raised, the two smaller together, until they hold. Returns
/// the warning for the report — `what`, the principal moments before and
/// after — or an empty string when nothing changed.
std::string repairInertia(Inertia& inertia, const std::string& what);

/// The lowest world z of a shape's geometry at pose X_WS (planes: +inf).
double lowestPoint(const Geometry& geometry, const Isometry3d& X_WS);

/// Adds the ground plane the options ask for (at `groundHeight`) and, with
/// `placeOnGround`, moves every multibody whose root joint is free along z
/// until its lowest collision point rests on it, and lifts every welded one
/// that reaches below it until it stands on it.
void addGround(World& world, const ImportOptions& options, const std::string& groundName = "ground");

/// A moving link whose whole subtree has no mass (visual-only links of
/// teaching files, xacro leftovers) makes the mass matrix singular. Each
/// such link gets a small mass — 1 % of its model's mass, 1 kg for a model
/// without any — spread as a solid sphere of 5 cm radius at its origin,
/// with a warning, so the model can be simulated.
void giveMassToMasslessSubtrees(World& world, const std::string& file, ImportReport& report);

/// When a multibody's mass matrix is singular at its initial pose with the
/// masses the file gives (a chain whose moving links have no mass but a
/// link far down the chain does: the chain turns about some axis for free),
/// gives each of its moving links without mass 1 % of the model's mass, or
/// the mass of its lightest link with mass when that is more (as a solid
/// sphere of 5 cm radius at the link origin), with one warning naming them.
void giveMassWhereMassMatrixIsSingular(World& world, const std::string& file, ImportReport& report);

/// Moves every joint coordinate that starts outside its joint's limits onto
/// the nearest limit, with a warning (a limit row would otherwise take the
/// whole violation out in the first step, with a kick of the violation
/// over the time step). `lineOf` gives a joint's line in the file (0 if
/// unknown). Joints with a quaternion are left alone.
void startInsideLimits(World& world, const std::string& file, ImportReport& report,
                       const std::function<int(const std::string& joint)>& lineOf = {});

/// Warns about moving links without mass.
void warnMasslessLinks(const World& world, const std::string& file, ImportReport& report);

/// Clears the world and rethrows as ImportError when the body throws.
template <class F>
ImportReport guardedImport(World& world, const std::string& file, F&& body);

[[noreturn]] void rethrowAsImportError(const std::string& file);

/// Parses a double the way the file formats write them; nothing for
/// malformed or non-finite text.
std::optional<double> parseFiniteDouble(const std::string& text);
/// Parses N whitespace-separated finite doubles.
std::optional<std::vector<double>> parseDoubles(const std::string& text, std::size_t n);

template <class F>
ImportReport guardedImport(World& world, const std::string& file, F&& body) {
  if (world.isSimulationMode()) {
    throw ImportError(file, 0, "the world must be in design mode to import into it");
  }
  if (world.numMultibodies() != 0 || world.numRigidBodies() != 0 || world.numShapes() != 0 ||
      world.numLoopClosures() != 0) {
    throw ImportError(file, 0, "the world must be empty to import into it");
  }
  // The file is read into a world of its own, then applied to `world` in
  // one go: a failure anywhere leaves `world` exactly as it was.
  World scratch(world.getOptions());
  ImportReport report;
  try {
    report = body(scratch);
    world.applySpec(scratch.getSpec(), SpecStatePolicy::FromSpec);
  } catch (...) {
    rethrowAsImportError(file);
  }
  return report;
}

}  // namespace articula::io::detail
