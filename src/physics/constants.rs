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

/// Contacts are generated this far apart (m) before shapes touch, so the solver sees them
/// coming and resting contacts do not flicker (Box2D: 4 × linear slop).
pub const SPECULATIVE_DISTANCE: f32 = 4.0 * LINEAR_SLOP;

/// A contact's manifold is reused instead of recomputed while no point of either shape has
/// moved relative to the other by more than this, m, since it was computed, nor by more than
/// [`MANIFOLD_REUSE_FRACTION`] of the smaller shape's feature size. A kept point moves with
/// its body, so it stays on that body's surface and lies at most this far outside the region
/// a fresh test would clip to: 2 mm, under half the [`LINEAR_SLOP`] contacts are left to sink
/// anyway. (Jolt's body pair cache allows 1 mm and 2° of turn; Rapier recycles a pair's
/// contacts until it moved 5 cm. Here the turn counts at the shape's reach, so a unit cube
/// may turn 0.13°.) A resting pair then costs a few transforms per step instead of a
/// collision test; the depth is still measured every step from the cached points, which move
/// with their bodies, so sinking and lifting are seen at once.
pub const MANIFOLD_REUSE_DISTANCE: f32 = 2.0e-3;

/// The reuse distance as a fraction of the smaller shape's feature size (half its smallest
/// dimension): 0.25 mm for a 1 cm cube, the whole 2 mm from an 8 cm cube up.
pub const MANIFOLD_REUSE_FRACTION: f32 = 0.05;

/// A pair tested again because it moved past the reuse limit keeps the new manifold for
/// reuse when it moved less than this many limits since its last test (it is most likely
/// coming to rest, and the next step reuses it instead of testing again), and only its pose
/// when it moved farther (it will most likely move again, and moving the points into the
/// cache would be wasted). Unitless; measured in docs/design/contacts.md.
pub const MANIFOLD_KEEP_FACTOR: f32 = 2.0;

/// The speculative margin also grows with the pair's closing speed × dt, up to this, m.
/// Without it a ball falling at 6 m/s moves 10 cm per step and is first seen deep inside
/// the floor; with it the solver stops it exactly at the surface.
pub const MAX_SPECULATIVE_DISTANCE: f32 = 2.0;

/// Farthest a contact point may have moved since the last step and still inherit that
/// point's impulses when its feature id changed, m (4 × linear slop). Resting points move
/// far less; sliding points that move farther start fresh, which costs little.
pub const CONTACT_MATCH_DISTANCE: f32 = 4.0 * LINEAR_SLOP;

/// How far, as a fraction of the smaller shape's feature size, a contact point may drift from
/// the lever arms it was anchored with before the solver takes fresh ones, unitless (see
/// `world/solve/mod.rs`). A quarter keeps a unit cube's arms through about 10° of turning. Tall
/// columns of offset cubes need that much: with a cap of 2 cm (4 × linear slop, about 2° on
/// a unit cube) each re-anchoring feeds a column's lean back into its supports, and
/// 16-cube columns topple (docs/design/solver.md, "Lever arms are anchored").
pub const ANCHOR_REACH_FRACTION: f32 = 0.25;

/// Default number of sub-steps per step. Four sub-steps of a 60 Hz step give a 240 Hz
/// solver: stacks of 20 and mass ratios of 1:100 stay stable (Box2D v3 default).
pub const DEFAULT_SUBSTEPS: u32 = 4;

/// Most sub-steps an island may be given for a large mass ratio, count. Sixteen sub-steps
/// (4 × the default) keep a 1000 kg cube on a 1 kg cube within a few centimetres; beyond
/// about 1:1600 the heavy body sinks further, in proportion to the ratio.
pub const MAX_SUBSTEPS: u32 = 16;

/// Largest mass ratio between touching dynamic bodies that an island handles with the
/// world's sub-step count, unitless. A contact is a spring relative to the lighter body, so
/// a heavy body sinks into a light one by about the ratio times the usual depth; above this
/// the island gets √(ratio / this) times the sub-steps, and contacts stiffer in proportion
/// (see `solver/mod.rs`). At 25 a heavy body sinks into a light one at most ~1 cm with the
/// default 4 sub-steps and 45 Hz contacts.
pub const MASS_RATIO_FREE: f32 = 25.0;

