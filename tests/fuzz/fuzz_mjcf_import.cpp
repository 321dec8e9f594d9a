// libFuzzer target: the MJCF reader on arbitrary bytes. Every input either
// imports — and then its MJCF export imports again — or gives an
// ImportError with the World left empty; anything else is a bug.
#include <articula/io/export.hpp>
#include <articula/io/import.hpp>

#include <articula/articula.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  articula::io::ImportOptions options;
  options.useEnvironmentPaths = false;
  options.loadMeshes = false;
  options.assemble = false;
  articula::World world;
  try {
    articula::io::importMjcfFromString(world, text, "fuzz.xml", {}, options);
  } catch (const articula::io::ImportError&) {
    if (world.numMultibodies() != 0 || world.numRigidBodies() != 0 || world.numShapes() != 0 ||
        world.numLoopClosures() != 0 || world.numJointCouplers() != 0) {
      std::abort();
    }
    return 0;
  }
  articula::io::ExportReport report;
  const std::string written = articula::io::toMjcf(world.getSpec(), report);
  articula::World again;
  try {
    articula::io::importMjcfFromString(again, written, "fuzz-exported.xml", {}, options);
  } catch (const articula::io::ImportError&) {
    std::abort();  // what the writer writes, the reader reads
  }
  return 0;
}
