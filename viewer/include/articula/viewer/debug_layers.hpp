#pragma once
/// @file
/// The layers the viewer can show or hide.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace articula::viewer {

enum class Layer : std::uint32_t {
  Visuals = 1u << 0,        ///< visual shapes
  Collision = 1u << 1,      ///< collision shapes (translucent, one colour)
  Contacts = 1u << 2,       ///< contact points, normals and force arrows
  LinkFrames = 1u << 3,     ///< body frames (red x, green y, blue z)
  JointAxes = 1u << 4,      ///< joint axes (yellow)
  CentersOfMass = 1u << 5,  ///< body and system centres of mass
  Closures = 1u << 6,       ///< loop-closure endpoints, line coloured by residual
  Grid = 1u << 7,           ///< ground grid (±10 m, 0.5 m cells) at the height of the ground plane, else z = 0
  Selection = 1u << 8,      ///< highlight of the selected bodies
  Shadows =
      1u
      << 9,  ///< shadows of the visual shapes on the ground plane (planar, along the sun; none without a ground plane)
  JointForces = 1u << 10,  ///< the force each joint carries (parent on child), an arrow at the joint (orange)
};

/// Layers shown by default: visuals, grid, selection, closures, shadows.
inline constexpr std::uint32_t kDefaultLayers =
    static_cast<std::uint32_t>(Layer::Visuals) | static_cast<std::uint32_t>(Layer::Grid) |
    static_cast<std::uint32_t>(Layer::Selection) | static_cast<std::uint32_t>(Layer::Closures) |
    static_cast<std::uint32_t>(Layer::Shadows);

/// Every layer, in declaration order.
std::vector<Layer> allLayers();
/// "visuals", "collision", "contacts", "frames", "joints", "com", "closures", "grid", "selection", "shadows".
std::string layerName(Layer layer);
std::optional<Layer> layerFromName(const std::string& name);

}  // namespace articula::viewer