/// Largest ratio of two jointed bodies' mobilities at their joint's anchor that the solver
/// takes as it is, unitless. A body's mobility at a point is how far the point moves per
/// unit impulse: m⁻¹ (the largest over the axes the body may move along) plus what turning
/// about its centre of mass adds there (the largest row sum of \[r\]×ᵀ·I⁻¹·\[r\]× in world
/// axes, r the arm: its largest eigenvalue within a factor √3; a thin rod's spin about its
/// own axis adds nothing at its ends). Where one side's
/// linear or turning part exceeds this times the whole mobility of the other side, the
/// solver sees that body as heavier for the step: its inverse mass scaled down to the ratio,
/// or an inertia added about every axis that brings its turning to the ratio
/// (`joint::mobility`). A 1 mg rod under a 0.5 kg ball (ratio 2·10⁶) then swings as a
/// massless rod would. Unbounded, what only the heavier body can answer is a pivot of the
/// joints' direct solve (`joint/block`) below its regularisation, 10⁻⁴ of the light body's
/// share, and the heavy body falls through the joint. The bound holds in the whole solver
/// (contacts too), so every impulse conserves momentum in one set of masses: bounded in the
/// joints only, 5 of 300 random jointed worlds gained up to 20 times their energy. Gravity, applied
/// forces, free motion and what a body reports keep its own mass. At 10³ a 31 µg body
/// welded to a 31 g one still gained energy over a minute
/// (`tests/corpus/joints/locked_microgram_weld_spring_contact_energy.ron`); at 10² it keeps
/// it, and the light body, as the solver sees it, still moves a hundred times more easily
/// than its partner, so it carries at most about 1 % of a load. The shipped scenes stay
/// below it (the ragdoll's largest ratio is 9.4; a 10 kg ball on 0.1 kg chain links, 96).
pub const MAX_JOINT_MOBILITY_RATIO: f32 = 100.0;

/// Regularisation of the relax pass's normal block, relative to its diagonal, unitless. Four
/// coplanar contact points leave the block singular (any self-balancing set of impulses
/// changes no velocity); 10⁻⁴ picks the smallest impulses while leaving a velocity error of
/// 10⁻⁴ of the correction, far below anything visible.
pub const RELAX_REGULARIZATION: f32 = 1.0e-4;

/// A contact whose friction impulses carried into a biased pass use at most this fraction
/// of their Coulomb limits is *sticking*, unitless: the biased pass leaves its friction rows
/// to the relax pass (where a whole lane group sticks; `solver/mod.rs`). Contacts nearer
/// their limits, sliding or about to, keep both friction solves: with every loaded contact
/// skipped (as Rapier 0.36 does by default), a crate on the swinging bridge scene slid off
/// its plank; at 0.95 the offset-column and ragdoll tests fail; at 0.8 the biased pass skips
/// the friction of 84 % of the base-20 wall pyramid's lane groups.
pub const STICKING_FRACTION: f32 = 0.8;

/// Default stiffness of contacts between dynamic bodies, Hz. Soft contacts push out
/// penetration like a spring of this frequency; contacts with static and kinematic bodies
/// are twice as stiff, and both are capped at a quarter of the sub-step rate to stay stable
/// (Box2D: 30 Hz). 45 Hz (hω = 1.18 at 4 sub-steps of 1/240 s) settles a base-100 wall
/// pyramid by 0.34 m instead of 0.71 m at 30 Hz; at 60 Hz the base-40 wall tips out of
/// its plane.
pub const DEFAULT_CONTACT_HERTZ: f32 = 45.0;

/// Default damping ratio of contacts, unitless. Heavily over-damped (Box2D: 10) so
/// penetration recovery never bounces.
pub const DEFAULT_CONTACT_DAMPING_RATIO: f32 = 10.0;

