// The shape form of the inspector: geometry, pose, contact material and colour.
#include "inspector.hpp"

#include "document.hpp"
#include "edit_operations.hpp"
#include "inspector_parts.hpp"

#include <QColor>
#include <QColorDialog>
#include <QPushButton>

#include <algorithm>
#include <vector>

namespace articula::studio {

using namespace form;
using namespace inspector_parts;

namespace {

// ---- geometry ------------------------------------------------------------------

const std::vector<GeometryType>& primitiveTypes() {
  static const std::vector<GeometryType> types = {GeometryType::Box, GeometryType::Sphere, GeometryType::Capsule,
                                                  GeometryType::Cylinder, GeometryType::Ellipsoid};
  return types;
}

bool isPrimitive(GeometryType type) {
  const auto& types = primitiveTypes();
  return std::find(types.begin(), types.end(), type) != types.end();
}

Vector3d halfExtents(const Geometry& g) {
  switch (g.type) {
    case GeometryType::Box:
      return g.size / 2.0;
    case GeometryType::Sphere:
      return Vector3d::Constant(g.radius);
    case GeometryType::Cylinder:
      return Vector3d(g.radius, g.radius, g.length / 2.0);
    case GeometryType::Capsule:
      return Vector3d(g.radius, g.radius, g.length / 2.0 + g.radius);
    case GeometryType::Ellipsoid:
      return g.size;
    default:
      return Vector3d::Constant(0.1);
  }
}

// A geometry of `type` of about the same extent as `g`.
Geometry convertGeometry(const Geometry& g, GeometryType type) {
  const Vector3d h = halfExtents(g);
  const double radius = std::min(h.x(), h.y());
  switch (type) {
    case GeometryType::Box:
      return Geometry::box(2.0 * h);
    case GeometryType::Sphere:
      return Geometry::sphere(h.maxCoeff());
    case GeometryType::Cylinder:
      return Geometry::cylinder(radius, 2.0 * h.z());
    case GeometryType::Capsule:
      return Geometry::capsule(radius, std::max(2.0 * (h.z() - radius), radius));
    case GeometryType::Ellipsoid:
      return Geometry::ellipsoid(h);
    default:
      return g;
  }
}

}  // namespace

void Inspector::buildShape() {
  const ObjectRef ref = m_form.object();
  const World& world = m_document->world();
  const Shape shape = need(findShape(world, ref), ref);
  const Geometry geometry = shape.getGeometry();
  m_form.addHeading(shape.isCollision() ? tr("Collision shape") : tr("Visual shape"));
  addNameField();
  m_form.addValueLabel(tr("Owner"), QStringLiteral("owner"), [ref](const World& w) {
    const Frame owner = need(findShape(w, ref), ref).getOwner();
    return owner.isWorld() ? QStringLiteral("world") : qs(owner.name());
  });

  m_form.addHeading(tr("Geometry"));
  const bool primitive = isPrimitive(geometry.type);
  QStringList typeNames;
  if (primitive) {
    for (GeometryType t : primitiveTypes()) typeNames << qs(toString(t));
  } else {
    typeNames << qs(toString(geometry.type));
  }
  QWidget* typeBox = m_form.addChoice(
      tr("Type"), QStringLiteral("geometry_type"), typeNames,
      [ref, primitive](const World& w) {
        if (!primitive) return 0;
        const auto& types = primitiveTypes();
        const GeometryType t = need(findShape(w, ref), ref).getGeometry().type;
        return static_cast<int>(std::find(types.begin(), types.end(), t) - types.begin());
      },
      [ref](World& w, int index) {
        const Geometry g = need(findShape(w, ref), ref).getGeometry();
        ops::setShapeGeometry(w, ref, convertGeometry(g, primitiveTypes().at(static_cast<std::size_t>(index))));
      });
  if (!primitive) typeBox->setEnabled(false);

  const auto geometryWriter = [ref](const std::function<void(Geometry&, double)>& change) {
    return [ref, change](World& w, double v) {
      Geometry g = need(findShape(w, ref), ref).getGeometry();
      change(g, v);
      ops::setShapeGeometry(w, ref, g);
    };
  };
  const auto readGeometry = [ref](const World& w) { return need(findShape(w, ref), ref).getGeometry(); };
  static const char* axes[] = {"x", "y", "z"};
  switch (geometry.type) {
    case GeometryType::Box:
    case GeometryType::Ellipsoid: {
      std::vector<QWidget*> editors;
      QStringList keys;
      for (int i = 0; i < 3; ++i) {
        const QString key = QStringLiteral("size_") + QLatin1String(axes[i]);
        keys << key;
        editors.push_back(m_form.makeNumber(
            key, [readGeometry, i](const World& w) { return readGeometry(w).size[i]; }, positiveMessage,
            geometryWriter([i](Geometry& g, double v) { g.size[i] = v; }), 0.01, true));
      }
      m_form.addRow(geometry.type == GeometryType::Box ? tr("Size (m)") : tr("Semi-axes (m)"), editors, keys);
      break;
    }
    case GeometryType::Sphere:
    case GeometryType::Capsule:
    case GeometryType::Cylinder:
      m_form.addNumber(
          tr("Radius (m)"), QStringLiteral("radius"), [readGeometry](const World& w) { return readGeometry(w).radius; },
          positiveMessage, geometryWriter([](Geometry& g, double v) { g.radius = v; }), 0.01);
      if (geometry.type != GeometryType::Sphere) {
        m_form.addNumber(
            tr("Length (m)"), QStringLiteral("length"),
            [readGeometry](const World& w) { return readGeometry(w).length; }, positiveMessage,
            geometryWriter([](Geometry& g, double v) { g.length = v; }), 0.01);
      }
      break;
    case GeometryType::ConvexMesh:
    case GeometryType::TriangleMesh:
      m_form.addValueLabel(tr("Mesh"), QStringLiteral("mesh"), [readGeometry](const World& w) {
        const Geometry g = readGeometry(w);
        const QString source = g.meshFile.empty() ? tr("built in code") : qs(g.meshFile);
        return tr("%1 vertices, %2 triangles (%3)")
            .arg(static_cast<qlonglong>(g.vertices.size()))
            .arg(static_cast<qlonglong>(g.triangles.size()))
            .arg(source);
      });
      break;
    case GeometryType::Plane:
      break;
  }

  m_form.addHeading(tr("Pose in owner"));
  addPoseFields(
      QString(), [ref](const World& w) { return need(findShape(w, ref), ref).getLocalPose(); },
      [ref](World& w, const Isometry3d& X) { need(findShape(w, ref), ref).setLocalPose(X); });

  if (shape.isCollision()) {
    m_form.addHeading(tr("Contact"));
    // A number of the shape's material.
    const auto materialNumber = [&](const QString& label, const QString& key, double Material::*field,
                                    const std::function<QString(double)>& validate) {
      m_form.addNumber(
          label, key, [ref, field](const World& w) { return need(findShape(w, ref), ref).getMaterial().*field; },
          validate,
          [ref, field](World& w, double v) {
            Shape s = need(findShape(w, ref), ref);
            Material m = s.getMaterial();
            m.*field = v;
            s.setMaterial(m);
          },
          0.05);
    };
    materialNumber(tr("Friction"), QStringLiteral("friction"), &Material::friction, nonNegativeMessage);
    materialNumber(tr("Restitution"), QStringLiteral("restitution"), &Material::restitution, unitIntervalMessage);
    m_form.addCheck(
        tr("Collidable"), QStringLiteral("collidable"),
        [ref](const World& w) { return need(findShape(w, ref), ref).isCollidable(); },
        [ref](World& w, bool on) { need(findShape(w, ref), ref).setCollidable(on); });
  } else {
    m_form.addHeading(tr("Appearance"));
    std::vector<QWidget*> editors;
    QStringList keys;
    static const char* channels[] = {"r", "g", "b", "a"};
    for (int i = 0; i < 4; ++i) {
      const QString key = QStringLiteral("color_") + QLatin1String(channels[i]);
      keys << key;
      editors.push_back(m_form.makeNumber(
          key, [ref, i](const World& w) { return need(findShape(w, ref), ref).getColor()[i]; }, unitIntervalMessage,
          [ref, i](World& w, double v) {
            Shape s = need(findShape(w, ref), ref);
            Vector4d c = s.getColor();
            c[i] = v;
            s.setColor(c);
          },
          0.05, true));
    }
    auto* pick = new QPushButton(tr("Pick…"));
    pick->setObjectName(QStringLiteral("button_pick_color"));
    pick->setEnabled(!m_form.isReadOnly());
    connect(pick, &QPushButton::clicked, this, [this, ref] {
      Vector4d c;
      try {
        c = need(findShape(m_document->world(), ref), ref).getColor();
      } catch (const std::exception&) {
        return;
      }
      const QColor initial = QColor::fromRgbF(static_cast<float>(c[0]), static_cast<float>(c[1]),
                                              static_cast<float>(c[2]), static_cast<float>(c[3]));
      const QColor chosen = QColorDialog::getColor(initial, this, tr("Shape colour"), QColorDialog::ShowAlphaChannel);
      if (!chosen.isValid()) return;
      const Vector4d rgba(static_cast<double>(chosen.redF()), static_cast<double>(chosen.greenF()),
                          static_cast<double>(chosen.blueF()), static_cast<double>(chosen.alphaF()));
      m_form.commit(
          QStringLiteral("color_r"), tr("Set colour of %1").arg(qs(ref.name)),
          [ref, rgba](World& w) { need(findShape(w, ref), ref).setColor(rgba); }, false);
    });
    editors.push_back(pick);
    m_form.addRow(tr("Colour (RGBA)"), editors, keys);
  }
}

}  // namespace articula::studio
