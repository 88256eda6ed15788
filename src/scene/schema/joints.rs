//! Joints in a scene file: each kind's fields at the world points where the bodies start,
//! and the exact local frames a saved scene adds.

use super::*;

/// A joint in a scene file. `a` and `b` name bodies; leaving out `b` attaches `a` to the
/// world. `break_force` (N) is optional everywhere.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum JointDesc {
    /// Ball and socket at a world point.
    Spherical {
        /// The first body.
        a: String,
        /// The second body (the world when left out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<String>,
        /// The joint's point, m.
        anchor: V3,
        /// Swing limit, degrees: `a` may point at most this far from `cone_axis`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cone: Option<f32>,
        /// The cone's axis (any length; default: from the anchor to `a`'s centre of mass
        /// where the scene starts), carried by `b`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cone_axis: Option<V3>,
        /// Breaks above this force, N.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        break_force: Option<f32>,
        /// Whether `a` and `b` still collide with each other (default false).
        #[serde(default, skip_serializing_if = "is_false")]
        collide: bool,
        /// The joint in the bodies' own frames ([`Frames`]); written by Save as.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frames: Option<Frames>,
    },
    /// A weld at a world point: the bodies keep their poses relative to each other.
    Fixed {
        /// The first body.
        a: String,
        /// The second body (the world when left out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<String>,
        /// The joint's point, m.
        anchor: V3,
        /// Breaks above this force, N.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        break_force: Option<f32>,
        /// Whether `a` and `b` still collide with each other (default false).
        #[serde(default, skip_serializing_if = "is_false")]
        collide: bool,
        /// The joint in the bodies' own frames ([`Frames`]); written by Save as.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frames: Option<Frames>,
    },
    /// A hinge at a world point about a world axis.
    Revolute {
        /// The first body.
        a: String,
        /// The second body (the world when left out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<String>,
        /// The hinge's point, m.
        anchor: V3,
        /// The hinge's axis (any length).
        axis: V3,
        /// Lowest and highest angle, degrees (0 where the bodies start).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limits: Option<(f32, f32)>,
        /// Target spin, rad/s, and largest torque, N·m.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        motor: Option<(f32, f32)>,
        /// Breaks above this force, N.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        break_force: Option<f32>,
        /// Whether `a` and `b` still collide with each other (default false).
        #[serde(default, skip_serializing_if = "is_false")]
        collide: bool,
        /// The joint in the bodies' own frames ([`Frames`]); written by Save as.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frames: Option<Frames>,
    },
    /// The anchors stay between `min` and `max` apart (a rope when `min` is 0).
    Distance {
        /// The first body.
        a: String,
        /// The second body (the world when left out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<String>,
        /// Anchor on `a`, m.
        anchor_a: V3,
        /// Anchor on `b` (or in the world), m.
        anchor_b: V3,
        /// Shortest distance, m.
        #[serde(default)]
        min: f32,
        /// Longest distance, m.
        max: f32,
        /// Breaks above this force, N.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        break_force: Option<f32>,
        /// Whether `a` and `b` still collide with each other (default false).
        #[serde(default, skip_serializing_if = "is_false")]
        collide: bool,
        /// The joint in the bodies' own frames ([`Frames`]); written by Save as.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frames: Option<Frames>,
    },
    /// A spring between the anchors.
    Spring {
        /// The first body.
        a: String,
        /// The second body (the world when left out).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        b: Option<String>,
        /// Anchor on `a`, m.
        anchor_a: V3,
        /// Anchor on `b` (or in the world), m.
        anchor_b: V3,
        /// Length at rest, m.
        rest_length: f32,
        /// Natural frequency of the bodies' masses on the spring, Hz (stiffness m·(2π·hertz)²,
        /// m the reduced mass of the two bodies, or the body's own against the world).
        hertz: f32,
        /// Damping ratio (1: critical).
        #[serde(default)]
        damping_ratio: f32,
        /// Pulls only when stretched.
        #[serde(default, skip_serializing_if = "is_false")]
        bungee: bool,
        /// Breaks above this force, N.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        break_force: Option<f32>,
        /// Whether `a` and `b` still collide with each other (default false).
        #[serde(default, skip_serializing_if = "is_false")]
        collide: bool,
        /// The joint in the bodies' own frames ([`Frames`]); written by Save as.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        frames: Option<Frames>,
    },
}

/// A joint exactly as the engine holds it, in its bodies' own frames: what Save as writes
/// beside the world-space fields, so that a saved scene loads to the same joints bit for bit
/// (the world-space anchor, axis and limits, turned into the bodies' frames again on
/// loading, would differ in their last bits, and a chaotic scene would then step
/// differently). Given, these replace what the loader would work out from the world-space
/// fields and the bodies' starting poses; the joint's kind, its motor, range and spring
/// still come from those fields. Hand-written scenes leave it out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Frames {
    /// The anchor on `a`, in `a`'s frame (from its origin), m.
    pub anchor_a: V3,
    /// The anchor on `b`, in `b`'s frame; the world point when there is no `b`, m.
    pub anchor_b: V3,
    /// A hinge's axis, or the direction a cone measures `a`'s swing along, in `a`'s frame
    /// (unit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis_a: Option<V3>,
    /// The same axis in `b`'s frame (the world's without `b`), unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis_b: Option<V3>,
    /// A hinge's zero-angle direction across its axis in `a`'s frame, unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_a: Option<V3>,
    /// The same direction in `b`'s frame (the world's), unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_b: Option<V3>,
    /// A hinge's limits from its zero angle, rad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<(f32, f32)>,
    /// A cone's half angle, rad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cone: Option<f32>,
    /// A weld's rotation of `a` relative to `b` (the world's), as (x, y, z, w).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<(f32, f32, f32, f32)>,
}
