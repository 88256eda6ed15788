//! Every tuning constant of the engine, with its unit, its value and why.
//! (Box2D keeps these in `constants.h`; one place makes tuning and reviewing possible.)

/// Half the size of the box standing in for an infinite plane, m. Planes are unbounded, but the
/// broad phase and GJK need finite numbers; 10 km is far beyond any sandbox scene while still
/// leaving f32 a millimetre of precision at the edges.
pub const PLANE_HALF_SIZE: f32 = 1.0e4;

/// Margin added around every collider's AABB in the broad phase, m. A body can move this far
/// before its proxy must be re-inserted into the tree; 0.1 m suits bodies of about 1 m.
pub const AABB_MARGIN: f32 = 0.1;

/// How many steps of the current displacement the fat AABB is stretched along, unitless.
/// Predicting motion keeps fast bodies from re-inserting every step (Box2D uses 4).
pub const AABB_PREDICTION_STEPS: f32 = 2.0;

/// Distance tolerance of convex hull building, as a fraction of the point cloud's size (its
/// bounding-box diagonal plus its largest coordinate magnitude), unitless. Points closer than this
/// to the hull count as on it, and adjacent faces whose vertices all lie this close to one plane
/// merge into one polygon. f32 rounds a coordinate x by up to 6·10⁻⁸·|x|, so a rotated box's
/// corners are never exactly coplanar; 10⁻⁶ sits well above that noise while staying invisible
/// (about 2 µm on a 1 m box).
pub const HULL_TOLERANCE_RELATIVE: f32 = 1.0e-6;

/// Thinnest point cloud that still makes a hull, as a fraction of the same size measure,
/// unitless. Flatter clouds are rejected as degenerate: their side faces would be only a few
/// merge tolerances wide, and their inertia tensor close to singular. 2·10⁻⁵ still accepts a
/// 1 m × 1 m plate 0.1 mm thick.
pub const HULL_MIN_THICKNESS_RELATIVE: f32 = 2.0e-5;
