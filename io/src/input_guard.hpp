#pragma once
// Checks made before any reader touches a file: only regular files of a
// bounded size are read (articula/file_io.hpp), mesh files are screened
// before assimp parses them, and SDF include graphs are walked for cycles
// and unresolvable includes before sdformat follows them.

#include <articula/io/import.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace articula::io::detail {

/// Why a resolved path cannot be used: "file 'X' does not exist", or
/// "'X' is a FIFO, not a file" for a path that exists but is not a regular file.
std::string missingFileReason(const std::filesystem::path& file);

/// Deepest element nesting accepted in an XML mesh file (COLLADA): assimp
/// parses nodes recursively, and a deeper file would overflow the stack.
inline constexpr int kMaxMeshXmlDepth = 256;
/// Deepest chain of SDF includes (a model including a model ...).
inline constexpr int kMaxSdfIncludeDepth = 32;

/// The text of a scene, URDF or SDF file, at most kMaxTextFileBytes.
/// @throws ImportError (file, line 0) saying why the file cannot be read
/// ("is a FIFO, not a file", "is a directory, not a file", too large, ...).
std::string readTextInput(const std::filesystem::path& file);

/// Why the bytes of a mesh file cannot be handed to assimp, or empty when
/// they can: an XML file (COLLADA) nesting elements deeper than
/// kMaxMeshXmlDepth, or with more elements than its size can hold.
/// Linear in the size, no recursion.
std::string screenMeshBytes(std::string_view bytes);

/// Checks a mesh file before assimp opens it: a regular file of at most
/// kMaxMeshFileBytes that passes screenMeshBytes.
/// @throws Error "cannot read mesh 'FILE': PROBLEM".
void checkMeshFile(const std::filesystem::path& file);

/// Walks the `<include><uri>` graph of an SDF file (its text already read)
/// the way the importer resolves it. @throws ImportError with the file and
/// line of the offending include: a cycle (a model that includes itself,
/// directly or not), an include chain deeper than kMaxSdfIncludeDepth, an
/// include that cannot be resolved (at any depth), or an included file that
/// cannot be read.
/// `source` names the text in messages; relative includes resolve against
/// `baseDirectory` (the file's folder).
void checkSdfIncludes(const std::string& source, const std::filesystem::path& baseDirectory, const std::string& text,
                      const ImportOptions& options);

}  // namespace articula::io::detail
