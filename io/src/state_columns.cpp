#include <articula/io/state_columns.hpp>

#include <articula/error.hpp>

#include <algorithm>
#include <charconv>
#include <map>

namespace articula::io {

namespace {

std::vector<std::string> coordinateNames(const std::string& base, int count, bool alwaysIndexed) {
  std::vector<std::string> names;
  if (count == 1 && !alwaysIndexed) {
    names.push_back(base);
    return names;
  }
  for (int k = 0; k < count; ++k) names.push_back(base + ":" + std::to_string(k));
  return names;
}

// "name:K" → (name, K); K = -1 when there is no numeric suffix.
std::pair<std::string, int> splitIndex(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon + 1 >= text.size()) return {text, -1};
  int k = 0;
  const char* first = text.data() + colon + 1;
  const char* last = text.data() + text.size();
  const auto r = std::from_chars(first, last, k);
  if (r.ec != std::errc() || r.ptr != last || k < 0) return {text, -1};
  return {text.substr(0, colon), k};
}

}  // namespace

StateColumns::StateColumns(const World& world) {
  const StateSpace space = world.getStateSpace();
  // A name is ambiguous when two coordinate owners would share it.
  std::map<std::string, int> uses;
  for (const StateSegment& s : space.segments()) {
    if (s.numPositions == 0 && s.numDofs == 0) continue;
    ++uses[s.joint.empty() ? s.owner : s.joint];
  }
  for (const StateSegment& s : space.segments()) {
    if (s.numPositions == 0 && s.numDofs == 0) {
      if (!s.joint.empty()) {
        m_fixedJoints.push_back(s.joint);
        m_fixedJoints.push_back(s.owner + "/" + s.joint);
      }
      continue;
    }
    StateOwner o;
    o.multibody = s.joint.empty() ? std::string() : s.owner;
    o.joint = s.joint;
    if (s.joint.empty()) {
      o.name = s.owner;
    } else if (uses[s.joint] > 1) {
      o.name = s.owner + "/" + s.joint;
      if (std::find(m_ambiguousJoints.begin(), m_ambiguousJoints.end(), s.joint) == m_ambiguousJoints.end()) {
        m_ambiguousJoints.push_back(s.joint);
      }
    } else {
      o.name = s.joint;
    }
    o.positionOffset = s.positionOffset;
    o.numPositions = s.numPositions;
    o.velocityOffset = s.velocityOffset;
    o.numDofs = s.numDofs;
    const bool body = s.joint.empty();
    for (auto& n : coordinateNames(o.name, o.numPositions, body)) m_q.push_back(std::move(n));
    for (auto& n : coordinateNames(o.name, o.numDofs, body)) m_v.push_back(std::move(n));
    m_owners.push_back(std::move(o));
  }
}

int StateColumns::resolvePosition(const std::string& requested, const StateOwner** owner) const {
  std::string name = requested;
  if (name.rfind("q:", 0) == 0) name = name.substr(2);
  const auto [base, k] = splitIndex(name);

  auto matches = [&](const StateOwner& o, const std::string& candidate) {
    if (candidate == o.name) return true;
    if (o.joint.empty()) return false;
    return candidate == o.multibody + "/" + o.joint;
  };
  for (const StateOwner& o : m_owners) {
    const bool whole = matches(o, name);
    const bool indexed = k >= 0 && matches(o, base);
    if (!whole && !indexed) continue;
    if (owner != nullptr) *owner = &o;
    if (whole) {
      if (o.numPositions == 1 && !o.joint.empty()) return o.positionOffset;
      throw InvalidArgument("'" + name + "' has " + std::to_string(o.numPositions) + " position coordinates; write " +
                            o.name + ":K=VALUE with K in 0.." + std::to_string(o.numPositions - 1));
    }
    if (k >= o.numPositions) {
      throw InvalidArgument("'" + base + "' has " + std::to_string(o.numPositions) + " position coordinate" +
                            (o.numPositions == 1 ? "" : "s") + "; index " + std::to_string(k) + " is out of range");
    }
    return o.positionOffset + k;
  }
  const std::string plain = k >= 0 ? base : name;
  if (std::find(m_ambiguousJoints.begin(), m_ambiguousJoints.end(), plain) != m_ambiguousJoints.end()) {
    throw InvalidArgument("several multibodies have a joint named '" + plain + "'; write MULTIBODY/" + plain);
  }
  if (std::find(m_fixedJoints.begin(), m_fixedJoints.end(), plain) != m_fixedJoints.end()) {
    throw InvalidArgument("joint '" + plain + "' is a weld joint and has no coordinates");
  }
  std::string known;
  for (const StateOwner& o : m_owners) known += (known.empty() ? "" : ", ") + o.name;
  throw InvalidArgument("no joint or body with coordinates named '" + plain + "'" +
                        (known.empty() ? std::string(" (the scene has no coordinates)") : " (known: " + known + ")"));
}

}  // namespace articula::io