/// Default cap on the speed of penetration recovery, m/s. Deeply overlapping bodies
/// separate at this speed at most instead of exploding apart (Box2D: 3 m/s).
pub const DEFAULT_MAX_PUSH_VELOCITY: f32 = 3.0;

/// Restitution applies only when the approach speed exceeds this, m/s. Slower impacts
/// (a box settling) do not bounce, or resting contacts would jitter forever (about 1 m/s).
pub const DEFAULT_RESTITUTION_THRESHOLD: f32 = 1.0;

/// Largest size of a shape (radius, half extent, half height, hull coordinate), m. Beyond
/// this, masses (size³ × density) and inertias (size⁵) overflow f32 and the solver's
/// arithmetic loses all precision.
pub const MAX_SHAPE_SIZE: f32 = 1.0e4;

/// Smallest size of a shape, m: 0.1 mm. Smaller shapes have inertias that underflow.
pub const MIN_SHAPE_SIZE: f32 = 1.0e-4;

/// Fastest allowed linear speed, m/s: a safety cap against blow-ups from hostile input. A
/// body definition asking for more is refused; a step that produces more (an explosion of
/// overlapping bodies) caps it there. See the limits table in `docs/scenes.md`.
pub const MAX_LINEAR_SPEED: f32 = 400.0;

/// Fastest allowed linear speed of a body with continuous collision (`BodyDef::ccd`), m/s:
/// its sweep is tested against what it could pass through, so it may go faster.
pub const MAX_CCD_LINEAR_SPEED: f32 = 2000.0;

/// A ccd body's sweep is tested only when some point of it moved farther in the step than
/// this fraction of its smallest collider's feature size: slower bodies cannot pass through
/// anything their speculative contacts would not catch.
pub const CCD_MOTION_FRACTION: f32 = 0.25;

/// The time of impact leaves a ccd body this far from what it hits, m (Box2D: the linear
/// slop), so the next step's speculative contact sees it and stops it on the near side.
pub const CCD_TARGET_SEPARATION: f32 = LINEAR_SLOP;

/// Conservative advancement iterations per pair before it gives up (treated as no hit).
pub const CCD_MAX_ITERATIONS: u32 = 40;

/// Farthest a body may be placed from the origin along any axis, m: past it f32 positions
/// are coarser than 1 cm (the ulp at 1e5 is 7.8 mm).
pub const MAX_COORDINATE: f32 = 1.0e5;

/// Farthest a collider may sit from its body's origin, or a joint's anchor from its body's
/// origin, along any axis, m: the size limit of a shape ([`MAX_SHAPE_SIZE`]), for the same
/// reason (a collider's share of the inertia grows with its mass times its offset squared,
/// which overflows f32 where a shape's size would).
pub const MAX_LOCAL_OFFSET: f32 = MAX_SHAPE_SIZE;

/// Most sub-steps the settings may ask for (islands with large mass ratios get up to
/// [`MAX_SUBSTEPS`] on their own; a user may ask for more everywhere).
pub const MAX_SETTINGS_SUBSTEPS: u32 = 64;

/// Most velocity or relax iterations per sub-step the settings may ask for.
pub const MAX_ITERATIONS: u32 = 100;

/// Default for [`WorldSettings::max_contacts_per_body`](super::WorldSettings): a body in a
/// settled pile has at most about 30 contacts with other dynamic bodies (the funnel scene's
/// small bodies reach 33, a cube pile 12), so 64 leaves twice that as margin while 2000 boxes
/// placed inside each other cost 2000 × 64 / 2 contacts instead of 2 million.
pub const DEFAULT_MAX_CONTACTS_PER_BODY: u32 = 64;
/// Upper bound accepted for `max_contacts_per_body`.
pub const MAX_CONTACTS_PER_BODY_LIMIT: u32 = 100_000;

/// Largest gravity, m/s² per axis (a thousand g).
pub const MAX_GRAVITY: f32 = 1.0e4;

