#pragma once
/// @file
/// PropertyForm: the fields of one object's property form, built into a
/// QFormLayout. A field reads its value from the design (Document::world())
/// and every change goes through Document::edit() as one undoable step
/// (steps of one field merge); a value refused by the field's check or by
/// the edit is shown with a message under the field and the field shows the
/// design's value again. Editors carry object names "field_<key>", their
/// messages "error_<key>", read-only values "value_<key>", so that tests and
/// scripts can find them.
///
/// What the form shows is up to its user: begin() starts a new form for an
/// object, the add... and make... functions put fields into it, and
/// refreshValues() reads every shown value from the design again (after an
/// undo, a drag, ...). Editors made read-only (isReadOnly()) stay disabled.
/// While values are written into the editors (isUpdating(), Updating) their
/// signals are ignored, so that showing a value never edits the design.
///
/// Also here: the number formatting the forms share (form::...).

#include "object_ref.hpp"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QWidget;

namespace articula::studio {

class Document;

namespace form {

/// `value` with 15 significant digits, the most that every decimal text
/// keeps through a double and back (what an editor shows while edited).
QString formatNumber(double value);
/// `value` rounded to 6 significant digits (what a field shows while it is
/// not being edited).
QString formatRounded(double value);
/// The value a field shows for `value`: reading the shown text gives it
/// back exactly.
double shownValue(double value);
QString qs(std::string_view text);
QString qs(const std::string& text);
/// A spin box for any double: shows the value rounded to 6 significant
/// digits, all 15 while it has the focus, accepts exponents, and reports a
/// value only when editing ends or a step is taken.
QDoubleSpinBox* newNumberBox();

}  // namespace form

class PropertyForm : public QObject {
  Q_OBJECT

 public:
  using Refresher = std::function<void()>;

  explicit PropertyForm(Document* document, QObject* parent = nullptr);
  ~PropertyForm() override;
  PropertyForm(const PropertyForm&) = delete;
  PropertyForm& operator=(const PropertyForm&) = delete;

  /// Holds the editors' signals off while it lives (isUpdating()).
  class Updating {
   public:
    explicit Updating(PropertyForm& form) : m_form(form) { ++m_form.m_updating; }
    ~Updating() { --m_form.m_updating; }
    Updating(const Updating&) = delete;
    Updating& operator=(const Updating&) = delete;

   private:
    PropertyForm& m_form;
  };

  /// Starts a new, empty form in `layout` for object `ref` (None: no
  /// object): forgets the fields and messages of the previous one.
  void begin(QFormLayout* layout, const ObjectRef& ref, bool readOnly);
  QFormLayout* layout() const { return m_layout; }
  /// The object the form shows.
  const ObjectRef& object() const { return m_ref; }
  /// Whether the editors are disabled.
  bool isReadOnly() const { return m_readOnly; }
  /// Whether values are being written into the editors: a handler of an
  /// editor's signal returns at once then.
  bool isUpdating() const { return m_updating > 0; }

  /// Re-reads every shown value from the design (a field whose object went
  /// away keeps its value until the form is built again).
  void refreshValues();

  /// A bold heading row.
  void addHeading(const QString& text);
  /// A row of editors (one per key) with their error labels below.
  void addRow(const QString& label, const std::vector<QWidget*>& editors, const QStringList& keys);
  /// The (hidden) message label of field `key`, for a row built by hand.
  QLabel* makeErrorLabel(const QString& key);
  /// `refresher` shows the design's value in field `key` (empty key: a
  /// value that is only shown); refreshValues() runs it.
  void registerRefresher(const QString& key, const Refresher& refresher);

  /// A numeric field: `read` gives the shown value, `validate` returns a
  /// message for a refused value (empty: fine), `write` applies it inside
  /// an edit.
  QWidget* addNumber(const QString& label, const QString& key, const std::function<double(const World&)>& read,
                     const std::function<QString(double)>& validate, const std::function<void(World&, double)>& write,
                     double step = 0.1, bool editable = true);
  /// A numeric field in a row shared with others (vector components).
  QWidget* makeNumber(const QString& key, const std::function<double(const World&)>& read,
                      const std::function<QString(double)>& validate, const std::function<void(World&, double)>& write,
                      double step, bool editable);
  /// An optional number (empty text = none), as for joint limits.
  QWidget* makeOptionalNumber(const QString& key, const std::function<std::optional<double>(const World&)>& read,
                              const std::function<QString(std::optional<double>)>& validate,
                              const std::function<void(World&, std::optional<double>)>& write);
  QWidget* addChoice(const QString& label, const QString& key, const QStringList& items,
                     const std::function<int(const World&)>& read, const std::function<void(World&, int)>& write);
  QWidget* addCheck(const QString& label, const QString& key, const std::function<bool(const World&)>& read,
                    const std::function<void(World&, bool)>& write);
  QLabel* addValueLabel(const QString& label, const QString& key, const std::function<QString(const World&)>& read);

  /// Runs `op` as one undoable step for field `key` (merged with the
  /// previous step of the same field of the same object when `merge`); on
  /// refusal shows the message under the field and puts the shown value back.
  bool commit(const QString& key, const QString& label, const std::function<void(World&)>& op, bool merge = true);
  /// Shows the design's value in field `key` again.
  void restoreField(const QString& key);
  void showError(const QString& key, const QString& message);
  /// Hides the message of field `key`.
  void hideError(const QString& key);
  void clearErrors();

 private:
  QString mergeKey(const QString& key) const;
  /// An edited value of field `key` of `ref`: refused by `validate` (a
  /// message, and the field shows the design's value again) or committed
  /// through `write` as one undo step.
  template <class T>
  void validateAndCommit(const QString& key, const ObjectRef& ref, const std::function<QString(T)>& validate,
                         const std::function<void(World&, T)>& write, T value);

  Document* m_document = nullptr;
  QFormLayout* m_layout = nullptr;  ///< where the rows go
  ObjectRef m_ref;                  ///< the object shown
  bool m_readOnly = false;
  int m_updating = 0;                   ///< > 0 while values are written into editors: their signals are ignored
  std::vector<Refresher> m_refreshers;  ///< re-read every shown value from the design
  std::map<QString, QLabel*> m_errors;  ///< error label per field key
  std::map<QString, Refresher> m_fieldRefreshers;  ///< per field key
};

}  // namespace articula::studio
