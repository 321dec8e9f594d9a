#pragma once
// Recovery files of the studio (docs/studio.md, "Recovery"): each running
// window autosaves its design to its own file in the recovery folder,
// recovery-PID-N.articula, with a sidecar recovery-PID-N.articula.json
// naming the process, the document and the time. A file whose process is
// gone (or, within one process, whose window is gone) is orphaned: the
// next start offers it.

#include <QDateTime>
#include <QString>

#include <vector>

namespace articula::studio {

/// A recovery file left by a window that did not close.
struct OrphanedRecovery {
  QString file;      ///< the autosaved design
  QString original;  ///< the file the design was edited from (may be empty)
  QString time;      ///< when it was autosaved (ISO 8601, may be empty)
};

/// One window's claim on a recovery file; released (not deleted) on destruction.
class RecoverySlot {
 public:
  explicit RecoverySlot(QString directory);
  ~RecoverySlot();
  RecoverySlot(const RecoverySlot&) = delete;
  RecoverySlot& operator=(const RecoverySlot&) = delete;

  /// This window's recovery file.
  const QString& file() const { return m_file; }
  /// Writes the sidecar next to file() (atomically). Returns false on failure.
  bool writeSidecar(const QString& original, const QString& source) const;
  /// Removes file() and its sidecar.
  void remove() const;

  /// Recovery files in `directory` that belong to no running window,
  /// newest first (including the single recovery.articula of older builds).
  static std::vector<OrphanedRecovery> orphans(const QString& directory);
  /// Removes an orphaned recovery file and its sidecar.
  static void removeOrphan(const QString& file);

 private:
  QString m_directory;
  QString m_file;
  int m_instance = 0;
};

}  // namespace articula::studio
