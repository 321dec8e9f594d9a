#include "recovery.hpp"

#include <articula/file_io.hpp>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <mutex>
#include <set>

#include <sys/types.h>
#include <csignal>

namespace articula::studio {

namespace {

// Windows of this process that hold a recovery slot.
std::mutex g_liveMutex;
std::set<int> g_liveInstances;
int g_nextInstance = 1;

QJsonObject readSidecar(const QString& file) {
  try {
    const std::string text = readInputFile((file + ".json").toStdString(), std::uint64_t{1} << 20, "a sidecar");
    return QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
  } catch (const Error&) {
    return {};
  }
}

}  // namespace

RecoverySlot::RecoverySlot(QString directory) : m_directory(std::move(directory)) {
  {
    std::lock_guard<std::mutex> lock(g_liveMutex);
    m_instance = g_nextInstance++;
    g_liveInstances.insert(m_instance);
  }
  m_file = m_directory + QString("/recovery-%1-%2.articula").arg(QCoreApplication::applicationPid()).arg(m_instance);
}

RecoverySlot::~RecoverySlot() {
  std::lock_guard<std::mutex> lock(g_liveMutex);
  g_liveInstances.erase(m_instance);
}

bool RecoverySlot::writeSidecar(const QString& original, const QString& source) const {
  QJsonObject info;
  info["pid"] = static_cast<qint64>(QCoreApplication::applicationPid());
  info["instance"] = m_instance;
  info["file"] = original;
  info["source"] = source;
  info["time"] = QDateTime::currentDateTime().toString(Qt::ISODate);
  try {
    writeFileAtomically((m_file + ".json").toStdString(), QJsonDocument(info).toJson().toStdString());
    return true;
  } catch (const Error&) {
    return false;
  }
}

void RecoverySlot::remove() const {
  QFile::remove(m_file);
  QFile::remove(m_file + ".json");
}

std::vector<OrphanedRecovery> RecoverySlot::orphans(const QString& directory) {
  std::vector<std::pair<QDateTime, OrphanedRecovery>> found;
  const QDir dir(directory);
  const qint64 self = QCoreApplication::applicationPid();
  for (const QFileInfo& entry : dir.entryInfoList({"recovery*.articula"}, QDir::Files, QDir::Time)) {
    const QString file = entry.absoluteFilePath();
    const QJsonObject info = readSidecar(file);
    const auto pid = static_cast<pid_t>(info.value("pid").toInteger());
    if (pid > 0 && pid != self && ::kill(pid, 0) == 0) continue;  // its studio is still running
    if (pid == self) {
      std::lock_guard<std::mutex> lock(g_liveMutex);
      if (g_liveInstances.count(info.value("instance").toInt()) != 0) continue;  // a window of this process
    }
    found.push_back({entry.lastModified(), {file, info.value("file").toString(), info.value("time").toString()}});
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<OrphanedRecovery> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

void RecoverySlot::removeOrphan(const QString& file) {
  QFile::remove(file);
  QFile::remove(file + ".json");
}

}  // namespace articula::studio
