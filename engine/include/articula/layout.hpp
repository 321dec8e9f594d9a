#pragma once
/// @file
/// The layout fingerprint of a World: what recorded runtime state depends
/// on — the packing of q, v and forces, the bodies, joints, loop closures,
/// couplers, collision shapes and the solver's row layout — and nothing it
/// does not (sizes, masses, colours, meshes, the state itself). Two worlds
/// with equal fingerprints can exchange recorded states.

#include <cstdint>
#include <string>
#include <vector>

namespace articula {

class World;

struct LayoutFingerprint {
  /// One "key: value" line per element of the layout, in a fixed order
  /// (state sizes, solver, rigid bodies, multibodies and their joints, loop
  /// closures, couplers, collision shapes).
  std::vector<std::string> entries;
  std::uint64_t hash = 0;  ///< 64-bit FNV-1a of the entries

  friend bool operator==(const LayoutFingerprint& a, const LayoutFingerprint& b) {
    return a.hash == b.hash && a.entries == b.entries;
  }
};

LayoutFingerprint computeLayoutFingerprint(const World& world);
/// The hash of a fingerprint's entries (64-bit FNV-1a, each entry followed by a newline).
std::uint64_t layoutFingerprintHash(const std::vector<std::string>& entries);

/// What changed from `recorded` to `current`, one clause per difference
/// ("joint 'arm/elbow': revolute, 1 DoF → prismatic, 1 DoF", "loop closure
/// 'pin' removed", ...), at most `maxItems` of them and a count of the rest;
/// empty when the fingerprints are equal.
std::string describeLayoutDifference(const LayoutFingerprint& recorded, const LayoutFingerprint& current,
                                     std::size_t maxItems = 5);

}  // namespace articula
