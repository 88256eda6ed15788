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
