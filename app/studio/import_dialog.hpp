#pragma once
/// @file
/// The choices made when a URDF or SDF file is opened or inserted (how the
/// root is attached, a ground plane and its height, the package folders),
/// remembered per file in QSettings, and the dialog that asks for them.

#include <articula/io/import.hpp>

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QListWidget;
class QPushButton;

namespace articula::studio {

/// What the import dialog asks. Defaults: the root as the file says, a
/// ground plane at z = 0 on which a floating model is set down, and the
/// package folders of the preferences.
struct ImportChoices {
  io::RootAttachment root = io::RootAttachment::Default;
  bool addGroundPlane = true;
  double groundHeight = 0.0;  ///< m, along world z
  bool placeOnGround = true;  ///< a floating model rests on the ground
  QStringList packagePath;    ///< folders that contain the packages (package://NAME/ resolves to FOLDER/NAME/)

  /// The choices stored for `file` (an absolute path) by save(), else the
  /// defaults with `defaultPackagePath` (the preferences').
  static ImportChoices load(const QString& file, const QStringList& defaultPackagePath);
  /// Remembers the choices for `file` (an absolute path).
  void save(const QString& file) const;
  /// Whether choices were stored for `file`.
  static bool isStored(const QString& file);
  /// The importer's options for these choices.
  io::ImportOptions toOptions() const;

  bool operator==(const ImportChoices&) const = default;
};

/// Whether `file` is read by a robot importer (URDF, SDF) and so gets the
/// import dialog; native scenes and replays do not.
bool needsImportChoices(const QString& file);

class PackagePathEditor;

/// Asks for the ImportChoices of one file. The package folder list is
/// edited with Add… (a folder chooser) and Remove.
class ImportDialog : public QDialog {
  Q_OBJECT

 public:
  ImportDialog(const QString& file, const ImportChoices& choices, QWidget* parent = nullptr);
  ImportChoices choices() const;
  /// Adds a folder to the package list (what Add… does with the chosen one).
  void addPackageFolder(const QString& folder);

 private:
  void updateEnabled();

  QComboBox* m_root;
  QCheckBox* m_ground;
  QDoubleSpinBox* m_groundHeight;
  QCheckBox* m_placeOnGround;
  PackagePathEditor* m_packages;
};

/// The package folder list with Add… and Remove buttons, shared by the
/// import dialog and the preferences.
class PackagePathEditor : public QWidget {
  Q_OBJECT

 public:
  explicit PackagePathEditor(const QStringList& folders, QWidget* parent = nullptr);
  QStringList folders() const;
  void addFolder(const QString& folder);

 private:
  QListWidget* m_list;
  QPushButton* m_remove;
};

}  // namespace articula::studio
