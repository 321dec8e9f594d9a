#pragma once
/// @file
/// The studio's preferences, kept in QSettings ("preferences/..."), and
/// the dialog that edits them.

#include <QDialog>
#include <QStringList>

class QDoubleSpinBox;
class QSpinBox;

namespace articula::studio {

class PackagePathEditor;

struct Preferences {
  double recordingBudgetMiB = 256.0;  ///< memory for recorded frames while simulating
  int autosaveSeconds = 60;           ///< interval of the recovery autosave (0: off)
  double targetRealTimeFactor = 1.0;  ///< initial target when simulating (0: as fast as possible)
  /// Folders that contain ROS-style packages (package://NAME/ is looked up
  /// as FOLDER/NAME/): the import dialog's default, and used for scenes.
  QStringList packagePath;

  static Preferences load();
  void save() const;
};

class PreferencesDialog : public QDialog {
  Q_OBJECT

 public:
  explicit PreferencesDialog(const Preferences& preferences, QWidget* parent = nullptr);
  Preferences preferences() const;

 private:
  QDoubleSpinBox* m_budget;
  QSpinBox* m_autosave;
  QDoubleSpinBox* m_rtf;
  PackagePathEditor* m_packages;
};

}  // namespace articula::studio
