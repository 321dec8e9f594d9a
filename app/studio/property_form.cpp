// The fields of a property form (property_form.hpp).
#include "property_form.hpp"

#include "document.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpression>
#include <QVBoxLayout>

#include <cmath>

namespace articula::studio {

namespace {

QLocale numberLocale() {
  QLocale c = QLocale::c();
  c.setNumberOptions(QLocale::OmitGroupSeparator | QLocale::RejectGroupSeparator);
  return c;
}

// Numbers are shown with 15 significant digits, the most that every
// decimal text keeps through a double and back.
constexpr int kShownDigits = 15;

// Numbers are displayed rounded to 6 significant digits while they are not
// being edited; an editor shows all 15.
constexpr int kDisplayDigits = 6;

/// A spin box for any double: shows the value rounded to 6 significant
/// digits, all 15 while it has the focus (editing starts from the full
/// value), accepts exponents, and reports a value only when editing ends
/// or a step is taken. The rounded text stands for the exact value: it is
/// never read back as a new one.
class NumberBox : public QDoubleSpinBox {
 public:
  explicit NumberBox(QWidget* parent = nullptr) : QDoubleSpinBox(parent) {
    setLocale(numberLocale());
    setDecimals(17);
    setRange(-1e15, 1e15);
    setKeyboardTracking(false);
    setAccelerated(true);
    setMinimumWidth(70);
  }

  QString textFromValue(double value) const override {
    return hasFocus() ? form::formatNumber(value) : form::formatRounded(value);
  }
  double valueFromText(const QString& text) const override {
    const QString t = text.trimmed();
    if (!lineEdit()->isModified() && t == form::formatRounded(value())) return value();
    return numberLocale().toDouble(t);
  }
  QValidator::State validate(QString& input, int& /*pos*/) const override {
    const QString t = input.trimmed();
    bool ok = false;
    const double v = numberLocale().toDouble(t, &ok);
    if (ok) return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    static const QRegularExpression partial(QStringLiteral("^[+-]?[0-9]*\\.?[0-9]*([eE][+-]?[0-9]*)?$"));
    return partial.match(t).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
  }
  void fixup(QString& /*input*/) const override {}

