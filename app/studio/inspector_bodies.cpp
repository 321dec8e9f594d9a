// The inspector forms of bodies: rigid bodies, multibodies, links and their inertia.
#include "inspector.hpp"

#include "document.hpp"
#include "edit_operations.hpp"
#include "inspector_parts.hpp"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>

#include <cmath>
#include <string>
#include <vector>

namespace articula::studio {

using namespace form;
using namespace inspector_parts;

namespace {

Inertia inertiaOf(const World& w, const ObjectRef& ref) {
  if (ref.kind == ObjectKind::RigidBody) return need(findRigidBody(w, ref), ref).getInertia();
  return need(findLink(w, ref), ref).getInertia();
}

void setInertiaOf(World& w, const ObjectRef& ref, const Inertia& inertia) {
  if (ref.kind == ObjectKind::RigidBody) {
    need(findRigidBody(w, ref), ref).setInertia(inertia);
  } else {
    need(findLink(w, ref), ref).setInertia(inertia);
  }
}

}  // namespace

void Inspector::buildRigidBody() {
  const ObjectRef ref = m_form.object();
  m_form.addHeading(tr("Rigid body"));
  addNameField();
  addInertiaFields(ref);
  m_form.addHeading(tr("Pose"));
  addPoseFields(
      QString(), [ref](const World& w) { return need(findRigidBody(w, ref), ref).getPose(); },
      [ref](World& w, const Isometry3d& X) { need(findRigidBody(w, ref), ref).setPose(X); });
}

void Inspector::buildMultibody() {
  const ObjectRef ref = m_form.object();
  m_form.addHeading(tr("Multibody"));
  addNameField();
  m_form.addCheck(
      tr("Self-collision"), QStringLiteral("self_collision"),
      [ref](const World& w) { return need(findMultibody(w, ref), ref).getSelfCollision(); },
      [ref](World& w, bool on) { need(findMultibody(w, ref), ref).setSelfCollision(on); });
  m_form.addValueLabel(tr("Links"), QStringLiteral("links"),
                       [ref](const World& w) { return QString::number(need(findMultibody(w, ref), ref).numLinks()); });
  m_form.addValueLabel(tr("Degrees of freedom"), QStringLiteral("dofs"),
                       [ref](const World& w) { return QString::number(need(findMultibody(w, ref), ref).numDofs()); });
}

void Inspector::buildLink() {
  const ObjectRef ref = m_form.object();
  const World& world = m_document->world();
  const Link link = need(findLink(world, ref), ref);
  const ObjectRef jointRef = refOf(link.getParentJoint());
  m_form.addHeading(tr("Link"));
  addNameField();
  m_form.addValueLabel(tr("Joint"), QStringLiteral("joint"), [jointRef](const World& w) {
    const Joint j = need(findJoint(w, jointRef), jointRef);
    return QStringLiteral("%1 (%2)").arg(qs(j.name()), qs(toString(j.type())));
  });
  addInertiaFields(ref);
  addCoordinateFields(jointRef);
  // Held where it is while another link is dragged (an editing aid, not saved).
  auto* pin = new QCheckBox(tr("Pinned while dragging others"));
  pin->setObjectName(QStringLiteral("field_pinned"));
  pin->setChecked(m_document->isPinned(ref));
  connect(pin, &QCheckBox::toggled, this, [this, ref](bool on) { m_document->setPinned(ref, on); });
  m_form.layout()->addRow(pin);
  if (m_form.isReadOnly()) buildSimulationControls(jointRef);
}

void Inspector::addInertiaFields(const ObjectRef& body) {
  m_form.addHeading(tr("Inertia"));
  const bool rigid = body.kind == ObjectKind::RigidBody;
  m_form.addNumber(
      tr("Mass (kg)"), QStringLiteral("mass"), [body](const World& w) { return inertiaOf(w, body).mass; },
      [rigid](double v) {
        if (rigid) return std::isfinite(v) && v > 0.0 ? QString() : tr("The mass of a rigid body must be positive.");
        return std::isfinite(v) && v >= 0.0 ? QString() : tr("The mass must not be negative.");
      },
      [body](World& w, double v) {
        Inertia in = inertiaOf(w, body);
        in.mass = v;
        setInertiaOf(w, body, in);
      },
      0.1);

  std::vector<QWidget*> com;
  QStringList comKeys;
  static const char* axes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    const QString key = QStringLiteral("com_") + QLatin1String(axes[i]);
    comKeys << key;
    com.push_back(m_form.makeNumber(
        key, [body, i](const World& w) { return inertiaOf(w, body).com[i]; }, finiteMessage,
        [body, i](World& w, double v) {
          Inertia in = inertiaOf(w, body);
          in.com[i] = v;
          setInertiaOf(w, body, in);
        },
        0.01, true));
  }
  m_form.addRow(tr("Centre of mass (m)"), com, comKeys);

