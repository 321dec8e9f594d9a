// The inspector forms of closed chains: loop closures and joint couplers.
#include "inspector.hpp"

#include "document.hpp"
#include "edit_operations.hpp"
#include "inspector_parts.hpp"

#include <cmath>

namespace articula::studio {

using namespace form;
using namespace inspector_parts;

void Inspector::buildLoopClosure() {
  const ObjectRef ref = m_form.object();
  const World& world = m_document->world();
  const LoopClosure closure = need(findLoopClosure(world, ref), ref);
  const LoopClosureFamily family = closure.family();
  m_form.addHeading(tr("Loop closure"));
  addNameField();
  const auto frameLabel = [](const Frame& f) { return f.isWorld() ? QStringLiteral("world") : qs(f.name()); };
  m_form.addValueLabel(tr("Frame A"), QStringLiteral("frame_a"), [ref, frameLabel](const World& w) {
    return frameLabel(need(findLoopClosure(w, ref), ref).getSpec().frameA);
  });
  m_form.addValueLabel(tr("Frame B"), QStringLiteral("frame_b"), [ref, frameLabel](const World& w) {
    return frameLabel(need(findLoopClosure(w, ref), ref).getSpec().frameB);
  });

  QStringList families;
  for (int f = 0; f <= static_cast<int>(LoopClosureFamily::Distance); ++f) {
    families << qs(toString(static_cast<LoopClosureFamily>(f)));
  }
  m_form.addChoice(
      tr("Family"), QStringLiteral("family"), families,
      [ref](const World& w) { return static_cast<int>(need(findLoopClosure(w, ref), ref).family()); },
      [ref](World& w, int index) {
        const LoopClosure c = need(findLoopClosure(w, ref), ref);
        const LoopClosureSpec s = c.getSpec();
        const auto to = static_cast<LoopClosureFamily>(index);
        double length = s.length;
        if (to == LoopClosureFamily::Distance && s.family != LoopClosureFamily::Distance) {
          length = (c.getEndpointB().translation() - c.getEndpointA().translation()).norm();
          if (!(length > 1e-9)) {
            throw InvalidArgument(
                "the endpoints coincide, so a distance closure would have length zero; "
                "move an offset first");
          }
        }
        ops::setLoopClosureGeometry(w, ref, to, s.offsetA, s.offsetB, length);
      });
  if (family == LoopClosureFamily::Distance) {
    m_form.addNumber(
        tr("Length (m)"), QStringLiteral("length"),
        [ref](const World& w) { return need(findLoopClosure(w, ref), ref).getSpec().length; }, positiveMessage,
        [ref](World& w, double v) {
          const LoopClosureSpec s = need(findLoopClosure(w, ref), ref).getSpec();
          ops::setLoopClosureGeometry(w, ref, s.family, s.offsetA, s.offsetB, v);
        },
        0.01);
  }
  for (int which = 0; which < 2; ++which) {
    m_form.addHeading(which == 0 ? tr("Offset A (in frame A)") : tr("Offset B (in frame B)"));
    addPoseFields(
        which == 0 ? QStringLiteral("offset_a_") : QStringLiteral("offset_b_"),
        [ref, which](const World& w) {
          const LoopClosureSpec s = need(findLoopClosure(w, ref), ref).getSpec();
          return which == 0 ? s.offsetA : s.offsetB;
        },
        [ref, which](World& w, const Isometry3d& X) {
          const LoopClosureSpec s = need(findLoopClosure(w, ref), ref).getSpec();
          ops::setLoopClosureGeometry(w, ref, s.family, which == 0 ? X : s.offsetA, which == 1 ? X : s.offsetB,
                                      s.length);
        });
  }

  m_form.addHeading(tr("Policy"));
  using Policy = LoopClosureRuntimePolicy;
  const auto readPolicy = [ref](const World& w) { return need(findLoopClosure(w, ref), ref).getRuntimePolicy(); };
  const auto setPolicy = [ref](World& w, const std::function<void(Policy&)>& change) {
    LoopClosure c = need(findLoopClosure(w, ref), ref);
    Policy p = c.getRuntimePolicy();
    change(p);
    c.setRuntimePolicy(p);
  };
  m_form.addCheck(
      tr("Enabled"), QStringLiteral("enabled"), [readPolicy](const World& w) { return readPolicy(w).enabled; },
      [setPolicy](World& w, bool on) { setPolicy(w, [on](Policy& p) { p.enabled = on; }); });
  m_form.addChoice(
      tr("Kinematics"), QStringLiteral("kinematics"), {QStringLiteral("project"), QStringLiteral("residual-only")},
      [readPolicy](const World& w) { return readPolicy(w).kinematics == ClosureKinematicsPolicy::Project ? 0 : 1; },
      [setPolicy](World& w, int index) {
        setPolicy(w, [index](Policy& p) {
          p.kinematics = index == 0 ? ClosureKinematicsPolicy::Project : ClosureKinematicsPolicy::ResidualOnly;
        });
      });
  m_form.addChoice(
      tr("Dynamics"), QStringLiteral("dynamics"), {QStringLiteral("solve"), QStringLiteral("off")},
      [readPolicy](const World& w) { return readPolicy(w).dynamics == ClosureDynamicsPolicy::Solve ? 0 : 1; },
      [setPolicy](World& w, int index) {
        setPolicy(w, [index](Policy& p) {
          p.dynamics = index == 0 ? ClosureDynamicsPolicy::Solve : ClosureDynamicsPolicy::Off;
        });
      });
  m_form.addChoice(
      tr("Stabilization"), QStringLiteral("stabilization"), {QStringLiteral("baumgarte"), QStringLiteral("compliance")},
      [readPolicy](const World& w) { return readPolicy(w).stabilization == ClosureStabilization::Compliance ? 1 : 0; },
      [setPolicy](World& w, int index) {
        setPolicy(w, [index](Policy& p) {
          p.stabilization = index == 1 ? ClosureStabilization::Compliance : ClosureStabilization::Baumgarte;
        });
      });
  if (closure.getRuntimePolicy().stabilization == ClosureStabilization::Baumgarte) {
    m_form.addNumber(
        tr("Error reduction"), QStringLiteral("error_reduction"),
        [readPolicy](const World& w) { return readPolicy(w).errorReduction; }, unitIntervalMessage,
        [setPolicy](World& w, double v) { setPolicy(w, [v](Policy& p) { p.errorReduction = v; }); }, 0.05);
  } else {
    m_form.addNumber(
        tr("Stiffness"), QStringLiteral("stiffness"), [readPolicy](const World& w) { return readPolicy(w).stiffness; },
        positiveMessage, [setPolicy](World& w, double v) { setPolicy(w, [v](Policy& p) { p.stiffness = v; }); },
        1000.0);
    m_form.addNumber(
        tr("Damping"), QStringLiteral("damping"), [readPolicy](const World& w) { return readPolicy(w).damping; },
        nonNegativeMessage, [setPolicy](World& w, double v) { setPolicy(w, [v](Policy& p) { p.damping = v; }); }, 10.0);
  }
  m_form.addNumber(
      tr("Tolerance"), QStringLiteral("tolerance"), [readPolicy](const World& w) { return readPolicy(w).tolerance; },
      positiveMessage, [setPolicy](World& w, double v) { setPolicy(w, [v](Policy& p) { p.tolerance = v; }); }, 1e-10);
  m_form.addValueLabel(tr("Residual norm"), QStringLiteral("residual"), [ref](const World& w) {
    return formatRounded(need(findLoopClosure(w, ref), ref).computeResidualNorm());
  });
}

void Inspector::buildCoupler() {
  const ObjectRef ref = m_form.object();
  m_form.addHeading(tr("Joint coupler"));
  addNameField();
  const auto jointLabel = [](const Joint& j) { return qs(j.getMultibody().name() + "/" + j.name()); };
  m_form.addValueLabel(tr("Leader"), QStringLiteral("leader"), [ref, jointLabel](const World& w) {
    return jointLabel(need(findCoupler(w, ref), ref).getSpec().leader);
  });
  m_form.addValueLabel(tr("Follower"), QStringLiteral("follower"), [ref, jointLabel](const World& w) {
    return jointLabel(need(findCoupler(w, ref), ref).getSpec().follower);
  });
  m_form.addNumber(
      tr("Ratio"), QStringLiteral("ratio"),
      [ref](const World& w) { return need(findCoupler(w, ref), ref).getSpec().ratio; },
      [](double v) { return std::isfinite(v) && v != 0.0 ? QString() : tr("The ratio must be finite and not zero."); },
      [ref](World& w, double v) { ops::setCouplerRatio(w, ref, v, need(findCoupler(w, ref), ref).getSpec().offset); },
      0.1);
  m_form.addNumber(
      tr("Offset"), QStringLiteral("offset"),
      [ref](const World& w) { return need(findCoupler(w, ref), ref).getSpec().offset; }, finiteMessage,
      [ref](World& w, double v) { ops::setCouplerRatio(w, ref, need(findCoupler(w, ref), ref).getSpec().ratio, v); },
      0.01);
  m_form.addCheck(
      tr("Enabled"), QStringLiteral("enabled"),
      [ref](const World& w) { return need(findCoupler(w, ref), ref).isEnabled(); },
      [ref](World& w, bool on) { need(findCoupler(w, ref), ref).setEnabled(on); });
  m_form.addValueLabel(tr("Residual"), QStringLiteral("residual"), [ref](const World& w) {
    return formatRounded(need(findCoupler(w, ref), ref).computeResidual().residual);
  });
}

}  // namespace articula::studio
