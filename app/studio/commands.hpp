#pragma once
/// @file
/// The undo commands of the document. A command holds names and values,
/// never engine handles (they do not survive a rebuilt world):
/// - SceneTextCommand: any design edit, as the serialized design before and
///   after it; undo and redo rebuild the world from that text, so the round
///   trip is exact by construction of the scene format's exact round trip.
/// - PositionsCommand: a change of the coordinates q only (gizmo drags,
///   joint-coordinate fields), applied in place without rebuilding.
/// Both merge with the command before them when their merge keys match
/// (one undo step per continuous drag or per run of edits of one field).

#include <articula/types.hpp>

#include <QString>
#include <QUndoCommand>

#include <string>

namespace articula::studio {

class Document;

class SceneTextCommand : public QUndoCommand {
 public:
  /// The edit has already been applied: the first redo() does nothing.
  SceneTextCommand(Document* document, const QString& label, std::string before, std::string after, QString mergeKey);
  void undo() override;
  void redo() override;
  int id() const override { return kId; }
  bool mergeWith(const QUndoCommand* other) override;

  const std::string& before() const { return m_before; }
  const std::string& after() const { return m_after; }

  static constexpr int kId = 1;

 private:
  void restore(const std::string& text);

  Document* m_document;
  std::string m_before;
  std::string m_after;
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
