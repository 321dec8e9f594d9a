#pragma once
/// @file
/// The import report as the studio shows it: findings grouped by what they
/// are (loop cuts, couplers, warnings, ignored elements) and, within
/// warnings and ignored elements, by kind ("138 ignored elements of 3
/// kinds"), every group collapsed. The grouping is plain data, tested
/// without widgets; the window appears only when something needs
/// attention.

#include <articula/io/import.hpp>

#include <QString>
#include <QTreeWidget>

#include <vector>

namespace articula::studio {

/// One group of findings: a title and its lines, or sub-groups.
struct ReportGroup {
  QString title;                   ///< "3 warnings of 2 kinds"
  QString kind;                    ///< "cuts", "couplers", "assembly", "warnings", "ignored"
  std::vector<QString> lines;      ///< one finding per line (file:line: message)
  std::vector<ReportGroup> kinds;  ///< warnings and ignored elements: one group per kind
};

/// The kind of a report message: its leading element ("<gazebo>") or the
/// message with names and numbers blanked ("joint '…': velocity limit N
/// read as no limit"), so that the same finding about other objects groups
/// together.
QString reportEntryKind(const std::string& message);

/// The report's findings in groups (empty groups left out).
std::vector<ReportGroup> groupReport(const io::ImportReport& report);

/// Whether the report holds something the user should look at: loop cuts,
/// couplers or warnings (ignored elements alone do not).
bool reportNeedsAttention(const io::ImportReport& report);

/// The grouped report as a tree: one collapsed item per group, kinds under
/// warnings and ignored elements, findings as leaves.
class ImportReportView : public QTreeWidget {
  Q_OBJECT

 public:
  explicit ImportReportView(QWidget* parent = nullptr);
  void setReport(const io::ImportReport& report);
};

}  // namespace articula::studio
