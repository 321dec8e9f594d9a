#pragma once
/// @file
/// Typed exceptions thrown by the public API. Every user-facing failure
/// derives from articula::Error.

#include <stdexcept>
#include <string>

namespace articula {

/// Base class of every exception the library throws on bad input.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A handle is default-constructed, refers to a removed object, or was
/// invalidated by World::clear().
class InvalidHandle : public Error {
 public:
  using Error::Error;
};

/// The requested topology is invalid (name clash, wrong owner, cycle,
/// cross-world use, unsupported joint configuration, ...).
class TopologyError : public Error {
 public:
  using Error::Error;
};

/// The call is not allowed in the world's current mode (for example a
/// topology edit in simulation mode).
class LifecycleError : public Error {
 public:
  using Error::Error;
};

/// A numeric argument is out of range or has the wrong size.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// Recorded runtime state does not fit the world: its layout (bodies,
/// joints, closures, couplers, collision shapes, solver) differs from the
/// layout it was recorded with. The message names what differs.
class LayoutIncompatible : public Error {
 public:
  using Error::Error;
};

/// A replay file cannot be read or written: not a replay, another version,
/// truncated, corrupted (checksum), or an I/O failure. The message starts
/// with the file name.
class ReplayFileError : public Error {
 public:
  using Error::Error;
};

}  // namespace articula
