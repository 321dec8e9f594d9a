#include <articula/viewer/image.hpp>

#include <articula/file_io.hpp>
#include <osg/Image>

#include <osgDB/ReadFile>
#include <osgDB/Registry>
#include <osgDB/WriteFile>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace articula::viewer {

Rgba Image::at(int x, int y) const {
  if (x < 0 || y < 0 || x >= width || y >= height) return Rgba{0, 0, 0, 0};
  const std::size_t i =
      4 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x));
  return Rgba{rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]};
}

std::size_t Image::countDifferent(const Image& other, int tolerance) const {
  if (width != other.width || height != other.height) {
    return static_cast<std::size_t>(std::max(width * height, other.width * other.height));
  }
  std::size_t n = 0;
  for (std::size_t i = 0; i < rgba.size(); i += 4) {
    for (std::size_t c = 0; c < 4; ++c) {
      if (std::abs(int{rgba[i + c]} - int{other.rgba[i + c]}) > tolerance) {
        ++n;
        break;
      }
    }
  }
  return n;
}

void savePng(const Image& image, const std::filesystem::path& file) {
  if (image.empty()) throw ViewerError(file.string() + ": cannot write an empty image");
  osg::ref_ptr<osg::Image> img = new osg::Image;
  img->allocateImage(image.width, image.height, 1, GL_RGBA, GL_UNSIGNED_BYTE);
  // OpenSceneGraph images start at the bottom row.
  const auto rowBytes = static_cast<std::size_t>(image.width) * 4;
  for (int y = 0; y < image.height; ++y) {
    std::memcpy(img->data(0, image.height - 1 - y), image.rgba.data() + static_cast<std::size_t>(y) * rowBytes,
                rowBytes);
  }
  // Encoded in memory, then written atomically (file_io.hpp): a failed
  // write leaves the previous image, and a device or FIFO is refused.
  osgDB::ReaderWriter* png = osgDB::Registry::instance()->getReaderWriterForExtension("png");
  if (png == nullptr)
    throw ViewerError(file.string() + ": cannot write the image (the OpenSceneGraph png plugin is missing)");
  std::ostringstream encoded;
  const osgDB::ReaderWriter::WriteResult result = png->writeImage(*img, encoded);
  if (!result.success()) throw ViewerError(file.string() + ": cannot encode the image as PNG: " + result.message());
  try {
    writeFileAtomically(file, encoded.str());
  } catch (const FileAccessError& e) {
    throw ViewerError(e.what());
  }
}

Image loadImage(const std::filesystem::path& file) {
  try {
    checkInputFile(file, std::uint64_t{256} << 20, "an image file");
  } catch (const FileAccessError& e) {
    throw ViewerError(e.what());
  }
  osg::ref_ptr<osg::Image> img = osgDB::readImageFile(file.string());
  if (!img || img->s() <= 0 || img->t() <= 0) throw ViewerError(file.string() + ": not an image this build can read");
  Image out;
  out.width = img->s();
  out.height = img->t();
  out.rgba.resize(static_cast<std::size_t>(out.width) * static_cast<std::size_t>(out.height) * 4);
  for (int y = 0; y < out.height; ++y) {
    for (int x = 0; x < out.width; ++x) {
      const osg::Vec4 c = img->getColor(static_cast<unsigned>(x), static_cast<unsigned>(out.height - 1 - y));
      const std::size_t i =
          4 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + static_cast<std::size_t>(x));
      for (int k = 0; k < 4; ++k) {
        out.rgba[i + static_cast<std::size_t>(k)] =
            static_cast<std::uint8_t>(std::clamp(c[k] * 255.0f + 0.5f, 0.0f, 255.0f));
      }
    }
  }
  return out;
}

}  // namespace articula::viewer
