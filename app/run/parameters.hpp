#pragma once
// Design parameters addressed by name (articula-run run --param NAME=VALUE,
// and the parameters of a sweep; docs/sweeps.md, "Parameters"):
//
//   options.time-step  options.gravity (X,Y,Z)  options.gravity-x|-y|-z
//   options.solver  options.integrator
//   body:NAME.mass            rigid body or link (NAME or MULTIBODY/LINK); the
//                             rotational inertia scales with the mass
//   body:NAME.inertia-scale   factor on the rotational inertia
//   body:NAME.friction|restitution   every collision shape of the body
//   joint:NAME.damping|friction|stiffness|armature|rest|lower|upper|effort|velocity-limit
//                             every DoF of the joint (NAME or MULTIBODY/JOINT)
//   actuator:NAME.kp|kd|kv|ki|gear|ctrl-min|ctrl-max|force-min|force-max|control
//   shape:NAME.friction|restitution
//   material.friction|restitution    every collision shape of the world
//   q:NAME  v:NAME            initial position / velocity of a coordinate (the
//                             CSV column names; q: as --set)

#include <articula/world.hpp>

#include <string>
#include <utility>
#include <vector>

namespace articula::run {

/// One parameter value: a number, or text (solver and integrator names,
/// gravity vectors).
struct ParameterValue {
  std::string name;
  std::string text;  ///< the value as written
};

/// Applies design parameters to a world in design mode (one spec edit for
/// all of them; q: and v: last). @throws CliError naming the parameter
/// and what is wrong with the name or the value.
void applyParameters(World& world, const std::vector<ParameterValue>& parameters);

/// Whether `name` is a parameter of kind q: or v: (an initial coordinate).
bool isCoordinateParameter(const std::string& name);

/// The parameter names the usage and error texts list.
const char* parameterSyntax();

}  // namespace articula::run