  struct Entry {
    const char* key;
    int row, col;
  };
  static const Entry diagonal[] = {{"inertia_xx", 0, 0}, {"inertia_yy", 1, 1}, {"inertia_zz", 2, 2}};
  static const Entry offDiagonal[] = {{"inertia_xy", 0, 1}, {"inertia_xz", 0, 2}, {"inertia_yz", 1, 2}};
  for (const auto* entries : {diagonal, offDiagonal}) {
    std::vector<QWidget*> editors;
    QStringList keys;
    const bool isDiagonal = entries == diagonal;
    for (int k = 0; k < 3; ++k) {
      const Entry e = entries[k];
      const QString key = QLatin1String(e.key);
      keys << key;
      editors.push_back(m_form.makeNumber(
          key, [body, e](const World& w) { return inertiaOf(w, body).rotational(e.row, e.col); },
          isDiagonal ? std::function<QString(double)>(nonNegativeMessage)
                     : std::function<QString(double)>(finiteMessage),
          [body, e](World& w, double v) {
            Inertia in = inertiaOf(w, body);
            in.rotational(e.row, e.col) = v;
            in.rotational(e.col, e.row) = v;
            setInertiaOf(w, body, in);
          },
          1e-4, true));
    }
    m_form.addRow(isDiagonal ? tr("Ixx, Iyy, Izz (kg·m²)") : tr("Ixy, Ixz, Iyz (kg·m²)"), editors, keys);
  }

  // Compute from shapes: a density (not part of the design) and a button.
  auto* density = newNumberBox();
  density->setObjectName(QStringLiteral("field_density"));
  density->setSingleStep(100.0);
  density->setValue(m_density);
  density->setEnabled(!m_form.isReadOnly());
  connect(density, &QDoubleSpinBox::valueChanged, this, [this, density](double v) {
    if (m_form.isUpdating()) return;
    if (!(std::isfinite(v) && v > 0.0)) {
      m_form.showError(QStringLiteral("density"), tr("The density must be positive."));
      const PropertyForm::Updating updating(m_form);
      density->setValue(m_density);
      return;
    }
    m_density = v;
    m_form.hideError(QStringLiteral("density"));
  });
  auto* button = new QPushButton(tr("Compute from shapes"));
  button->setObjectName(QStringLiteral("button_compute_inertia"));
  button->setEnabled(!m_form.isReadOnly());
  button->setToolTip(tr("Mass, centre of mass and rotational inertia of the body's shapes filled with this density"));
  connect(button, &QPushButton::clicked, this, [this, body] { computeInertia(body); });
  m_form.addRow(tr("Density (kg/m³)"), {density, button}, {QStringLiteral("density")});
  m_note = new QLabel;
  m_note->setObjectName(QStringLiteral("note_density"));
  m_note->setWordWrap(true);
  m_note->setVisible(false);
  m_form.layout()->addRow(m_note);
}

void Inspector::computeInertia(const ObjectRef& body) {
  std::vector<std::string> skipped;
  const double density = m_density;
  const bool ok = m_form.commit(
      QStringLiteral("density"), tr("Compute inertia of %1").arg(qs(body.name)),
      [&skipped, body, density](World& w) {
        skipped.clear();
        setInertiaOf(w, body, ops::inertiaFromShapes(w, body, density, &skipped));
      },
      false);
  if (ok && m_note != nullptr) {
    QStringList names;
    for (const std::string& s : skipped) names << qs(s);
    m_note->setText(names.isEmpty() ? QString() : tr("Mesh shapes left out: %1").arg(names.join(QStringLiteral(", "))));
    m_note->setVisible(!names.isEmpty());
  }
}

}  // namespace articula::studio
