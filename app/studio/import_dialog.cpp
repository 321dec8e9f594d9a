#include "import_dialog.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace articula::studio {

namespace {

/// The settings key of a file's choices: a path holds '/', which QSettings
/// reads as groups, so the key is a digest of the path (kept in the entry).
QString settingsKey(const QString& file) {
  return QStringLiteral("importChoices/") +
         QString::fromLatin1(QCryptographicHash::hash(file.toUtf8(), QCryptographicHash::Sha1).toHex());
}

QString rootName(io::RootAttachment root) {
  switch (root) {
    case io::RootAttachment::Fixed:
      return QStringLiteral("fixed");
    case io::RootAttachment::Floating:
      return QStringLiteral("floating");
    default:
      return QStringLiteral("default");
  }
}

io::RootAttachment rootOf(const QString& name) {
  if (name == "fixed") return io::RootAttachment::Fixed;
  if (name == "floating") return io::RootAttachment::Floating;
  return io::RootAttachment::Default;
}

}  // namespace

ImportChoices ImportChoices::load(const QString& file, const QStringList& defaultPackagePath) {
  ImportChoices c;
  c.packagePath = defaultPackagePath;
  const QVariantMap stored = QSettings().value(settingsKey(file)).toMap();
  if (stored.value("file").toString() != file) return c;
  c.root = rootOf(stored.value("root").toString());
  c.addGroundPlane = stored.value("addGroundPlane", c.addGroundPlane).toBool();
  c.groundHeight = stored.value("groundHeight", c.groundHeight).toDouble();
  c.placeOnGround = stored.value("placeOnGround", c.placeOnGround).toBool();
  c.packagePath = stored.value("packagePath", c.packagePath).toStringList();
  return c;
}

void ImportChoices::save(const QString& file) const {
  QVariantMap m;
  m["file"] = file;
  m["root"] = rootName(root);
  m["addGroundPlane"] = addGroundPlane;
  m["groundHeight"] = groundHeight;
  m["placeOnGround"] = placeOnGround;
  m["packagePath"] = packagePath;
  QSettings().setValue(settingsKey(file), m);
}

bool ImportChoices::isStored(const QString& file) {
  return QSettings().value(settingsKey(file)).toMap().value("file").toString() == file;
}

io::ImportOptions ImportChoices::toOptions() const {
  io::ImportOptions o;
  o.root = root;
  o.addGroundPlane = addGroundPlane;
  o.groundHeight = groundHeight;
  o.placeOnGround = placeOnGround;
  for (const QString& folder : packagePath) o.packagePath.emplace_back(folder.toStdString());
  return o;
}

bool needsImportChoices(const QString& file) {
  const QString suffix = QFileInfo(file).suffix().toLower();
  return suffix == "urdf" || suffix == "sdf" || suffix == "world";
}

// ---- the package folder list ----------------------------------------------------------

PackagePathEditor::PackagePathEditor(const QStringList& folders, QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_list = new QListWidget(this);
  m_list->setObjectName("packagePathList");
  m_list->addItems(folders);
  m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_list->setMinimumHeight(70);
  m_list->setMaximumHeight(120);
  layout->addWidget(m_list, 1);
  auto* buttons = new QVBoxLayout;
  auto* add = new QPushButton(tr("Add…"), this);
  add->setObjectName("addPackageFolder");
  m_remove = new QPushButton(tr("Remove"), this);
  m_remove->setObjectName("removePackageFolder");
  buttons->addWidget(add);
  buttons->addWidget(m_remove);
  buttons->addStretch(1);
  layout->addLayout(buttons);
  connect(add, &QPushButton::clicked, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Package folder"));
    if (!folder.isEmpty()) addFolder(folder);
  });
  connect(m_remove, &QPushButton::clicked, this, [this] { qDeleteAll(m_list->selectedItems()); });
  const auto update = [this] { m_remove->setEnabled(!m_list->selectedItems().isEmpty()); };
  connect(m_list, &QListWidget::itemSelectionChanged, this, update);
  update();
}

