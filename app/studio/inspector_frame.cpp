// The inspector form of user frames.
#include "inspector.hpp"

#include "document.hpp"
#include "inspector_parts.hpp"

namespace articula::studio {

using namespace form;
using namespace inspector_parts;

void Inspector::buildFrame() {
  const ObjectRef ref = m_form.object();
  const World& world = m_document->world();
  const Frame frame = need(findFrame(world, ref), ref);
  const bool isFree = frame.kind() == FrameKind::FreeFrame;
  m_form.addHeading(isFree ? tr("Free frame") : tr("Fixed frame"));
  addNameField();
  m_form.addValueLabel(tr("Parent"), QStringLiteral("parent"), [ref](const World& w) {
    const Frame parent = need(findFrame(w, ref), ref).getParentFrame();
    return parent.isWorld() ? QStringLiteral("world") : qs(parent.name());
  });
  m_form.addHeading(tr("Pose in parent"));
  if (isFree) {
    addPoseFields(
        QString(), [ref](const World& w) { return need(w.getFreeFrame(ref.name), ref).getRelativeTransform(); },
        [ref](World& w, const Isometry3d& X) { need(w.getFreeFrame(ref.name), ref).setRelativeTransform(X); });
  } else {
    addPoseFields(
        QString(), [ref](const World& w) { return need(w.getFixedFrame(ref.name), ref).getRelativeTransform(); }, {},
        false);
  }
}

}  // namespace articula::studio
