#pragma once
/// @file
/// The viewer's error: no OpenGL context, a file that cannot be written or
/// read, a bad camera specification.

#include <articula/error.hpp>

namespace articula::viewer {

class ViewerError : public Error {
 public:
  using Error::Error;
};

}  // namespace articula::viewer
