#pragma once
/// @file
/// SceneTreeModel: the design as a tree for a QTreeView — the world (its
/// static shapes and frames), rigid bodies, multibodies with their links
/// nested by parent (each link shows its joint, shapes and frames), loop
/// closures and couplers. Items are named by ObjectRef; the model is
/// rebuilt from the world whenever the document's design changes. Editing
/// a name and dropping a link onto another link only push document edits
/// (rename, reparent); the model never changes the world itself.

#include "object_ref.hpp"

#include <QAbstractItemModel>

#include <vector>

namespace articula::studio {

class Document;

class SceneTreeModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  /// Role holding the item's ObjectKind (int).
  static constexpr int kKindRole = Qt::UserRole + 1;
  /// Role holding the item's ObjectRef name (QString).
  static constexpr int kNameRole = Qt::UserRole + 2;
  /// MIME type of dragged items: "kind\nname" per item, UTF-8.
  static constexpr const char* kMimeType = "application/x-articula-object";

  explicit SceneTreeModel(Document* document, QObject* parent = nullptr);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  /// Renaming pushes a rename edit; a refused name leaves the item as it was
  /// and the document reports the error (lastError()).
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

  Qt::DropActions supportedDropActions() const override;
  QStringList mimeTypes() const override;
  QMimeData* mimeData(const QModelIndexList& indexes) const override;
  bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                       const QModelIndex& parent) const override;
  /// A link dropped onto another link is moved under it (one undo step).
  bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                    const QModelIndex& parent) override;

  ObjectRef refAt(const QModelIndex& index) const;
  /// The index of an object (column 0), invalid when the tree does not show it.
  QModelIndex indexOf(const ObjectRef& ref) const;
  /// The message of the last refused rename or drop.
  const QString& lastError() const { return m_lastError; }

  /// Rebuilds the tree from the world (called on design changes).
  void rebuild();

 signals:
  /// A rename or drop was refused: the message says why.
  void editRefused(const QString& message);

 private:
  struct Node {
    ObjectRef ref;
    QString label;
    QString type;
    int parent = -1;  // index into m_nodes; -1 for top-level items
    int row = 0;      // row under the parent
    std::vector<int> children;
  };
  int addNode(int parent, ObjectRef ref, QString label, QString type);
  void addFramesOf(int parent, const std::string& frameName);
  void addShapesOf(int parent, const Frame& owner);
  void addLinkSubtree(int parent, const Link& link);
  const Node* nodeOf(const QModelIndex& index) const;

  Document* m_document;
  std::vector<Node> m_nodes;
  std::vector<int> m_top;
  QString m_lastError;
};

}  // namespace articula::studio
