#include <articula/state_space.hpp>

namespace articula {

StateSpace::StateSpace(std::vector<StateSegment> segments, std::vector<ConstraintBlock> constraints)
    : m_segments(std::move(segments)), m_constraints(std::move(constraints)) {
  for (const auto& c : m_constraints) m_nc += c.numRows;
  for (const auto& s : m_segments) {
    const std::string prefix = s.joint.empty() ? s.owner + "/" : s.owner + "/" + s.joint + "/";
    for (int i = 0; i < s.numPositions; ++i) m_qNames.push_back(prefix + "q" + std::to_string(i));
    for (int i = 0; i < s.numDofs; ++i) m_vNames.push_back(prefix + "v" + std::to_string(i));
    m_nq += s.numPositions;
    m_nv += s.numDofs;
  }
}

std::optional<int> StateSpace::positionIndex(const std::string& name) const {
  for (std::size_t i = 0; i < m_qNames.size(); ++i)
    if (m_qNames[i] == name) return static_cast<int>(i);
  return std::nullopt;
}

std::optional<int> StateSpace::velocityIndex(const std::string& name) const {
  for (std::size_t i = 0; i < m_vNames.size(); ++i)
    if (m_vNames[i] == name) return static_cast<int>(i);
  return std::nullopt;
}

std::optional<StateSegment> StateSpace::segment(const std::string& owner, const std::string& joint) const {
  for (const auto& s : m_segments)
    if (s.owner == owner && s.joint == joint) return s;
  return std::nullopt;
}

}  // namespace articula
