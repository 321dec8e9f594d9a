#pragma once
/// @file
/// Importing robot and scene descriptions into a World: URDF (closed loops
/// found and cut into LoopClosures, `<mimic>` into JointCouplers), SDF
/// (worlds and models, `must_be_loop_joint`, gearbox joints), MJCF (MuJoCo
/// models, equality constraints into LoopClosures) and the native
/// `.articula` format. Every import returns an ImportReport that says what
/// was cut, assembled, ignored or suspicious; every failure is an
/// ImportError naming file, line and problem, with the World left empty.
/// docs/import.md describes the rules.

#include <articula/io/scene_file.hpp>
#include <articula/loop_closure.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace articula::io {

/// How the root link of an imported model is attached to the world.
enum class RootAttachment {
  Default,   ///< as the file says: URDF fixed (unless the root is joined to a link named "world"), SDF floating unless
             ///< joined to the world
  Fixed,     ///< welded to the world
  Floating,  ///< a six-DoF free joint
};

struct ImportOptions {
  RootAttachment root = RootAttachment::Default;
  /// Folders searched for `package://NAME/...` (the folder that contains
  /// NAME/) and for SDF `model://` includes, before ARTICULA_PACKAGE_PATH,
  /// ROS_PACKAGE_PATH (and GZ/SDF model paths for SDF) and the folders above
  /// the imported file.
  std::vector<std::filesystem::path> packagePath;
  bool useEnvironmentPaths = true;  ///< read ARTICULA_PACKAGE_PATH, ROS_PACKAGE_PATH, SDF_PATH, GZ_SIM_RESOURCE_PATH
  /// Assemble the initial state with the kinematic projection when a loop
  /// closure's residual exceeds its tolerance; failure is an ImportError.
  bool assemble = true;
  bool loadMeshes = true;  ///< false: mesh geometry is skipped (reported), e.g. for topology-only inspection
  bool addGroundPlane =
      false;  ///< add a ground plane at z = groundHeight when the file has none (SDF worlds carry their own)
  double groundHeight = 0.0;  ///< height of the added ground plane (m, world z up)
  /// With an added ground plane, a model whose root floats (free joint) is
  /// moved along z so that its lowest collision point rests on the ground;
  /// a welded one that reaches below the ground is lifted onto it.
  bool placeOnGround = true;
};

/// One closing joint that became a LoopClosure.
struct LoopCut {
  std::string joint;    ///< the joint in the file
  std::string closure;  ///< the LoopClosure created for it (same name as the joint)
  LoopClosureFamily family = LoopClosureFamily::Rigid;
  std::string reason;  ///< why this joint, and not another one, was cut
  std::string file;    ///< the file that declares the joint (an included file for SDF)
  int line = 0;
};

/// One mimic or gearbox joint that became a JointCoupler.
struct CouplerMade {
  std::string coupler;
  std::string leader;
  std::string follower;
  double ratio = 1.0;
  double offset = 0.0;
  std::string file;
  int line = 0;
};

/// An actuator made from a file's description (a URDF <transmission>).
struct ActuatorMade {
  std::string actuator;   ///< its name in the world
  std::string joint;      ///< "multibody/joint"
  std::string type;       ///< toString(ActuatorType)
  std::string interface;  ///< the hardware interface it stands for ("PositionJointInterface", ...)
  double gear = 1.0;
  double forceLimit = 0.0;  ///< |force| bound (N·m or N), +inf when none
  std::string file;
  int line = 0;
};

/// A sensor made from a file's description (an SDF <sensor>).
struct SensorMade {
  std::string sensor;      ///< its name in the world
  std::string type;        ///< toString(SensorType)
  std::string attachedTo;  ///< frame or joint
  std::string file;
  int line = 0;
};

/// Something the file contains that is not imported, or imported with a
/// caveat.
struct ReportEntry {
  std::string file;
  int line = 0;
  std::string message;
};

