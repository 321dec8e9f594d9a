// articula.render: a world (or a recorded frame) drawn offscreen into a
// NumPy image, as `articula-run render` draws it.
#include "common.hpp"

#include <articula/viewer/camera.hpp>
#include <articula/viewer/debug_layers.hpp>
#include <articula/viewer/render_snapshot.hpp>
#include <articula/viewer/scene_description.hpp>
#include <articula/viewer/scene_view.hpp>
#include <articula/viewer/viewer_error.hpp>
#include <articula/viewer/viewport.hpp>

#include <memory>
#include <stdexcept>

namespace articula::python {

namespace {

std::string layerNames() {
  std::string names;
  for (const viewer::Layer l : viewer::allLayers()) names += (names.empty() ? "" : ", ") + viewer::layerName(l);
  return names;
}

std::uint32_t layerBits(const std::vector<std::string>& names) {
  std::uint32_t bits = 0;
  for (const std::string& n : names) {
    const std::optional<viewer::Layer> l = viewer::layerFromName(n);
    if (!l) throw InvalidArgument("render: unknown layer '" + n + "' (" + layerNames() + ")");
    bits |= static_cast<std::uint32_t>(*l);
  }
  return bits;
}

// One offscreen context for the process, made on first use and resized as
// asked (making a context costs far more than drawing a frame).
std::unique_ptr<viewer::Viewport>& sharedViewport() {
  static std::unique_ptr<viewer::Viewport> viewport;
  return viewport;
}

py::array_t<std::uint8_t> renderWorld(const World& world, int width, int height, const std::string& camera,
                                      const std::optional<std::vector<std::string>>& layers,
                                      const std::vector<std::string>& show, const std::vector<std::string>& hide) {
  if (width < 16 || height < 16 || width > 8192 || height > 8192) {
    throw InvalidArgument("render: width and height must be 16 to 8192 pixels");
  }
  viewer::CameraSpec spec;
  try {
    spec = viewer::parseCameraSpec(camera);
  } catch (const std::invalid_argument& e) {
    throw InvalidArgument(std::string("render: camera: ") + e.what());
  }
  std::uint32_t bits = layers ? layerBits(*layers) : viewer::kDefaultLayers;
  bits |= layerBits(show);
  bits &= ~layerBits(hide);

  auto description = std::make_shared<viewer::SceneDescription>(viewer::describeScene(world));
  viewer::RenderSnapshot snapshot;
  viewer::fillRenderSnapshot(world, *description, snapshot);
  snapshot.version = 1;
  viewer::SceneView scene;
  scene.setDescription(description);
  scene.applySnapshot(snapshot);
  scene.setLayers(bits);

  std::unique_ptr<viewer::Viewport>& viewport = sharedViewport();
  if (!viewport) {
    viewport = viewer::Viewport::createOffscreen(width, height);
  } else if (viewport->width() != width || viewport->height() != height) {
    viewport->resize(width, height);
  }
  viewport->setScene(&scene);
  viewport->setOverlayEnabled(false);
  viewer::OrbitCamera& orbit = viewport->camera();
  if (spec.hasEyeCenter) {
    orbit.setView(spec.eye, spec.center);
  } else {
    if (!spec.preset.empty() && spec.preset != "fit") orbit.setPreset(spec.preset);
    viewport->fitToScene();
  }
  viewport->renderFrame();
  const viewer::Image image = viewport->grab();
  viewport->setScene(nullptr);

  py::array_t<std::uint8_t> out({image.height, image.width, 4});
  std::copy(image.rgba.begin(), image.rgba.end(), out.mutable_data());
  return out;
}

}  // namespace

void bindRender(py::module_& m) {
  py::register_exception<viewer::ViewerError>(m, "ViewerError", m.attr("Error"));
  m.def(
      "render",
      [](const World& world, std::pair<int, int> size, const std::string& camera,
         std::optional<std::vector<std::string>> layers, const std::vector<std::string>& show,
         const std::vector<std::string>& hide) {
        return renderWorld(world, size.first, size.second, camera, layers, show, hide);
      },
      py::arg("world"), py::arg("size") = std::make_pair(640, 480), py::arg("camera") = std::string("iso"),
      py::arg("layers") = std::nullopt, py::arg("show") = std::vector<std::string>{},
      py::arg("hide") = std::vector<std::string>{},
      "The world drawn offscreen: a (height, width, 4) uint8 RGBA array, first row at the top.\n"
      "camera: a preset ('iso', 'front', 'side', 'top', ...), 'fit', or 'EX,EY,EZ:CX,CY,CZ'. layers "
      "replaces the default layers; show and hide add and remove some. Needs an X display (xvfb-run).");
  m.def(
      "render",
      [](const Recording& recording, std::size_t frame, World& world, std::pair<int, int> size,
         const std::string& camera, std::optional<std::vector<std::string>> layers,
         const std::vector<std::string>& show, const std::vector<std::string>& hide) {
        recording.restore(world, frame);
        return renderWorld(world, size.first, size.second, camera, layers, show, hide);
      },
      py::arg("recording"), py::arg("frame"), py::arg("world"), py::arg("size") = std::make_pair(640, 480),
      py::arg("camera") = std::string("iso"), py::arg("layers") = std::nullopt,
      py::arg("show") = std::vector<std::string>{}, py::arg("hide") = std::vector<std::string>{},
      "Frame `frame` of a recording, restored into `world` (the world it was recorded from), drawn.");
  m.def(
      "release_render_context", [] { sharedViewport().reset(); },
      "Frees the offscreen OpenGL context render() keeps between calls.");
  py::module_::import("atexit").attr("register")(py::cpp_function([] { sharedViewport().reset(); }));
}

}  // namespace articula::python
