// Keyframes: named poses of a World (articula/keyframe.hpp).

#include <articula/error.hpp>
#include <articula/keyframe.hpp>
#include <articula/world.hpp>

#include "world_impl.hpp"

#include <algorithm>
#include <cmath>

namespace articula {

namespace {

std::vector<KeyframeSpec>::iterator findKeyframe(std::vector<KeyframeSpec>& keyframes, const std::string& name) {
  return std::find_if(keyframes.begin(), keyframes.end(), [&](const KeyframeSpec& k) { return k.name == name; });
}

void checkSize(const std::string& where, const char* what, const VectorXd& x, int expected, bool optional) {
  if (optional && x.size() == 0) return;
  if (x.size() != expected) {
    throw InvalidArgument(where + ": " + what + " has " + std::to_string(x.size()) + " values; the world has " +
                          std::to_string(expected));
  }
  if (!x.allFinite()) throw InvalidArgument(where + ": " + what + " must be finite");
}

// Checks a keyframe against the world; `replacing` names the keyframe it replaces.
void checkKeyframe(detail::WorldImpl& w, const KeyframeSpec& k, const std::string* replacing) {
  const std::string where = "keyframe '" + k.name + "'";
  if (k.name.empty()) throw InvalidArgument("keyframe: the name must not be empty");
  if (k.name.find('/') != std::string::npos) throw InvalidArgument(where + ": the name must not contain '/'");
  if ((replacing == nullptr || *replacing != k.name) && findKeyframe(w.keyframes, k.name) != w.keyframes.end()) {
    throw InvalidArgument(where + ": the name is taken by another keyframe");
  }
  if (!std::isfinite(k.time) || k.time < 0.0) throw InvalidArgument(where + ": time must be finite and >= 0");
  w.ensureModel();
  checkSize(where, "q", k.q, w.model.nq, false);
  checkSize(where, "v", k.v, w.model.nv, true);
  checkSize(where, "controls", k.controls, w.model.nu, true);
}

}  // namespace

void World::addKeyframe(const KeyframeSpec& keyframe) {
  auto& w = *m_impl;
  w.requireUnlocked("add a keyframe");
  checkKeyframe(w, keyframe, nullptr);
  w.keyframes.push_back(keyframe);
}

KeyframeSpec World::captureKeyframe(const std::string& name, double time, bool velocities, bool controls) const {
  KeyframeSpec k;
  k.name = name;
  k.time = time;
  k.q = getPositions();
  if (velocities) k.v = getVelocities();
  if (controls) k.controls = getControls();
  return k;
}

std::vector<KeyframeSpec> World::getKeyframes() const {
  return m_impl->keyframes;
}

std::optional<KeyframeSpec> World::getKeyframe(const std::string& name) const {
  const auto it = findKeyframe(m_impl->keyframes, name);
  if (it == m_impl->keyframes.end()) return std::nullopt;
  return *it;
}

void World::setKeyframe(const std::string& name, const KeyframeSpec& keyframe) {
  auto& w = *m_impl;
  w.requireUnlocked("change a keyframe");
  const auto it = findKeyframe(w.keyframes, name);
  if (it == w.keyframes.end()) throw TopologyError("no keyframe '" + name + "'");
  checkKeyframe(w, keyframe, &name);
  *it = keyframe;
}

void World::removeKeyframe(const std::string& name) {
  auto& w = *m_impl;
  w.requireUnlocked("remove a keyframe");
  const auto it = findKeyframe(w.keyframes, name);
  if (it != w.keyframes.end()) w.keyframes.erase(it);
}

void World::applyKeyframe(const std::string& name) {
  auto& w = *m_impl;
  w.requireUnlocked("apply a keyframe");
  const auto it = findKeyframe(w.keyframes, name);
  if (it == w.keyframes.end()) throw TopologyError("no keyframe '" + name + "'");
  w.ensureModel();
  const KeyframeSpec& k = *it;
  const std::string where = "keyframe '" + name + "'";
  auto mismatch = [&](const char* what, Eigen::Index have, int want) {
    throw TopologyError(where + " holds " + std::to_string(have) + " " + what + "; the world now has " +
                        std::to_string(want) + " (it was edited since the keyframe was captured)");
  };
  if (k.q.size() != w.model.nq) mismatch("positions", k.q.size(), w.model.nq);
  if (k.v.size() != 0 && k.v.size() != w.model.nv) mismatch("velocities", k.v.size(), w.model.nv);
  if (k.controls.size() != 0 && k.controls.size() != w.model.nu) mismatch("controls", k.controls.size(), w.model.nu);
  const KeyframeSpec copy = k;  // setters below may not invalidate it, but keep the values stable
  setPositions(copy.q);
  setVelocities(copy.v.size() != 0 ? copy.v : VectorXd::Zero(w.model.nv));
  if (copy.controls.size() != 0) setControls(copy.controls);
}

std::vector<ScheduleSpec> World::makeKeyframeSchedules(const std::vector<std::string>& names, const std::string& prefix,
                                                       bool loop) const {
  auto& w = *m_impl;
  if (names.empty()) throw InvalidArgument("makeKeyframeSchedules: no keyframes given");
  std::vector<const KeyframeSpec*> frames;
  for (const auto& n : names) {
    const auto it = findKeyframe(w.keyframes, n);
    if (it == w.keyframes.end()) throw TopologyError("makeKeyframeSchedules: no keyframe '" + n + "'");
    frames.push_back(&*it);
  }
  for (std::size_t i = 1; i < frames.size(); ++i) {
    if (!(frames[i]->time > frames[i - 1]->time)) {
      throw InvalidArgument("makeKeyframeSchedules: keyframe '" + frames[i]->name +
                            "' (t = " + std::to_string(frames[i]->time) + " s) does not come after '" +
                            frames[i - 1]->name + "' (t = " + std::to_string(frames[i - 1]->time) + " s)");
    }
  }
  w.ensureModel();
  for (const KeyframeSpec* k : frames) {
    if (k->q.size() != w.model.nq) {
      throw TopologyError("makeKeyframeSchedules: keyframe '" + k->name + "' holds " + std::to_string(k->q.size()) +
                          " positions; the world now has " + std::to_string(w.model.nq));
    }
  }
  std::vector<ScheduleSpec> out;
  for (int a = 0; a < w.model.nu; ++a) {
    const auto t = w.model.act_type[static_cast<std::size_t>(a)];
    const int qi = w.model.act_qpos[static_cast<std::size_t>(a)];
    if ((t != ActuatorType::PositionServo && t != ActuatorType::Pid) || qi < 0) continue;
    const std::string& actuatorName = w.actuators[w.model.act_slot[static_cast<std::size_t>(a)]].spec.name;
    ScheduleSpec s;
    s.name = prefix + actuatorName;
    s.actuator = actuatorName;
    s.kind = ScheduleSpec::Kind::Keyframes;
    s.loop = loop;
    for (const KeyframeSpec* k : frames) s.keyframes.emplace_back(k->time, k->q[qi]);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace articula
