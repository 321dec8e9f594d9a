// HDF5 run logs (libhdf5's C++ API): Hdf5Log writes the file, Hdf5Logger
// feeds it from a world's step observer.
#include <articula/io/run_log.hpp>

#include <articula/file_io.hpp>

#include <H5Cpp.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <limits>
#include <mutex>
#include <system_error>
#include <vector>

#ifndef ARTICULA_VERSION_STRING
#define ARTICULA_VERSION_STRING "unknown"
#endif

namespace fs = std::filesystem;

namespace articula::io {

namespace {

// Uncompressed bytes per chunk of the widest dataset at most (HDF5's
// default chunk cache holds 1 MiB).
constexpr int kChunkBytes = 1 << 19;

std::atomic<unsigned> g_tempCounter{0};

// A temporary name beside `target`, unique in this process and among processes.
fs::path temporaryPath(const fs::path& target) {
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  return folder / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                   std::to_string(g_tempCounter++));
}

H5::StrType textType() {
  H5::StrType type(H5::PredType::C_S1, H5T_VARIABLE);
  type.setCset(H5T_CSET_UTF8);
  return type;
}

void writeTextAttribute(H5::H5Object& object, const std::string& name, const std::string& value) {
  if (object.attrExists(name)) object.removeAttr(name);
  const H5::StrType type = textType();
  H5::Attribute attribute = object.createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
  const char* text = value.c_str();
  attribute.write(type, &text);
}

void writeTextArrayAttribute(H5::H5Object& object, const std::string& name, const std::vector<std::string>& values) {
  const H5::StrType type = textType();
  const hsize_t n = values.size();
  H5::Attribute attribute = object.createAttribute(name, type, H5::DataSpace(1, &n));
  std::vector<const char*> texts;
  texts.reserve(values.size());
  for (const auto& v : values) texts.push_back(v.c_str());
  attribute.write(type, texts.data());
}

// Files that do not rely on file locks (network file systems of clusters
// often have none) and that keep large attributes (thousands of column
// names) in dense storage rather than the 64 KiB object header.
H5::FileAccPropList fileAccess() {
  H5::FileAccPropList access;
  H5Pset_file_locking(access.getId(), false, true);
  H5Pset_libver_bounds(access.getId(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  return access;
}

// Closes a file once. When the close fails (its last writes fail too, e.g.
// on a full disk), HDF5 1.10 leaves the identifier half closed and closing
// it again crashes: the object is then abandoned (kept reachable, never
// destroyed) and the error goes on.
void closeFile(std::unique_ptr<H5::H5File>& file) {
  if (!file) return;
  try {
    file->close();
    file.reset();
  } catch (const H5::Exception&) {
    static std::mutex mutex;
    static auto* abandoned = new std::vector<H5::H5File*>;
    const std::lock_guard<std::mutex> lock(mutex);
    abandoned->push_back(file.release());
    throw;
  }
}

// No time stamps in the root group's header either: the same content makes the same bytes.
H5::FileCreatPropList fileCreation() {
  H5::FileCreatPropList creation;
  H5Pset_obj_track_times(creation.getId(), false);
  return creation;
}

std::string hdf5Message(const H5::Exception& e) {
  std::string message = e.getDetailMsg();
  return message.empty() ? std::string("HDF5 error") : message;
}

}  // namespace

struct Hdf5Log::Impl {
  fs::path target;
  fs::path temp;
  std::unique_ptr<H5::H5File> file;
  std::vector<LogBlock> blocks;
  std::vector<H5::DataSet> sets;
  int columns = 0;
  int chunkRows = 1024;
  std::vector<double> buffer;  ///< chunkRows × columns, row-major
  int buffered = 0;
  std::int64_t rows = 0;
  bool open = false;
  bool broken = false;  ///< a write failed: nothing more is written, commit() fails
  bool committed = false;

  void flush() {
    if (buffered == 0) return;
    const hsize_t memDims[2] = {static_cast<hsize_t>(chunkRows), static_cast<hsize_t>(columns)};
    H5::DataSpace memory(2, memDims);
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const LogBlock& block = blocks[b];
      H5::DataSet& set = sets[b];
      const hsize_t n = static_cast<hsize_t>(buffered);
      const hsize_t start = static_cast<hsize_t>(rows);
      const hsize_t memStart[2] = {0, static_cast<hsize_t>(block.offset)};
      const hsize_t count[2] = {n, static_cast<hsize_t>(block.size)};
      memory.selectHyperslab(H5S_SELECT_SET, count, memStart);
      if (block.dataset == "t") {
        const hsize_t size[1] = {start + n};
        set.extend(size);
        H5::DataSpace space = set.getSpace();
        const hsize_t fileStart[1] = {start};
        const hsize_t fileCount[1] = {n};
        space.selectHyperslab(H5S_SELECT_SET, fileCount, fileStart);
        set.write(buffer.data(), H5::PredType::NATIVE_DOUBLE, memory, space);
      } else {
        const hsize_t size[2] = {start + n, static_cast<hsize_t>(block.size)};
        set.extend(size);
        H5::DataSpace space = set.getSpace();
        const hsize_t fileStart[2] = {start, 0};
        space.selectHyperslab(H5S_SELECT_SET, count, fileStart);
        set.write(buffer.data(), H5::PredType::NATIVE_DOUBLE, memory, space);
      }
    }
    rows += buffered;
    buffered = 0;
  }

  // Closes and removes the temporary file. It is emptied first: after a
  // write failed for want of space, closing then has the room it needs.
  void discard() {
    buffered = 0;
    if (open) {
      std::error_code ec;
      fs::resize_file(temp, 0, ec);
      try {
        sets.clear();
        closeFile(file);
      } catch (const H5::Exception&) {
      }
      open = false;
    }
    std::error_code ec;
    fs::remove(temp, ec);
  }
};

Hdf5Log::Hdf5Log(const fs::path& target, const LogColumns& columns, const RunLogInfo& info, int chunkRows)
    : m_impl(std::make_unique<Impl>()) {
  H5::Exception::dontPrint();
  checkOutputTarget(target);
  Impl& d = *m_impl;
  d.target = target;
  d.blocks = columns.blocks();
  d.columns = columns.size();
  int widest = 1;
  for (const LogBlock& b : d.blocks) widest = std::max(widest, b.size);
  d.chunkRows = std::clamp(chunkRows, 1, std::max(1, kChunkBytes / (8 * widest)));
  d.buffer.assign(static_cast<std::size_t>(d.chunkRows) * static_cast<std::size_t>(d.columns), 0.0);
  d.temp = temporaryPath(target);
  try {
    d.file = std::make_unique<H5::H5File>(d.temp.string(), H5F_ACC_EXCL, fileCreation(), fileAccess());
    d.open = true;
    for (const LogBlock& block : d.blocks) {
      H5::DSetCreatPropList properties;
      const bool vector = block.dataset == "t";
      const hsize_t chunk[2] = {static_cast<hsize_t>(d.chunkRows), static_cast<hsize_t>(block.size)};
      const hsize_t dims[2] = {0, static_cast<hsize_t>(block.size)};
      const hsize_t maxDims[2] = {H5S_UNLIMITED, static_cast<hsize_t>(block.size)};
      const int rank = vector ? 1 : 2;
      properties.setChunk(rank, chunk);
      properties.setShuffle();
      properties.setDeflate(4);
      // No modification times in the object headers: the same rows make the same bytes.
      H5Pset_obj_track_times(properties.getId(), false);
      H5::DataSpace space(rank, dims, maxDims);
      // No chunk cache: rows arrive a whole chunk at a time, so a chunk goes
      // to the file when it is written (and a write error shows there).
      H5::DSetAccPropList access;
      H5Pset_chunk_cache(access.getId(), H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0, H5D_CHUNK_CACHE_W0_DEFAULT);
      H5::DataSet set = d.file->createDataSet(block.dataset, H5::PredType::IEEE_F64LE, space, properties, access);
      const auto first = columns.names().begin() + block.offset;
      writeTextArrayAttribute(set, "columns", std::vector<std::string>(first, first + block.size));
      d.sets.push_back(std::move(set));
    }
    writeTextAttribute(*d.file, "format", "articula run log 1");
    writeTextAttribute(*d.file, "engine_version", ARTICULA_VERSION_STRING);
    writeTextAttribute(*d.file, "scene_path", info.scenePath);
    writeTextAttribute(*d.file, "scene_sha256", info.sceneSha256);
    writeTextAttribute(*d.file, "command_line", info.commandLine);
    writeTextAttribute(*d.file, "options", info.options);
    writeTextArrayAttribute(*d.file, "columns", columns.names());
  } catch (const H5::Exception& e) {
    d.discard();
    throw FileAccessError(target, "cannot create the HDF5 log: " + hdf5Message(e));
  }
}

Hdf5Log::~Hdf5Log() {
  if (m_impl && !m_impl->committed) m_impl->discard();
}

double* Hdf5Log::nextRow() {
  Impl& d = *m_impl;
  // After a failed write rows go to a scratch row that append() refuses.
  const std::size_t row = d.open && !d.broken ? static_cast<std::size_t>(d.buffered) : 0;
  return d.buffer.data() + row * static_cast<std::size_t>(d.columns);
}

void Hdf5Log::append() {
  Impl& d = *m_impl;
  if (!d.open || d.broken) throw FileAccessError(d.target, "the HDF5 log is closed after a failed write");
  if (++d.buffered < d.chunkRows) return;
  try {
    d.flush();
  } catch (const H5::Exception& e) {
    d.broken = true;
    d.buffered = 0;
    throw FileAccessError(d.target, "cannot write the HDF5 log: " + hdf5Message(e));
  }
}

void Hdf5Log::append(const double* row) {
  std::copy(row, row + m_impl->columns, nextRow());
  append();
}

void Hdf5Log::setAttribute(const std::string& name, const std::string& value) {
  Impl& d = *m_impl;
  if (!d.open || d.broken) throw FileAccessError(d.target, "the HDF5 log is closed after a failed write");
  try {
    writeTextAttribute(*d.file, name, value);
  } catch (const H5::Exception& e) {
    throw FileAccessError(d.target, "cannot write the attribute " + name + ": " + hdf5Message(e));
  }
}

void Hdf5Log::commit() {
  Impl& d = *m_impl;
  if (d.committed) return;
  if (!d.open) throw FileAccessError(d.target, "the HDF5 log is closed");
  if (d.broken) {
    d.discard();
    throw FileAccessError(d.target, "a write failed earlier; the log was not written");
  }
  try {
    d.flush();
    d.sets.clear();
    closeFile(d.file);
    d.open = false;
  } catch (const H5::Exception& e) {
    d.discard();
    throw FileAccessError(d.target, "cannot write the HDF5 log: " + hdf5Message(e));
  }
  // The bytes reach the disk before the name does.
  const int fd = ::open(d.temp.c_str(), O_RDONLY | O_CLOEXEC);
  const bool synced = fd >= 0 && ::fsync(fd) == 0;
  if (fd >= 0) ::close(fd);
  std::error_code ec;
  if (synced) fs::rename(d.temp, d.target, ec);
  if (!synced || ec) {
    d.discard();
    throw FileAccessError(d.target, "cannot put the HDF5 log in place" + (ec ? ": " + ec.message() : std::string()));
  }
  d.committed = true;
}

std::int64_t Hdf5Log::rows() const {
  return m_impl->rows + m_impl->buffered;
}

const fs::path& Hdf5Log::target() const {
  return m_impl->target;
}

// --- sweep tables ---------------------------------------------------------

namespace {

H5::DSetCreatPropList reproducible() {
  H5::DSetCreatPropList properties;
  H5Pset_obj_track_times(properties.getId(), false);
  return properties;
}

void writeTexts(H5::H5File& file, const std::string& name, const std::vector<std::string>& values,
                hsize_t columns = 0) {
  const H5::StrType type = textType();
  const hsize_t dims[2] = {columns == 0 ? values.size() : values.size() / columns, columns};
  H5::DataSpace space(columns == 0 ? 1 : 2, dims);
  H5::DataSet set = file.createDataSet(name, type, space, reproducible());
  std::vector<const char*> texts;
  texts.reserve(values.size());
  for (const auto& v : values) texts.push_back(v.c_str());
  if (!texts.empty()) set.write(texts.data(), type);
}

H5::DataSet writeNumbers(H5::H5File& file, const std::string& name, const std::vector<double>& values, hsize_t rows,
                         hsize_t columns) {
  const hsize_t dims[2] = {rows, columns};
  H5::DataSpace space(2, dims);
  H5::DataSet set = file.createDataSet(name, H5::PredType::IEEE_F64LE, space, reproducible());
  if (!values.empty()) set.write(values.data(), H5::PredType::NATIVE_DOUBLE);
  return set;
}

}  // namespace

void writeSweepTable(const fs::path& target, const SweepTable& table) {
  H5::Exception::dontPrint();
  checkOutputTarget(target);
  const fs::path temp = temporaryPath(target);
  const hsize_t n = table.run.size();
  const hsize_t np = table.parameterNames.size();
  const hsize_t nm = table.metricNames.size();
  try {
    auto owned = std::make_unique<H5::H5File>(temp.string(), H5F_ACC_EXCL, fileCreation(), fileAccess());
    H5::H5File& file = *owned;
    const hsize_t dims[1] = {n};
    H5::DataSet run = file.createDataSet("run", H5::PredType::STD_I64LE, H5::DataSpace(1, dims), reproducible());
    if (n > 0) run.write(table.run.data(), H5::PredType::NATIVE_INT64);
    H5::DataSet exit = file.createDataSet("exit_code", H5::PredType::STD_I64LE, H5::DataSpace(1, dims), reproducible());
    if (n > 0) exit.write(table.exitCode.data(), H5::PredType::NATIVE_INT64);
    writeTexts(file, "status", table.status);
    writeTexts(file, "message", table.message);
    std::vector<std::string> texts;
    std::vector<double> numbers;
    for (const auto& row : table.parameters) {
      for (const std::string& v : row) {
        texts.push_back(v);
        double x = std::numeric_limits<double>::quiet_NaN();
        const auto r = std::from_chars(v.data(), v.data() + v.size(), x);
        numbers.push_back(
            r.ec == std::errc() && r.ptr == v.data() + v.size() ? x : std::numeric_limits<double>::quiet_NaN());
      }
    }
    if (np > 0) {
      writeTexts(file, "parameter_values", texts, np);
      H5::DataSet p = writeNumbers(file, "parameters", numbers, n, np);
      writeTextArrayAttribute(p, "columns", table.parameterNames);
      H5::DataSet pv = file.openDataSet("parameter_values");
      writeTextArrayAttribute(pv, "columns", table.parameterNames);
    }
    std::vector<double> metrics;
    for (const auto& row : table.metrics) metrics.insert(metrics.end(), row.begin(), row.end());
    if (nm > 0) {
      H5::DataSet m = writeNumbers(file, "metrics", metrics, n, nm);
      writeTextArrayAttribute(m, "columns", table.metricNames);
    }
    for (const auto& [name, value] : table.attributes) writeTextAttribute(file, name, value);
    closeFile(owned);
  } catch (const H5::Exception& e) {
    std::error_code ec;
    fs::remove(temp, ec);
    throw FileAccessError(target, "cannot write the HDF5 table: " + hdf5Message(e));
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    throw FileAccessError(target, "cannot put the HDF5 table in place");
  }
}

// --- Hdf5Logger ---------------------------------------------------------

Hdf5Logger::Hdf5Logger(World& world, const fs::path& target, const Options& options)
    : m_world(&world), m_columns(world, options.groups), m_every(std::max(1, options.every)) {
  m_log = std::make_unique<Hdf5Log>(target, m_columns, options.info, options.chunkRows);
  m_columns.fill(world, m_log->nextRow());
  m_log->append();
  m_observer = world.addStepObserver([this](const World& w) { onStep(w); });
  m_attached = true;
}

Hdf5Logger::Hdf5Logger(World& world, const fs::path& target) : Hdf5Logger(world, target, Options{}) {}

Hdf5Logger::~Hdf5Logger() {
  detach();
}

void Hdf5Logger::detach() {
  if (!m_attached) return;
  m_world->removeStepObserver(m_observer);
  m_attached = false;
}

void Hdf5Logger::close() {
  detach();
  m_log->commit();
}

std::int64_t Hdf5Logger::rows() const {
  return m_log->rows();
}

void Hdf5Logger::onStep(const World& world) {
  if (m_failed || ++m_steps % static_cast<std::uint64_t>(m_every) != 0) return;
  m_columns.fill(world, m_log->nextRow());
  try {
    m_log->append();
  } catch (const FileAccessError&) {
    m_failed = true;  // reported once, by this step; later steps log nothing and close() fails
    throw;
  }
}

}  // namespace articula::io