/// Largest rotation per sub-step, rad (a quarter turn over 2): beyond it the quaternion
/// integration becomes inaccurate (Box2D: 0.25·π).
pub const MAX_ROTATION_PER_SUBSTEP: f32 = 0.25 * std::f32::consts::PI;

/// A body slower than this (m/s) counts as resting for sleep (Box2D v3: 0.05 m/s). Small
/// bodies use a lower limit, [`RELATIVE_SLEEP_TOLERANCE`] times their extent.
pub const LINEAR_SLEEP_TOLERANCE: f32 = 0.05;

/// A body turning slower than this (rad/s, about 3°/s) counts as resting for sleep. Large
/// bodies use a lower limit: their farthest point must also move slower than the linear
/// tolerance, so a 100 m block rests only below 0.05 / 87 ≈ 6e-4 rad/s.
pub const ANGULAR_SLEEP_TOLERANCE: f32 = 0.05;

/// Sleep speed limit relative to the body's extent (the distance from its centre of mass to
/// its farthest point), 1/s: a body counts as resting when it moves less than a quarter of its
/// extent per second, and never faster than [`LINEAR_SLEEP_TOLERANCE`]. A 1 cm cube
/// (extent 8.7 mm) must be slower than 2.2 mm/s; bodies larger than 0.2 m use 0.05 m/s.
pub const RELATIVE_SLEEP_TOLERANCE: f32 = 0.25;

/// An island falls asleep when all its bodies rested this long, s.
pub const TIME_TO_SLEEP: f32 = 0.5;
/// How far a fat AABB may exceed a freshly computed one on any side before it is rebuilt, in
/// multiples of [`AABB_MARGIN`] (unitless; 4 → 0.4 m). A body that moved fast and then stopped
/// keeps the long predicted box it was given; without this check the box would never shrink and
/// would keep producing false pairs. Box2D v2's "huge AABB" test uses the same factor 4: small
/// enough to drop stale predictions quickly, large enough that a body slowing down gradually is
/// not re-inserted every step.
pub const AABB_HUGE_MARGIN_FACTOR: f32 = 4.0;
/// Most support queries one GJK distance query may make, count. Polytopes finish in a handful
/// (GJK terminates in finitely many steps on them, Gilbert et al. 1988); curved shapes converge
/// only in the limit, and reach `GJK_RELATIVE_TOLERANCE` well within 64 steps. The cap exists so
/// that rounding can never make the loop run forever.
pub const GJK_MAX_ITERATIONS: u32 = 64;

/// GJK convergence tolerance, unitless. The loop stops when `|v|² − v·w` (the gap between the
/// upper bound `|v|` and the lower bound `v·w/|v|` on the distance, times `|v|`) falls below this
/// fraction of `|v|·max(|v|, size)`, with `size` the largest support point in use (van den Bergen
/// 1999): the distance is then known to 1e-6 of the shapes' size, beyond the 1e-5 asked of it.
/// It is about 16 f32 epsilons; when rounding in `v` (a few epsilons of `size`) keeps the gap
/// above it, the loop stops on lack of progress instead.
pub const GJK_RELATIVE_TOLERANCE: f32 = 1.0e-6;

/// Closest-point length below which GJK reports contact, unitless (a fraction of the largest
/// support point in use). f32 rounding leaves the closest point about 1e-7 of that size away from
/// the origin even when the shapes touch exactly; 1e-5 (10 µm on metre-sized shapes, far below
/// any contact slop) gives a hundredfold margin. EPA also treats anything thinner than this as flat.
pub const GJK_OVERLAP_TOLERANCE: f32 = 1.0e-5;

/// Flatness threshold of a GJK simplex, unitless. A triangle whose doubled area is below this times
/// its longest edge squared (its height below this fraction of that edge), or a tetrahedron whose
/// six-fold volume is below this times the cube of its longest edge from the first vertex, is
/// treated as having lost a dimension. About 8 f32 epsilons, the rounding error of a cross
/// product, so that barycentric weights are never divided by noise (Montanari et al. 2017).
pub const GJK_DEGENERACY_TOLERANCE: f32 = 1.0e-6;

