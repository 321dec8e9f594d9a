#include "preferences.hpp"

#include "import_dialog.hpp"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSettings>
#include <QSpinBox>

namespace articula::studio {

Preferences Preferences::load() {
  QSettings s;
  Preferences p;
  p.recordingBudgetMiB = s.value("preferences/recordingBudgetMiB", p.recordingBudgetMiB).toDouble();
  p.autosaveSeconds = s.value("preferences/autosaveSeconds", p.autosaveSeconds).toInt();
  p.targetRealTimeFactor = s.value("preferences/targetRealTimeFactor", p.targetRealTimeFactor).toDouble();
  p.packagePath = s.value("preferences/packagePath").toStringList();
  return p;
}

void Preferences::save() const {
  QSettings s;
  s.setValue("preferences/recordingBudgetMiB", recordingBudgetMiB);
  s.setValue("preferences/autosaveSeconds", autosaveSeconds);
  s.setValue("preferences/targetRealTimeFactor", targetRealTimeFactor);
  s.setValue("preferences/packagePath", packagePath);
}

PreferencesDialog::PreferencesDialog(const Preferences& preferences, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Preferences"));
  auto* form = new QFormLayout(this);
  m_budget = new QDoubleSpinBox(this);
  m_budget->setObjectName("recordingBudget");
  m_budget->setRange(1.0, 65536.0);
  m_budget->setSuffix(tr(" MiB"));
  m_budget->setValue(preferences.recordingBudgetMiB);
  form->addRow(tr("Recording memory budget"), m_budget);
  m_autosave = new QSpinBox(this);
  m_autosave->setObjectName("autosaveSeconds");
  m_autosave->setRange(0, 3600);
  m_autosave->setSuffix(tr(" s"));
  m_autosave->setSpecialValueText(tr("off"));
  m_autosave->setValue(preferences.autosaveSeconds);
  form->addRow(tr("Autosave for recovery every"), m_autosave);
  m_rtf = new QDoubleSpinBox(this);
  m_rtf->setObjectName("targetRealTimeFactor");
  m_rtf->setRange(0.0, 100.0);
  m_rtf->setSingleStep(0.25);
  m_rtf->setSpecialValueText(tr("as fast as possible"));
  m_rtf->setValue(preferences.targetRealTimeFactor);
  form->addRow(tr("Target real-time factor"), m_rtf);
  m_packages = new PackagePathEditor(preferences.packagePath, this);
  m_packages->setObjectName("packagePath");
  m_packages->setToolTip(tr("Folders that contain the packages: package://NAME/… is looked up as FOLDER/NAME/…"));
  form->addRow(tr("Package folders"), m_packages);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  form->addRow(buttons);
}

Preferences PreferencesDialog::preferences() const {
  Preferences p;
  p.recordingBudgetMiB = m_budget->value();
  p.autosaveSeconds = m_autosave->value();
  p.targetRealTimeFactor = m_rtf->value();
  p.packagePath = m_packages->folders();
  return p;
}

}  // namespace articula::studio