QStringList PackagePathEditor::folders() const {
  QStringList out;
  for (int i = 0; i < m_list->count(); ++i) out << m_list->item(i)->text();
  return out;
}

void PackagePathEditor::addFolder(const QString& folder) {
  if (folders().contains(folder)) return;
  m_list->addItem(folder);
}

// ---- the dialog ------------------------------------------------------------------------

ImportDialog::ImportDialog(const QString& file, const ImportChoices& choices, QWidget* parent) : QDialog(parent) {
  setObjectName("importDialog");
  setWindowTitle(tr("Import %1").arg(QFileInfo(file).fileName()));
  auto* form = new QFormLayout(this);
  auto* intro = new QLabel(tr("How should <b>%1</b> be imported?").arg(QFileInfo(file).fileName().toHtmlEscaped()));
  intro->setToolTip(file);
  form->addRow(intro);

  m_root = new QComboBox(this);
  m_root->setObjectName("rootAttachment");
  m_root->addItem(tr("As the file says"), QVariant::fromValue(static_cast<int>(io::RootAttachment::Default)));
  m_root->addItem(tr("Fixed to the world"), QVariant::fromValue(static_cast<int>(io::RootAttachment::Fixed)));
  m_root->addItem(tr("Floating (free joint)"), QVariant::fromValue(static_cast<int>(io::RootAttachment::Floating)));
  m_root->setCurrentIndex(m_root->findData(static_cast<int>(choices.root)));
  m_root->setToolTip(
      tr("As the file says: a URDF root is fixed (unless it is joined to a link named \"world\"), an "
         "SDF model floats unless it is joined to the world."));
  form->addRow(tr("Base"), m_root);

  m_ground = new QCheckBox(tr("Add a ground plane"), this);
  m_ground->setObjectName("addGroundPlane");
  m_ground->setChecked(choices.addGroundPlane);
  m_ground->setToolTip(tr("Only when the file has none (SDF worlds carry their own)."));
  form->addRow(m_ground);
  m_groundHeight = new QDoubleSpinBox(this);
  m_groundHeight->setObjectName("groundHeight");
  m_groundHeight->setRange(-1000.0, 1000.0);
  m_groundHeight->setDecimals(3);
  m_groundHeight->setSingleStep(0.1);
  m_groundHeight->setSuffix(tr(" m"));
  m_groundHeight->setValue(choices.groundHeight);
  form->addRow(tr("Ground height (z)"), m_groundHeight);
  m_placeOnGround = new QCheckBox(tr("Set a floating model down on the ground"), this);
  m_placeOnGround->setObjectName("placeOnGround");
  m_placeOnGround->setChecked(choices.placeOnGround);
  m_placeOnGround->setToolTip(
      tr("The model is lifted or lowered so that its lowest collision point rests on the "
         "ground."));
  form->addRow(m_placeOnGround);

  m_packages = new PackagePathEditor(choices.packagePath, this);
  m_packages->setToolTip(tr("Folders that contain the packages: package://NAME/… is looked up as FOLDER/NAME/…"));
  form->addRow(tr("Package folders"), m_packages);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Import"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
  connect(m_ground, &QCheckBox::toggled, this, &ImportDialog::updateEnabled);
  connect(m_root, &QComboBox::currentIndexChanged, this, &ImportDialog::updateEnabled);
  updateEnabled();
  resize(560, sizeHint().height());
}

void ImportDialog::updateEnabled() {
  m_groundHeight->setEnabled(m_ground->isChecked());
  m_placeOnGround->setEnabled(m_ground->isChecked() &&
                              m_root->currentData().toInt() != static_cast<int>(io::RootAttachment::Fixed));
}

ImportChoices ImportDialog::choices() const {
  ImportChoices c;
  c.root = static_cast<io::RootAttachment>(m_root->currentData().toInt());
  c.addGroundPlane = m_ground->isChecked();
  c.groundHeight = m_groundHeight->value();
  c.placeOnGround = m_placeOnGround->isChecked();
  c.packagePath = m_packages->folders();
  return c;
}

void ImportDialog::addPackageFolder(const QString& folder) {
  m_packages->addFolder(folder);
}

}  // namespace articula::studio
