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

/// Allowed penetration, m. Contacts are left this deep on purpose so they stay in touch from
/// step to step instead of flickering between touching and not (Box2D: 0.005 m).
pub const LINEAR_SLOP: f32 = 0.005;
