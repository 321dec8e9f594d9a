// libFuzzer target: the native scene reader on arbitrary bytes. Every input
// either loads (and then saves and loads again to the same text) or gives an
// ImportError with the World left empty; anything else is a bug.
#include <articula/io/scene_file.hpp>

#include <articula/articula.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  articula::World world;
  try {
    articula::io::loadSceneFromString(world, text, "fuzz.articula");
  } catch (const articula::io::ImportError&) {
    if (world.numMultibodies() != 0 || world.numRigidBodies() != 0 || world.numShapes() != 0 ||
        world.numLoopClosures() != 0 || world.numJointCouplers() != 0) {
      std::abort();
    }
    return 0;
  }
  const std::string saved = articula::io::sceneToString(world);
  articula::World again;
  articula::io::loadSceneFromString(again, saved, "fuzz-resaved.articula");
  if (articula::io::sceneToString(again) != saved) std::abort();
  return 0;
}
