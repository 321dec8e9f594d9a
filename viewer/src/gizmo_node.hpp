#pragma once
// The OpenSceneGraph drawing of a transform gizmo: three arrows (translate)
// or three rings (rotate), red/green/blue for x/y/z, the hovered or dragged
// handle yellow, unlit and drawn on top of the scene.

#include <articula/viewer/gizmo.hpp>

#include <osg/MatrixTransform>
#include <osg/ref_ptr>

namespace articula::viewer {

/// Name of the gizmo's root node; picking skips nodes under it (or treats
/// them as the gizmo). Its handle geometries are named
/// "articula.gizmo.<translate|rotate>.<x|y|z>".
inline constexpr const char* kGizmoNodeName = "articula.gizmo";

/// Render bin number of the gizmo (drawn after the scene's default bins).
inline constexpr int kGizmoRenderBin = 1000;

/// A gizmo node with unit-sized handles (translate mode, nothing
/// highlighted, identity transform) and the render state that draws it on
/// top: lighting and depth test off, render bin kGizmoRenderBin.
osg::ref_ptr<osg::MatrixTransform> createGizmoNode();

/// Brings a node made by createGizmoNode() in step with the gizmo: its
/// transform is the gizmo's pose (rotation dropped with world axes) scaled
/// by gizmo.size(), it shows the arrows or the rings of gizmo.mode(), and
/// the active axis (while dragging, else the hovered one) is yellow. Nodes
/// not made by createGizmoNode() are left unchanged.
void updateGizmoNode(osg::MatrixTransform& node, const Gizmo& gizmo);

}  // namespace articula::viewer