 protected:
  void focusInEvent(QFocusEvent* event) override {
    lineEdit()->setText(form::formatNumber(value()));
    lineEdit()->setModified(false);
    QDoubleSpinBox::focusInEvent(event);
  }
};

}  // namespace

// ===========================================================================
// Numbers and text

namespace form {

QString formatNumber(double value) {
  return numberLocale().toString(value, 'g', kShownDigits);
}

// The value a field shows for `value`: reading the shown text gives it
// back exactly, so an editor that loses the focus without a change does not
// report a (rounded) new value.
double shownValue(double value) {
  return std::isfinite(value) ? numberLocale().toDouble(formatNumber(value)) : value;
}

QString qs(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

QString formatRounded(double value) {
  return numberLocale().toString(value, 'g', kDisplayDigits);
}

QDoubleSpinBox* newNumberBox() {
  return new NumberBox;
}

}  // namespace form

using form::formatNumber;
using form::qs;
using form::shownValue;

// ===========================================================================
// The form

PropertyForm::PropertyForm(Document* document, QObject* parent) : QObject(parent), m_document(document) {}

PropertyForm::~PropertyForm() = default;

void PropertyForm::begin(QFormLayout* layout, const ObjectRef& ref, bool readOnly) {
  m_refreshers.clear();
  m_fieldRefreshers.clear();
  m_errors.clear();
  m_layout = layout;
  m_ref = ref;
  m_readOnly = readOnly;
}

void PropertyForm::refreshValues() {
  const Updating updating(*this);
  for (const Refresher& refresh : m_refreshers) {
    try {
      refresh();
    } catch (const std::exception&) {
      // The object went away; the next designChanged rebuilds the form.
    }
  }
}

// ===========================================================================
// Building blocks

QString PropertyForm::mergeKey(const QString& key) const {
  return QString::fromLatin1(kindName(m_ref.kind)) + QLatin1Char(':') + qs(m_ref.name) + QLatin1Char(':') + key;
}

QLabel* PropertyForm::makeErrorLabel(const QString& key) {
  auto* label = new QLabel;
  label->setObjectName(QStringLiteral("error_") + key);
  label->setStyleSheet(QStringLiteral("color: #d03030;"));
  label->setWordWrap(true);
  label->setVisible(false);
  m_errors[key] = label;
  return label;
}

void PropertyForm::showError(const QString& key, const QString& message) {
  const auto it = m_errors.find(key);
  if (it == m_errors.end()) return;
  it->second->setText(message);
  it->second->setVisible(true);
}

void PropertyForm::hideError(const QString& key) {
  const auto it = m_errors.find(key);
  if (it != m_errors.end()) it->second->setVisible(false);
}

void PropertyForm::clearErrors() {
  for (auto& [key, label] : m_errors) {
    label->clear();
    label->setVisible(false);
  }
}

bool PropertyForm::commit(const QString& key, const QString& label, const std::function<void(World&)>& op, bool merge) {
  QString error;
  const bool ok = m_document->edit(label, op, &error, merge ? mergeKey(key) : QString());
  if (ok) {
    const auto it = m_errors.find(key);
    if (it != m_errors.end()) {
      it->second->clear();
      it->second->setVisible(false);
    }
    return true;
  }
  showError(key, error.isEmpty() ? tr("The change was refused.") : error);
  restoreField(key);
  return false;
}

void PropertyForm::restoreField(const QString& key) {
  const auto it = m_fieldRefreshers.find(key);
  if (it == m_fieldRefreshers.end()) return;
  const Updating updating(*this);
  try {
    it->second();
  } catch (const std::exception&) {
  }
}

void PropertyForm::addHeading(const QString& text) {
  auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped()));
  label->setContentsMargins(0, 8, 0, 0);
  m_layout->addRow(label);
}

void PropertyForm::addRow(const QString& label, const std::vector<QWidget*>& editors, const QStringList& keys) {
  auto* box = new QWidget;
  auto* column = new QVBoxLayout(box);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  for (QWidget* editor : editors) row->addWidget(editor, 1);
  column->addLayout(row);
  for (const QString& key : keys) column->addWidget(makeErrorLabel(key));
  m_layout->addRow(label, box);
}

template <class T>
void PropertyForm::validateAndCommit(const QString& key, const ObjectRef& ref,
                                     const std::function<QString(T)>& validate,
                                     const std::function<void(World&, T)>& write, T value) {
  if (validate) {
    const QString message = validate(value);
    if (!message.isEmpty()) {
      showError(key, message);
      restoreField(key);
      return;
    }
  }
  QString field = key;
  field.replace(QLatin1Char('_'), QLatin1Char(' '));
  commit(key, tr("Set %1 of %2").arg(field, qs(ref.name)), [write, value](World& w) { write(w, value); });
}

void PropertyForm::registerRefresher(const QString& key, const Refresher& refresher) {
  m_refreshers.push_back(refresher);
  if (!key.isEmpty()) m_fieldRefreshers[key] = refresher;
}

QWidget* PropertyForm::makeNumber(const QString& key, const std::function<double(const World&)>& read,
                                  const std::function<QString(double)>& validate,
                                  const std::function<void(World&, double)>& write, double step, bool editable) {
  auto* box = new NumberBox;
  box->setObjectName(QStringLiteral("field_") + key);
  box->setSingleStep(step);
  box->setEnabled(editable && !m_readOnly && write != nullptr);
  registerRefresher(key, [this, box, read] { box->setValue(shownValue(read(m_document->world()))); });
  if (write) {
    const ObjectRef ref = m_ref;
    connect(box, &QDoubleSpinBox::valueChanged, this, [this, key, validate, write, ref](double value) {
      if (m_updating > 0) return;
      validateAndCommit(key, ref, validate, write, value);
    });
  }
  return box;
}

