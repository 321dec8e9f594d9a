#pragma once
/// @file
/// Umbrella header of the Articula engine facade.

#include <articula/actuator.hpp>
#include <articula/contact.hpp>
#include <articula/conventions.hpp>
#include <articula/error.hpp>
#include <articula/executor.hpp>
#include <articula/frame.hpp>
#include <articula/ik.hpp>
#include <articula/joint_spec.hpp>
#include <articula/keyframe.hpp>
#include <articula/layout.hpp>
#include <articula/loop_closure.hpp>
#include <articula/multibody.hpp>
#include <articula/options.hpp>
#include <articula/query.hpp>
#include <articula/recording.hpp>
#include <articula/rigid_body.hpp>
#include <articula/sensor.hpp>
#include <articula/shape.hpp>
#include <articula/snapshot.hpp>
#include <articula/state_space.hpp>
#include <articula/types.hpp>
#include <articula/viewpoint.hpp>
#include <articula/world.hpp>
#include <articula/world_spec.hpp>
