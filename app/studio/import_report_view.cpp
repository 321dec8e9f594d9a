#include "import_report_view.hpp"

#include <QHeaderView>

#include <functional>
#include <map>

namespace articula::studio {

namespace {

QString where(const std::string& file, int line, const std::string& fallback) {
  const std::string& f = file.empty() ? fallback : file;
  return line > 0 ? QStringLiteral("%1:%2").arg(QString::fromStdString(f)).arg(line) : QString::fromStdString(f);
}

QString plural(std::size_t n, const QString& one, const QString& many) {
  return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

/// Groups `entries` by reportEntryKind, kinds in order of first appearance.
ReportGroup groupEntries(const std::vector<io::ReportEntry>& entries, const QString& kind, const QString& one,
                         const QString& many, const std::string& file) {
  ReportGroup group;
  group.kind = kind;
  std::map<QString, std::size_t> index;
  for (const io::ReportEntry& e : entries) {
    const QString k = reportEntryKind(e.message);
    auto [it, inserted] = index.emplace(k, group.kinds.size());
    if (inserted) group.kinds.push_back(ReportGroup{k, k, {}, {}});
    group.kinds[it->second].lines.push_back(where(e.file, e.line, file) + ": " + QString::fromStdString(e.message));
  }
  for (ReportGroup& k : group.kinds) k.title = QStringLiteral("%1 × %2").arg(k.lines.size()).arg(k.kind);
  group.title = QStringLiteral("%1 of %2")
                    .arg(plural(entries.size(), one, many),
                         plural(group.kinds.size(), QStringLiteral("kind"), QStringLiteral("kinds")));
  return group;
}

}  // namespace

QString reportEntryKind(const std::string& message) {
  return QString::fromStdString(io::reportEntryKind(message));
}

std::vector<ReportGroup> groupReport(const io::ImportReport& report) {
  std::vector<ReportGroup> groups;
  if (!report.cuts.empty()) {
    ReportGroup g{plural(report.cuts.size(), QStringLiteral("loop joint cut into a closure"),
                         QStringLiteral("loop joints cut into closures")),
                  QStringLiteral("cuts"),
                  {},
                  {}};
    for (const io::LoopCut& c : report.cuts) {
      g.lines.push_back(QStringLiteral("%1: joint '%2' → loop closure '%3' (%4): %5")
                            .arg(where(c.file, c.line, report.file), QString::fromStdString(c.joint),
                                 QString::fromStdString(c.closure), QString::fromUtf8(toString(c.family).data()),
                                 QString::fromStdString(c.reason)));
    }
    groups.push_back(std::move(g));
  }
  if (!report.couplers.empty()) {
    ReportGroup g{plural(report.couplers.size(), QStringLiteral("coupler"), QStringLiteral("couplers")),
                  QStringLiteral("couplers"),
                  {},
                  {}};
    for (const io::CouplerMade& c : report.couplers) {
      g.lines.push_back(QStringLiteral("%1: '%2': %3 = %4·%5 + %6")
                            .arg(where(c.file, c.line, report.file), QString::fromStdString(c.coupler),
                                 QString::fromStdString(c.follower))
                            .arg(c.ratio)
                            .arg(QString::fromStdString(c.leader))
                            .arg(c.offset));
    }
    groups.push_back(std::move(g));
  }
  if (report.assembly.performed) {
    groups.push_back(ReportGroup{QStringLiteral("assembled: closure residual %1 → %2 in %3 iterations")
                                     .arg(report.assembly.residualBefore, 0, 'g', 3)
                                     .arg(report.assembly.residualAfter, 0, 'g', 3)
                                     .arg(report.assembly.iterations),
                                 QStringLiteral("assembly"),
                                 {},
                                 {}});
  }
  if (!report.warnings.empty()) {
    groups.push_back(groupEntries(report.warnings, QStringLiteral("warnings"), QStringLiteral("warning"),
                                  QStringLiteral("warnings"), report.file));
  }
  if (!report.ignored.empty()) {
    groups.push_back(groupEntries(report.ignored, QStringLiteral("ignored"), QStringLiteral("ignored element"),
                                  QStringLiteral("ignored elements"), report.file));
  }
  return groups;
}

bool reportNeedsAttention(const io::ImportReport& report) {
  return !report.cuts.empty() || !report.couplers.empty() || !report.warnings.empty();
}

ImportReportView::ImportReportView(QWidget* parent) : QTreeWidget(parent) {
  setColumnCount(1);
  setHeaderHidden(true);
  setUniformRowHeights(true);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  header()->setStretchLastSection(false);
}

void ImportReportView::setReport(const io::ImportReport& report) {
  clear();
  const std::function<void(QTreeWidgetItem*, const ReportGroup&)> fill = [&](QTreeWidgetItem* item,
                                                                             const ReportGroup& g) {
    item->setText(0, g.title);
    for (const ReportGroup& k : g.kinds) fill(new QTreeWidgetItem(item), k);
    for (const QString& line : g.lines) new QTreeWidgetItem(item, QStringList{line});
  };
  for (const ReportGroup& g : groupReport(report)) {
    auto* item = new QTreeWidgetItem(this);
    item->setData(0, Qt::UserRole, g.kind);
    fill(item, g);
    QFont bold = item->font(0);
    bold.setBold(g.kind != "ignored");
    item->setFont(0, bold);
  }
  collapseAll();
}

}  // namespace articula::studio