QWidget* PropertyForm::addNumber(const QString& label, const QString& key,
                                 const std::function<double(const World&)>& read,
                                 const std::function<QString(double)>& validate,
                                 const std::function<void(World&, double)>& write, double step, bool editable) {
  QWidget* box = makeNumber(key, read, validate, write, step, editable);
  addRow(label, {box}, {key});
  return box;
}

QWidget* PropertyForm::makeOptionalNumber(const QString& key,
                                          const std::function<std::optional<double>(const World&)>& read,
                                          const std::function<QString(std::optional<double>)>& validate,
                                          const std::function<void(World&, std::optional<double>)>& write) {
  auto* edit = new QLineEdit;
  edit->setObjectName(QStringLiteral("field_") + key);
  edit->setPlaceholderText(tr("none"));
  edit->setEnabled(!m_readOnly);
  edit->setMinimumWidth(60);
  registerRefresher(key, [this, edit, read] {
    const std::optional<double> v = read(m_document->world());
    edit->setText(v ? formatNumber(*v) : QString());
  });
  const ObjectRef ref = m_ref;
  connect(edit, &QLineEdit::editingFinished, this, [this, edit, key, read, validate, write, ref] {
    if (m_updating > 0) return;
    const QString text = edit->text().trimmed();
    std::optional<double> value;
    if (!text.isEmpty()) {
      bool ok = false;
      const double v = numberLocale().toDouble(text, &ok);
      if (!ok || std::isnan(v)) {
        showError(key, tr("'%1' is not a number (leave empty for none).").arg(text));
        restoreField(key);
        return;
      }
      value = v;
    }
    try {
      const std::optional<double> current = read(m_document->world());
      if (current == value || (current && value && formatNumber(*current) == formatNumber(*value))) return;
    } catch (const std::exception&) {
      return;
    }
    validateAndCommit(key, ref, validate, write, value);
  });
  return edit;
}

QWidget* PropertyForm::addChoice(const QString& label, const QString& key, const QStringList& items,
                                 const std::function<int(const World&)>& read,
                                 const std::function<void(World&, int)>& write) {
  auto* combo = new QComboBox;
  combo->setObjectName(QStringLiteral("field_") + key);
  combo->addItems(items);
  combo->setEnabled(!m_readOnly && write != nullptr);
  registerRefresher(key, [this, combo, read] { combo->setCurrentIndex(read(m_document->world())); });
  if (write) {
    const ObjectRef ref = m_ref;
    connect(combo, &QComboBox::currentIndexChanged, this, [this, key, label, write, ref](int index) {
      if (m_updating > 0 || index < 0) return;
      commit(
          key, tr("Set %1 of %2").arg(label.toLower(), qs(ref.name)), [write, index](World& w) { write(w, index); },
          false);
    });
  }
  addRow(label, {combo}, {key});
  return combo;
}

QWidget* PropertyForm::addCheck(const QString& label, const QString& key, const std::function<bool(const World&)>& read,
                                const std::function<void(World&, bool)>& write) {
  auto* check = new QCheckBox;
  check->setObjectName(QStringLiteral("field_") + key);
  check->setEnabled(!m_readOnly);
  registerRefresher(key, [this, check, read] { check->setChecked(read(m_document->world())); });
  const ObjectRef ref = m_ref;
  connect(check, &QCheckBox::toggled, this, [this, key, label, write, ref](bool on) {
    if (m_updating > 0) return;
    commit(
        key, tr("Set %1 of %2").arg(label.toLower(), qs(ref.name)), [write, on](World& w) { write(w, on); }, false);
  });
  addRow(label, {check}, {key});
  return check;
}

QLabel* PropertyForm::addValueLabel(const QString& label, const QString& key,
                                    const std::function<QString(const World&)>& read) {
  auto* value = new QLabel;
  value->setObjectName(QStringLiteral("value_") + key);
  value->setTextInteractionFlags(Qt::TextSelectableByMouse);
  value->setWordWrap(true);
  registerRefresher(QString(), [this, value, read] { value->setText(read(m_document->world())); });
  m_layout->addRow(label, value);
  return value;
}

}  // namespace articula::studio