struct AssemblyReport {
  bool performed = false;       ///< closures or couplers were violated and the projection ran
  double residualBefore = 0.0;  ///< stacked closure and coupler residual norm before
  double residualAfter = 0.0;   ///< and after
  int iterations = 0;
};

struct ImportReport {
  std::string file;    ///< the file imported (or the source name of a string)
  std::string format;  ///< "urdf", "sdf", "mjcf" or "articula"
  std::vector<LoopCut> cuts;
  std::vector<CouplerMade> couplers;
  std::vector<ActuatorMade> actuators;
  std::vector<SensorMade> sensors;
  std::vector<ReportEntry> ignored;   ///< elements not imported (file, line, what and why)
  std::vector<ReportEntry> warnings;  ///< imported, but suspicious (zero mass on a moving link, ...)
  AssemblyReport assembly;
  int numMeshesLoaded = 0;
  /// The `<recording>` section of a native scene file, if it has one.
  std::optional<SceneRecording> recording;

  /// Human-readable, one finding per line (what `--verbose` and the app show).
  std::string toText() const;
  /// One line: the counts of each kind of finding, ignored elements grouped
  /// by kind ("138 ignored elements of 3 kinds"), no trailing newline.
  std::string summary() const;
  /// The ignored elements grouped by kind (the element or the reason that
  /// leads their message, e.g. "<gazebo>"), with their counts.
  std::vector<std::pair<std::string, int>> ignoredKinds() const;
  /// A JSON object with the same content.
  std::string toJson() const;
};

/// The kind of a report entry, for grouping: the element that leads its
/// message ("<gazebo>" for "<gazebo reference='x'> not imported"), or the
/// message with quoted names and numbers blanked ("joint '…': velocity limit
/// N read as no limit").
std::string reportEntryKind(const std::string& message);

/// `text` as a JSON string literal, quotes and escapes included (the
/// report's JSON and the runner's use it).
std::string jsonString(const std::string& text);

/// Gives every joint coordinate that has a position (revolute, prismatic,
/// screw, universal, planar, ... — not ball or free joints) and no actuator a
/// gravity-compensated position servo with default gains that holds the
/// current pose (`articula-run --hold`). Design mode. Returns how many it added.
int addHoldingServos(World& world);

/// Reads a URDF file (or text) into `world`, which must be empty and in
/// design mode. Relative mesh paths resolve against `file`'s folder (for a
/// string: against `baseDirectory`).
ImportReport importUrdf(World& world, const std::filesystem::path& file, const ImportOptions& options = {});
ImportReport importUrdfFromString(World& world, const std::string& text, const std::string& sourceName = "<string>",
                                  const std::filesystem::path& baseDirectory = {}, const ImportOptions& options = {});

/// Reads an SDF world or model file (`.sdf`, `.world`) into `world`.
ImportReport importSdf(World& world, const std::filesystem::path& file, const ImportOptions& options = {});
ImportReport importSdfFromString(World& world, const std::string& text, const std::string& sourceName = "<string>",
                                 const std::filesystem::path& baseDirectory = {}, const ImportOptions& options = {});

/// Reads an MJCF (MuJoCo XML) model into `world`: bodies, joints, geoms,
/// meshes, default classes, equality constraints (as LoopClosures and
/// JointCouplers), actuators, sensors, keyframes and `<include>`d files.
ImportReport importMjcf(World& world, const std::filesystem::path& file, const ImportOptions& options = {});
ImportReport importMjcfFromString(World& world, const std::string& text, const std::string& sourceName = "<string>",
                                  const std::filesystem::path& baseDirectory = {}, const ImportOptions& options = {});

/// Chooses the reader by extension: `.urdf`, `.sdf`, `.world`, `.articula`,
/// `.mjcf`; a `.xml` file by its root element (`<robot>`, `<sdf>`,
/// `<mujoco>`, `<articula>`). @throws ImportError for an
/// unknown extension.
ImportReport importFile(World& world, const std::filesystem::path& file, const ImportOptions& options = {});

}  // namespace articula::io
