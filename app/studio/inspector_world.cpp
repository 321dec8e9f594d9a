// The world form of the inspector: options and the constraint solver.
#include "inspector.hpp"

#include "document.hpp"
#include "inspector_parts.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace articula::studio {

using namespace inspector_parts;

void Inspector::buildWorld() {
  m_form.addHeading(tr("World"));
  std::vector<QWidget*> gravity;
  QStringList keys;
  static const char* axes[] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    const QString key = QStringLiteral("gravity_") + QLatin1String(axes[i]);
    keys << key;
    gravity.push_back(m_form.makeNumber(
        key, [i](const World& w) { return w.getOptions().gravity[i]; }, finiteMessage,
        [i](World& w, double v) {
          WorldOptions o = w.getOptions();
          o.gravity[i] = v;
          w.setOptions(o);
        },
        0.1, true));
  }
  m_form.addRow(tr("Gravity (m/s²)"), gravity, keys);
  m_form.addNumber(
      tr("Time step (s)"), QStringLiteral("time_step"), [](const World& w) { return w.getOptions().timeStep; },
      positiveMessage,
      [](World& w, double v) {
        WorldOptions o = w.getOptions();
        o.timeStep = v;
        w.setOptions(o);
      },
      1e-4);
  m_form.addChoice(
      tr("Integrator"), QStringLiteral("integrator"), {tr("Semi-implicit Euler"), tr("Runge–Kutta 4")},
      [](const World& w) { return w.getOptions().integrator == Integrator::RungeKutta4 ? 1 : 0; },
      [](World& w, int index) {
        WorldOptions o = w.getOptions();
        o.integrator = index == 1 ? Integrator::RungeKutta4 : Integrator::SemiImplicitEuler;
        w.setOptions(o);
      });
  m_form.addHeading(tr("Constraint solver"));
  QStringList methodNames;
  for (const std::string& m : constraintSolverMethods()) methodNames << QString::fromStdString(m);
  m_form.addChoice(
      tr("Method"), QStringLiteral("solver_method"), methodNames,
      [](const World& w) {
        const auto& all = constraintSolverMethods();
        const auto it = std::find(all.begin(), all.end(), w.getOptions().solver.method);
        return it == all.end() ? 0 : static_cast<int>(it - all.begin());
      },
      [](World& w, int index) {
        WorldOptions o = w.getOptions();
        o.solver.method = constraintSolverMethods().at(static_cast<std::size_t>(index));
        w.setOptions(o);
      });
  m_form.addNumber(
      tr("Iterations"), QStringLiteral("solver_iterations"),
      [](const World& w) { return static_cast<double>(w.getOptions().solver.maxIterations); },
      [](double v) {
        return v >= 1.0 && v <= 1e6 && v == std::floor(v) ? QString() : tr("Must be a whole number of at least 1.");
      },
      [](World& w, double v) {
        WorldOptions o = w.getOptions();
        o.solver.maxIterations = static_cast<int>(v);
        w.setOptions(o);
      },
      1.0);
}

}  // namespace articula::studio
