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

/// How far a fat AABB may exceed a freshly computed one on any side before it is rebuilt, in
/// multiples of [`AABB_MARGIN`] (unitless; 4 → 0.4 m). A body that moved fast and then stopped
/// keeps the long predicted box it was given; without this check the box would never shrink and
/// would keep producing false pairs. Box2D v2's "huge AABB" test uses the same factor 4: small
/// enough to drop stale predictions quickly, large enough that a body slowing down gradually is
/// not re-inserted every step.
pub const AABB_HUGE_MARGIN_FACTOR: f32 = 4.0;