/// Most polytope expansions EPA may make, count. Each adds one vertex, so this also bounds the
/// polytope at `4 + EPA_MAX_ITERATIONS` vertices. Boxes need about 5; curved shapes converge only
/// linearly (a sphere pair takes about 60), and two spheres centred on each other are the worst
/// case: every direction is equally deep, so the whole polytope must be refined. When the cap is
/// hit, EPA returns its best upper bound, which is a valid separating translation.
pub const EPA_MAX_ITERATIONS: u32 = 128;

/// EPA convergence tolerance, unitless (a fraction of the size of the Minkowski difference).
/// Expansion stops when the support point along the nearest face normal lies less than this beyond
/// that face: the true depth is then known to within this much (van den Bergen 2001). 1e-5 gives
/// polytopes the same accuracy as GJK distances for about the same number of iterations as 1e-4
/// (they terminate exactly on their own vertices); curved shapes pay about 25% more iterations.
pub const EPA_RELATIVE_TOLERANCE: f32 = 1.0e-5;

/// Sine of the angle below which two segments count as parallel, unitless. Then the closest points
/// are taken at the middle of their overlap, which is off by at most this times the segment length
/// (5 µm on a metre); above it the cross product is still accurate to ~1e-7.
pub const PARALLEL_SINE_TOLERANCE: f32 = 1.0e-5;
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

/// SAT feature choice: an edge axis is used only when its separation beats the best face
/// separation by (1 − this) of its magnitude plus [`SAT_ABSOLUTE_TOLERANCE`] (unitless).
/// Faces give stable multi-point manifolds; an edge must be clearly better (Gregorius,
/// "Robust Contact Creation", GDC 2015: 0.90), also while the shapes are still apart
/// (`narrow_phase::polytope::clearly_beats`).
pub const SAT_EDGE_RELATIVE_TOLERANCE: f32 = 0.90;

/// SAT feature choice: a face of B is used only when it beats face A by (1 − this) of A's
/// separation's magnitude plus [`SAT_ABSOLUTE_TOLERANCE`] (unitless), so the reference
/// face does not flip between steps (Gregorius: 0.95).
pub const SAT_FACE_RELATIVE_TOLERANCE: f32 = 0.95;

/// SAT feature choice: absolute part of both tolerances, m (half the linear slop).
pub const SAT_ABSOLUTE_TOLERANCE: f32 = 0.5 * LINEAR_SLOP;

/// Two edges whose cross product is shorter than this fraction of their lengths are
/// parallel and define no separating axis of their own (a face axis covers them).
pub const SAT_PARALLEL_SINE: f32 = 1.0e-5;

/// A polygon vertex this close to a clipping plane counts as on it, as a fraction of the
/// polygon's size (unitless; 10 µm on a 1 m face). Rounding puts the vertices of faces lying
/// on top of each other about 10⁻⁷ of their size off the side planes; 100 times that keeps a
/// coplanar edge from being cut at a random point, and is far below any contact slop.
pub const CLIP_PLANE_TOLERANCE: f32 = 1.0e-5;

/// Capsule axes count as parallel above this |cos| (about 5.7°): a capsule lying along
/// another then gets two contact points instead of rocking on one.
pub const CAPSULE_PARALLEL_COS: f32 = 0.995;

/// A polytope face counts as facing a capsule contact when its normal is within this cos
/// (about 11°) of the contact normal.
pub const CAPSULE_FACE_ALIGN_COS: f32 = 0.98;

/// A capsule counts as lying on a face when the |sin| of its angle to the face is below
/// this (about 11.5°); it then gets two points, the segment clipped to the face.
pub const CAPSULE_LYING_SIN: f32 = 0.2;

/// Distance between a round shape's core (point or segment) and the other shape below which
/// the core counts as inside, m; then EPA gives the normal instead of closest points.
pub const CORE_CONTACT_DISTANCE: f32 = 1.0e-4;

/// Two sphere centres closer than this (m) are coincident: any fixed normal will do.
pub const COINCIDENT_DISTANCE: f32 = 1.0e-6;
