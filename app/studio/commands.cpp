#include "commands.hpp"

#include "document.hpp"

#include <exception>
#include <utility>

namespace articula::studio {

DesignCommand::DesignCommand(Document* document, const QString& label, WorldSpec before, WorldSpec after,
                             QString mergeKey)
    : QUndoCommand(label),
      m_document(document),
      m_before(std::move(before)),
      m_after(std::move(after)),
      m_mergeKey(std::move(mergeKey)) {}

void DesignCommand::undo() {
  restore(m_before);
  m_applied = false;
}

void DesignCommand::redo() {
  if (m_applied) return;  // pushed after the edit was made
  restore(m_after);
  m_applied = true;
}

void DesignCommand::restore(const WorldSpec& spec) {
  // Undo runs from Qt's event handling: an error is reported, not thrown
  // (the design then stays as it was).
  try {
    m_document->restoreSpec(spec);
  } catch (const std::exception& e) {
    m_document->report(
        QObject::tr("\"%1\" could not be undone or redone: %2").arg(actionText(), QString::fromUtf8(e.what())));
  }
}

bool DesignCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = static_cast<const DesignCommand*>(other);
  if (m_mergeKey.isEmpty() || o->m_mergeKey != m_mergeKey) return false;
  m_after = o->m_after;
  return true;
}

PositionsCommand::PositionsCommand(Document* document, const QString& label, VectorXd before, VectorXd after,
                                   QString mergeKey)
    : QUndoCommand(label),
      m_document(document),
      m_before(std::move(before)),
      m_after(std::move(after)),
      m_mergeKey(std::move(mergeKey)) {}

void PositionsCommand::undo() {
  m_document->world().setPositions(m_before);
  m_applied = false;
  m_document->notifyPositionsChanged();
}

void PositionsCommand::redo() {
  if (m_applied) return;
  m_document->world().setPositions(m_after);
  m_applied = true;
  m_document->notifyPositionsChanged();
}

bool PositionsCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = static_cast<const PositionsCommand*>(other);
  if (m_mergeKey.isEmpty() || o->m_mergeKey != m_mergeKey) return false;
  m_after = o->m_after;
  return true;
}

}  // namespace articula::studio
