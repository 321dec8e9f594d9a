// libFuzzer target: the checks a mesh file passes before assimp parses it
// (io/src/input_guard.cpp, screenMeshBytes). Arbitrary bytes must never
// crash or hang the screen, and what it accepts must not nest XML elements
// deeper than the limit: a second, deliberately simple count (tags only,
// no comments or quoting) bounds the depth from above for inputs without
// comments, CDATA or quotes, where both counts must agree.
#include "input_guard.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

// Depth of "<name ...>" minus "</name>" for text without '!', '?', quotes.
int simpleDepth(std::string_view s) {
  int depth = 0;
  int deepest = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '<') continue;
    const std::size_t end = s.find('>', i);
    if (end == std::string_view::npos) break;
    if (i + 1 < s.size() && s[i + 1] == '/') {
      depth = depth > 0 ? depth - 1 : 0;
    } else if (s[end - 1] != '/') {
      ++depth;
      if (depth > deepest) deepest = depth;
    }
    i = end;
  }
  return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string problem = articula::io::detail::screenMeshBytes(bytes);
  const bool plain = bytes.find_first_of("!?\"'") == std::string_view::npos;
  const std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (plain && first != std::string_view::npos && bytes[first] == '<') {
    const bool tooDeep = simpleDepth(bytes) > articula::io::detail::kMaxMeshXmlDepth;
    if (tooDeep != !problem.empty()) std::abort();
  }
  return 0;
}
