#pragma once
/// @file
/// Whether the studio can open a window at all, checked before Qt is
/// started: without a display Qt only says that its "xcb" plugin could not
/// be loaded and aborts.

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace articula::studio {

/// The one-line reason the studio cannot start here, or an empty string:
/// neither DISPLAY nor WAYLAND_DISPLAY is set and no platform was chosen
/// (`-platform NAME` among `arguments`, or QT_QPA_PLATFORM).
QString displayProblem(const QStringList& arguments, const QProcessEnvironment& environment);

}  // namespace articula::studio
