#include <articula/viewer/debug_layers.hpp>

namespace articula::viewer {

namespace {
struct LayerName {
  Layer layer;
  const char* name;
};
constexpr LayerName kNames[] = {
    {Layer::Visuals, "visuals"},          {Layer::Collision, "collision"},
    {Layer::Contacts, "contacts"},        {Layer::LinkFrames, "frames"},
    {Layer::JointAxes, "joints"},         {Layer::CentersOfMass, "com"},
    {Layer::Closures, "closures"},        {Layer::Grid, "grid"},
    {Layer::Selection, "selection"},      {Layer::Shadows, "shadows"},
    {Layer::JointForces, "joint-forces"},
};
}  // namespace

std::vector<Layer> allLayers() {
  std::vector<Layer> layers;
  for (const LayerName& n : kNames) layers.push_back(n.layer);
  return layers;
}

std::string layerName(Layer layer) {
  for (const LayerName& n : kNames) {
    if (n.layer == layer) return n.name;
  }
  return "unknown";
}

std::optional<Layer> layerFromName(const std::string& name) {
  for (const LayerName& n : kNames) {
    if (name == n.name) return n.layer;
  }
  return std::nullopt;
}

}  // namespace articula::viewer
