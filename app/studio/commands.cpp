#include "commands.hpp"

#include "document.hpp"

#include <utility>

namespace articula::studio {

SceneTextCommand::SceneTextCommand(Document* document, const QString& label, std::string before, std::string after,
                                   QString mergeKey)
    : QUndoCommand(label),
      m_document(document),
      m_before(std::move(before)),
      m_after(std::move(after)),
      m_mergeKey(std::move(mergeKey)) {}

void SceneTextCommand::undo() {
  m_document->restoreText(m_before);
  m_applied = false;
}

void SceneTextCommand::redo() {
  if (m_applied) return;  // pushed after the edit was made
  m_document->restoreText(m_after);
  m_applied = true;
}

bool SceneTextCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = static_cast<const SceneTextCommand*>(other);
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
