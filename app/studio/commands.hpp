#pragma once
/// @file
/// The undo commands of the document. A command holds names and values,
/// never engine handles (they do not survive a rebuilt world):
/// - DesignCommand: any design edit, as the world spec (WorldSpec) before
///   and after it; undo and redo rebuild the world from the spec, which is
///   exact by construction (World(getSpec()) steps bit for bit alike).
/// - PositionsCommand: a change of the coordinates q only (gizmo drags,
///   joint-coordinate fields), applied in place without rebuilding.
/// Both merge with the command before them when their merge keys match
/// (one undo step per continuous drag or per run of edits of one field).

#include <articula/types.hpp>
#include <articula/world_spec.hpp>

#include <QString>
#include <QUndoCommand>

#include <string>

namespace articula::studio {

class Document;

class DesignCommand : public QUndoCommand {
 public:
  /// The edit has already been applied: the first redo() does nothing.
  DesignCommand(Document* document, const QString& label, WorldSpec before, WorldSpec after, QString mergeKey);
  void undo() override;
  void redo() override;
  int id() const override { return kId; }
  bool mergeWith(const QUndoCommand* other) override;

  const WorldSpec& before() const { return m_before; }
  const WorldSpec& after() const { return m_after; }

  static constexpr int kId = 1;

 private:
  void restore(const WorldSpec& spec);

  Document* m_document;
  WorldSpec m_before;
  WorldSpec m_after;
  QString m_mergeKey;
  bool m_applied = true;
};

class PositionsCommand : public QUndoCommand {
 public:
  /// The positions are already `after`: the first redo() does nothing.
  PositionsCommand(Document* document, const QString& label, VectorXd before, VectorXd after, QString mergeKey);
  void undo() override;
  void redo() override;
  int id() const override { return kId; }
  bool mergeWith(const QUndoCommand* other) override;

  static constexpr int kId = 2;

 private:
  Document* m_document;
  VectorXd m_before;
  VectorXd m_after;
  QString m_mergeKey;
  bool m_applied = true;
};

}  // namespace articula::studio
