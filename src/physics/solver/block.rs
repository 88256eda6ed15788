//! The normal block of one manifold: a linear complementarity problem of at most four
//! unknowns, solved directly.
//!
//! ```text
//! given A (n×n, symmetric positive definite), r, and the accumulated impulses λ ≥ 0,
//! find Δ with  w = A·Δ − r,  λ + Δ ≥ 0,  w ≥ 0,  (λ + Δ)·w = 0
//!
//! active = every point
//! repeat (principal pivoting, Murty's least-index rule, at most 2ⁿ times):
//!     inactive points get Δ_i = −λ_i (their impulse drops to zero)
//!     solve A_aa·Δ_a = r_a − A_ai·Δ_i for the active ones (L·D·Lᵀ)
//!     the first point that breaks a condition (active: λ + Δ < 0; inactive: w < 0)
//!     changes sides; none: done
//! if a solve is singular: try every subset of active points (16 for four points) and keep
//! the one that meets the conditions; if none does, projected Gauss–Seidel
//! ```
//! With A symmetric positive definite the LCP has exactly one solution, so the enumeration
//! always finds it.
//! Box2D v2's block solver enumerates all four cases of two points; with four points
//! pivoting does the same job in a few small solves, and a resting face (every point
//! pushing, by far the common case) takes exactly one. (An earlier loop that only dropped
//! points fell back to the 16-subset enumeration whenever dropping one made another need to
//! push, as it often does for a cube straddling two others: 1.3 million extra solves in 35
//! steps of the base-40 pyramid.)

use super::simd::{f32x4, LANES};
use crate::physics::narrow_phase::MAX_MANIFOLD_POINTS;

const N: usize = MAX_MANIFOLD_POINTS;

/// The factorisation of a manifold's whole block, kept while its matrix stays the same: the
/// matrix of a pass changes only with which points are speculative, so a resting manifold
/// factors each pass's block once per step instead of once per iteration.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CachedFactor {
    /// Which matrix it factors (chosen by the caller, never 0); 0: nothing cached yet.
    pub key: u32,
    /// `None` when that matrix is not positive definite.
    factor: Option<Factor>,
    /// The points the last pivoting ended with pushing (bit per point; `None`: not solved
    /// yet, start from all of them), and the factorisation of the last proper subset it
    /// solved with. A manifold with a corner lifted off keeps that set from pass to pass,
    /// so pivoting starts there and takes one solve with a factorisation it already has.
    last_active: Option<u8>,
    subset: Option<(u8, Factor)>,
}

impl CachedFactor {
    /// Factors the whole of `a` (its first `n` points) under `key` unless that is what it
    /// holds. True when it changed.
    pub fn refresh(&mut self, a: &[[f32; N]; N], n: usize, key: u32) -> bool {
        if self.key == key {
            return false;
        }
        let all: [usize; N] = std::array::from_fn(|i| i);
        *self = CachedFactor {
            key,
            factor: Factor::new(a, &all[..n]),
            last_active: None,
            subset: None,
        };
        true
    }

    /// True when it holds a factorisation (the matrix was positive definite).
    pub fn is_valid(&self) -> bool {
        self.factor.is_some()
    }

    /// The points the last pivoting of this block ended with pushing (bit per point), if it
    /// has been solved since it was factored.
    pub fn last_active(&self) -> Option<u8> {
        self.last_active
    }

    /// Records where a pivoting done elsewhere ([`pivot_lanes`]) ended.
    pub fn set_last_active(&mut self, mask: u8) {
        self.last_active = Some(mask);
    }
}

/// The whole-block factorisations of four manifolds, one per lane, for the common case
/// (every point pushing, see [`solve_lanes`]). A lane with fewer points, or none, is padded
/// with the identity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FactorLanes {
    l: [f32x4; 6],
    d: [f32x4; N],
}

impl Default for FactorLanes {
    fn default() -> FactorLanes {
        FactorLanes {
            l: [f32x4::ZERO; 6],
            d: [f32x4::ONE; N],
        }
    }
}

impl FactorLanes {
    /// Copies lane `lane`'s factorisation from `cache` (the identity when it has none).
    pub fn set_lane(&mut self, lane: usize, cache: &CachedFactor) {
        let (l, d) = match cache.factor {
            Some(f) => {
                let d = std::array::from_fn(|j| if j < f.m { f.d[j] } else { 1.0 });
                (f.l, d)
            }
            None => ([0.0; 6], [1.0; N]),
        };
        for (lanes, value) in self.l.iter_mut().zip(l) {
            lanes.as_mut_array()[lane] = value;
        }
        for (lanes, value) in self.d.iter_mut().zip(d) {
            lanes.as_mut_array()[lane] = value;
        }
    }

    /// Factors four lanes' blocks at once: lane l's first `counts[l]` points, padded with
    /// the identity. The operations of [`Factor::new`] in the same order, so a lane gets
    /// the scalar bits; a lane whose block is not positive definite holds the identity.
    /// Also returns each lane's cache entry under `key` (see [`CachedFactor`]).
    pub fn factor(
        a: &[[f32x4; N]; N],
        counts: [usize; LANES],
        key: u32,
    ) -> (FactorLanes, [CachedFactor; LANES]) {
        let exists: [f32x4; N] = std::array::from_fn(|j| {
            f32x4::new(counts.map(|n| if j < n { f32::from_bits(u32::MAX) } else { 0.0 }))
        });
        let (mut f, good) = FactorLanes::factor_masked(a, &exists);
        let valid: [bool; LANES] = std::array::from_fn(|l| good & (1 << l) != 0);
        let caches = std::array::from_fn(|l| {
            let factor = (valid[l] && counts[l] > 0).then(|| Factor {
                l: f.l.map(|x| x.as_array()[l]),
                d: std::array::from_fn(|j| {
                    if j < counts[l] {
                        f.d[j].as_array()[l]
                    } else {
                        0.0
                    }
                }),
                m: counts[l],
            });
            CachedFactor {
                key,
                factor,
                last_active: None,
                subset: None,
            }
        });
        for (l, cache) in caches.iter().enumerate() {
            if cache.factor.is_none() {
                f.set_lane(l, cache);
            }
        }
        (f, caches)
    }

    /// Factors four lanes' blocks restricted to the points `active[j]` marks in each lane
    /// (the others padded with the identity): in lane l, the bits [`Factor::new`] gives for
    /// those points (a zero entry of the padding subtracts an exact zero). Returns the
    /// factorisations and a bit per lane whose block is positive definite (the others'
    /// entries are meaningless).
    fn factor_masked(a: &[[f32x4; N]; N], active: &[f32x4; N]) -> (FactorLanes, u32) {
        let (zero, one) = (f32x4::ZERO, f32x4::ONE);
        let mut f = FactorLanes::default();
        let mut valid = (1 << LANES) - 1;
        for j in 0..N {
            let diagonal = active[j].select(a[j][j], one);
            let mut pivot = diagonal;
            for k in 0..j {
                pivot -= f.l[lower(j, k)] * f.l[lower(j, k)] * f.d[k];
            }
            // NaN fails the comparison.
            valid &= (pivot.simd_gt(f32x4::splat(1.0e-12) * diagonal.abs()) & pivot.is_finite())
                .to_bitmask();
            f.d[j] = active[j].select(pivot, one);
            for i in j + 1..N {
                let both = active[i] & active[j];
                let mut v = both.select(a[i][j], zero);
                for k in 0..j {
                    v -= f.l[lower(i, k)] * f.l[lower(j, k)] * f.d[k];
                }
                f.l[lower(i, j)] = both.select(v / f.d[j], zero);
            }
        }
        (f, valid)
    }

    /// Lane by lane, `if_true`'s factorisation where `mask` is set, else `if_false`'s.
    fn select(mask: f32x4, if_true: &FactorLanes, if_false: &FactorLanes) -> FactorLanes {
        FactorLanes {
            l: std::array::from_fn(|k| mask.select(if_true.l[k], if_false.l[k])),
            d: std::array::from_fn(|k| mask.select(if_true.d[k], if_false.d[k])),
        }
    }

    /// x ← A⁻¹·x in every lane, the operations of `Factor::substitute` in the same order
    /// (the identity padding adds exact zeros), so each lane gets the scalar bits.
    #[inline]
    pub fn substitute(&self, x: &mut [f32x4; N]) {
        for i in 1..N {
            for k in 0..i {
                x[i] -= self.l[lower(i, k)] * x[k];
            }
        }
        for i in (0..N).rev() {
            x[i] /= self.d[i];
            for k in i + 1..N {
                x[i] -= self.l[lower(k, i)] * x[k];
            }
        }
    }
}

/// The common case of [`solve_block`] for four lanes at once: with every point active,
/// Δ = A⁻¹·r from the cached factorisation. Returns, per lane (as a mask), whether that is
/// the answer `solve_block` would give (its first pivoting step: every Δ finite and no
/// impulse driven negative), and writes those lanes' Δ into `delta`; the others must be
/// solved lane by lane. `candidate` masks the lanes with a valid factorisation in
/// `factors`, `exists[j]` the lanes whose manifold has a point j.
pub(crate) fn solve_lanes(
    factors: &FactorLanes,
    r: &[f32x4; N],
    lambda: &[f32x4; N],
    exists: &[f32x4; N],
    candidate: f32x4,
    delta: &mut [f32x4; N],
) -> (f32x4, [f32x4; N]) {
    let mut x = *r;
    factors.substitute(&mut x);
    let mut solved = candidate;
    for j in 0..N {
        let ok = x[j].is_finite() & (lambda[j] + x[j]).simd_ge(f32x4::ZERO);
        solved &= ok | !exists[j];
    }
    for j in 0..N {
        delta[j] = (solved & exists[j]).select(x[j], delta[j]);
    }
    (solved, x)
}

/// Rounds of [`pivot_lanes`] before the lanes still unsettled are left to [`solve_block`].
const PIVOT_ROUNDS: usize = 4;

/// The factorisations [`pivot_lanes`] made for proper subsets of four lanes' points, and
/// which subset each lane's is for (`None`: none yet, or the block changed since).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SubsetLanes {
    pub factors: FactorLanes,
    pub masks: [Option<u8>; LANES],
}

/// One pass's normal blocks of four lanes, as [`pivot_lanes`] reads them.
pub(crate) struct BlockLanes<'a> {
    /// K = J·M⁻¹·Jᵀ; its diagonal is not read.
    pub k: &'a [[f32x4; N]; N],
    /// The pass's diagonal entries.
    pub diagonal: &'a [f32x4; N],
    /// Points of each lane's manifold, and the lanes of each point slot as a mask.
    pub counts: [usize; LANES],
    pub exists: &'a [f32x4; N],
    /// The whole blocks' factorisations (valid in the lanes `pivot_lanes` is given).
    pub all: &'a FactorLanes,
}

/// Principal pivoting (as in [`solve_block`]) for the lanes of `pending` (a bit per lane)
/// four at a time: the lanes the common case left, because a point lifts off or joins.
/// Each lane starts from `start[l]` (the points its last pivoting ended with, or all of
/// them) and toggles the first point that breaks a condition, as [`principal_pivoting`]
/// does, with the same operations in the same order: a lane that settles gets the bits
/// `solve_block` would give. Subset factorisations are made four lanes at once and kept in
/// `subset` while a lane's set stays the same. Returns the lanes settled within
/// [`PIVOT_ROUNDS`] (their Δ written into `delta`) and each one's final set of pushing
/// points; the others (a singular subset, a non-finite solve, or more toggles) are left
/// for `solve_block`, which starts again from `start` and so reaches the same answer.
pub(crate) fn pivot_lanes(
    blocks: &BlockLanes,
    subset: &mut SubsetLanes,
    start: [u8; LANES],
    pending: u32,
    r: &[f32x4; N],
    lambda: &[f32x4; N],
    delta: &mut [f32x4; N],
) -> (u32, [u8; LANES]) {
    let zero = f32x4::ZERO;
    let all = f32::from_bits(u32::MAX);
    let lane_mask = |bits: u32| f32x4::new(std::array::from_fn(|l| if bits & (1 << l) != 0 { all } else { 0.0 }));
    let everyone: [u8; LANES] = blocks.counts.map(|n| ((1u32 << n) - 1) as u8);
    let exists = blocks.exists;
    let (mut masks, mut pending, mut settled) = (start, pending, 0u32);
    for _ in 0..PIVOT_ROUNDS {
        if pending == 0 {
            break;
        }
        let lanes = (0..LANES).filter(|l| pending & (1 << l) != 0);
        let (mut whole, mut refactor) = (0u32, 0u32);
        for l in lanes {
            if masks[l] == everyone[l] {
                whole |= 1 << l;
            } else if subset.masks[l] != Some(masks[l]) {
                refactor |= 1 << l;
            }
        }
        let active: [f32x4; N] = std::array::from_fn(|j| {
            f32x4::new(std::array::from_fn(|l| if masks[l] & (1 << j) != 0 { all } else { 0.0 }))
        });
        if refactor != 0 {
            let a: [[f32x4; N]; N] = std::array::from_fn(|i| {
                std::array::from_fn(|j| if i == j { blocks.diagonal[i] } else { blocks.k[i][j] })
            });
            let (made, valid) = FactorLanes::factor_masked(&a, &active);
            subset.factors = FactorLanes::select(lane_mask(refactor & valid), &made, &subset.factors);
            for l in (0..LANES).filter(|l| refactor & (1 << l) != 0) {
                if valid & (1 << l) != 0 {
                    subset.masks[l] = Some(masks[l]);
                } else {
                    // Singular: `solve_block` enumerates.
                    subset.masks[l] = None;
                    pending &= !(1 << l);
                }
            }
        }
        let factor = FactorLanes::select(lane_mask(whole), blocks.all, &subset.factors);
        // Inactive points drop their impulse (Δ_i = −λ_i); the active ones solve
        // A_aa·Δ_a = r_a − A_ai·Δ_i.
        let mut x = [zero; N];
        for (i, x) in x.iter_mut().enumerate() {
            let mut rhs = r[i];
            for j in 0..N {
                let dropped = exists[j] & !active[j];
                rhs = dropped.select(rhs - blocks.k[i][j] * -lambda[j], rhs);
            }
            *x = active[i].select(rhs, zero);
        }
        factor.substitute(&mut x);
        let mut finite = lane_mask(u32::MAX);
        let d: [f32x4; N] = std::array::from_fn(|j| {
            finite &= x[j].is_finite() | !active[j];
            active[j].select(x[j], exists[j].select(-lambda[j], zero))
        });
        // A condition broken: an active point's impulse negative, or an inactive one
        // approaching (w_i = (A·Δ)_i − r_i below the tolerance of `separating`).
        let broken: [u32; N] = std::array::from_fn(|i| {
            let negative = (lambda[i] + d[i]).simd_lt(zero);
            let mut w = zero;
            for (j, dj) in d.iter().enumerate() {
                let a = if i == j { blocks.diagonal[i] } else { blocks.k[i][j] };
                w += exists[j].select(a * *dj, zero);
            }
            w -= r[i];
            let tolerance = f32x4::splat(-1.0e-5)
                * (r[i].abs() + blocks.diagonal[i] * lambda[i].abs())
                - f32x4::splat(f32::MIN_POSITIVE);
            let approaching = !w.simd_ge(tolerance);
            (exists[i] & active[i].select(negative, approaching)).to_bitmask()
        });
        let finite = finite.to_bitmask();
        let round = pending;
        for l in (0..LANES).filter(|l| round & (1 << l) != 0) {
            if finite & (1 << l) == 0 {
                pending &= !(1 << l);
                continue;
            }
            match (0..N).find(|&i| broken[i] & (1 << l) != 0) {
                Some(i) => masks[l] ^= 1 << i,
                None => {
                    for (delta, d) in delta.iter_mut().zip(&d) {
                        delta.as_mut_array()[l] = d.as_array()[l];
                    }
                    settled |= 1 << l;
                    pending &= !(1 << l);
                }
            }
        }
    }
    (settled, masks)
}


/// Δ = 0 solves the block when nothing is pushing and nothing approaching (a contact that
/// only touches, as between the neighbours of a row): λ + Δ = 0 and w = −r ≥ 0 meet every
/// condition, and it is the unique solution.
#[inline]
pub(crate) fn resting_apart(r: &[f32; N], lambda: &[f32; N], n: usize) -> bool {
    (0..n).all(|i| lambda[i] == 0.0 && r[i] <= 0.0)
}

/// Solves the block LCP above for the first `n` points and returns Δ (zero beyond `n`).
/// `cache` holds the factorisation of the whole of `a` under `key` (see [`CachedFactor`]);
/// it is refreshed when the key differs.
pub(crate) fn solve_block(
    a: &[[f32; N]; N],
    r: &[f32; N],
    lambda: &[f32; N],
    n: usize,
    cache: &mut CachedFactor,
    key: u32,
) -> [f32; N] {
    if resting_apart(r, lambda, n) {
        return [0.0; N];
    }
    cache.refresh(a, n, key);
    match cache
        .factor
        .and_then(|f| principal_pivoting(a, r, lambda, n, &f, cache))
    {
        Some(delta) if finite(&delta) => return delta,
        _ => {}
    }
    match enumerate(a, r, lambda, n) {
        Some(delta) if finite(&delta) => delta,
        _ => sweep(a, r, lambda, n),
    }
}

/// Murty's principal pivoting with the least-index rule: start with the points that pushed
/// at the end of the last solve of this block in the step (every point the first time);
/// solve; toggle the first point that breaks a condition (an active one whose impulse went
/// negative leaves, an inactive one still approaching joins); repeat. For a positive
/// definite A (a P-matrix) it reaches the unique solution in finitely many steps from any
/// start; a resting face takes one solve (with `all`, the factorisation of the whole
/// block), a point that lifts off one or two more the first time and one after. `None`
/// when a solve is singular or it has not settled within 2ⁿ steps.
fn principal_pivoting(
    a: &[[f32; N]; N],
    r: &[f32; N],
    lambda: &[f32; N],
    n: usize,
    all: &Factor,
    cache: &mut CachedFactor,
) -> Option<[f32; N]> {
    let everyone = (1u8 << n) - 1;
    let mut mask = cache.last_active.unwrap_or(everyone);
    for _ in 0..1 << n {
        let active: [bool; N] = std::array::from_fn(|i| mask & (1 << i) != 0);
        let mut delta: [f32; N] =
            std::array::from_fn(|i| if i < n && !active[i] { -lambda[i] } else { 0.0 });
        let solved = if mask == everyone {
            // Every point active: Δ = A⁻¹·r.
            let mut x = *r;
            all.substitute(&mut x);
            delta[..n].copy_from_slice(&x[..n]);
            x[..n].iter().all(|v| v.is_finite())
        } else {
            let factor = match cache.subset {
                Some((m, f)) if m == mask => Some(f),
                _ => Factor::new(
                    a,
                    &active_points(&active, n).0[..mask.count_ones() as usize],
                ),
            };
            let factor = factor?;
            cache.subset = Some((mask, factor));
            solve_with(a, r, &active, n, &factor, &mut delta)
        };
        if !solved {
            return None;
        }
        let broken = (0..n).find(|&i| {
            if active[i] {
                lambda[i] + delta[i] < 0.0
            } else {
                !separating(a, r, lambda, &delta, n, i)
            }
        });
        match broken {
            None => {
                cache.last_active = Some(mask);
                return Some(delta);
            }
            Some(i) => mask ^= 1 << i,
        }
    }
    None
}

/// True when point `i` (impulse zero) is not approaching: w_i ≥ −tolerance.
fn separating(
    a: &[[f32; N]; N],
    r: &[f32; N],
    lambda: &[f32; N],
    delta: &[f32; N],
    n: usize,
    i: usize,
) -> bool {
    let w: f32 = (0..n).map(|j| a[i][j] * delta[j]).sum::<f32>() - r[i];
    w >= -1.0e-5 * (r[i].abs() + a[i][i] * lambda[i].abs()) - f32::MIN_POSITIVE
}

fn finite(delta: &[f32; N]) -> bool {
    delta.iter().all(|d| d.is_finite())
}

/// The fallback when A is too ill-conditioned for the direct solves (a body thousands of
/// times thinner than it is long has inertias 10⁶ apart): projected Gauss–Seidel, point by
/// point, `n` sweeps. Always finite; a point with a non-positive or non-finite A_ii is left
/// alone.
fn sweep(a: &[[f32; N]; N], r: &[f32; N], lambda: &[f32; N], n: usize) -> [f32; N] {
    let mut delta = [0.0; N];
    for _ in 0..n {
        for i in 0..n {
            let diagonal = a[i][i];
            if !(diagonal.is_finite() && diagonal > 0.0) {
                continue;
            }
            let w: f32 = (0..n).map(|j| a[i][j] * delta[j]).sum::<f32>() - r[i];
            let next = (lambda[i] + delta[i] - w / diagonal).max(0.0) - lambda[i];
            if next.is_finite() {
                delta[i] = next;
            }
        }
    }
    delta
}

/// Every subset of active points, largest first: the first that solves and meets the
/// conditions (none only when A is singular).
fn enumerate(a: &[[f32; N]; N], r: &[f32; N], lambda: &[f32; N], n: usize) -> Option<[f32; N]> {
    let masks = (0..=n as u32)
        .rev()
        .flat_map(|ones| (0..1u32 << n).filter(move |m| m.count_ones() == ones));
    masks.into_iter().find_map(|mask| {
        let active: [bool; N] = std::array::from_fn(|i| i < n && mask & (1 << i) != 0);
        let mut delta: [f32; N] = std::array::from_fn(|i| if i < n { -lambda[i] } else { 0.0 });
        let ok = solve_active(a, r, &active, n, &mut delta)
            && (0..n).all(|i| !active[i] || lambda[i] + delta[i] >= 0.0)
            && complementary(a, r, lambda, &delta, n);
        ok.then_some(delta)
    })
}

/// Solves A_aa·Δ_a = r_a − A_ai·Δ_i in place (inactive Δ_i fixed). False when A_aa is
/// singular or not positive definite (see [`Factor::new`]).
fn solve_active(
    a: &[[f32; N]; N],
    r: &[f32; N],
    active: &[bool; N],
    n: usize,
    delta: &mut [f32; N],
) -> bool {
    let (idx, m) = active_points(active, n);
    match Factor::new(a, &idx[..m]) {
        Some(factor) => solve_with(a, r, active, n, &factor, delta),
        None => false,
    }
}

/// The indices of the active points among the first `n`, and how many there are.
fn active_points(active: &[bool; N], n: usize) -> ([usize; N], usize) {
    let mut idx = [0usize; N];
    let mut m = 0;
    for (i, _) in active[..n].iter().enumerate().filter(|(_, &on)| on) {
        idx[m] = i;
        m += 1;
    }
    (idx, m)
}

/// [`solve_active`] with the active points' factorisation already made.
fn solve_with(
    a: &[[f32; N]; N],
    r: &[f32; N],
    active: &[bool; N],
    n: usize,
    factor: &Factor,
    delta: &mut [f32; N],
) -> bool {
    let (idx, m) = active_points(active, n);
    if m == 0 {
        return true;
    }
    let mut x = [0.0f32; N];
    for (row, &i) in idx[..m].iter().enumerate() {
        let mut rhs = r[i];
        for j in 0..n {
            if !active[j] {
                rhs -= a[i][j] * delta[j];
            }
        }
        x[row] = rhs;
    }
    factor.substitute(&mut x);
    for (row, &i) in idx[..m].iter().enumerate() {
        delta[i] = x[row];
    }
    x[..m].iter().all(|v| v.is_finite())
}

/// A_ss = L·D·Lᵀ for the points s (A symmetric positive definite: no pivoting needed). One
/// factorisation, then a forward and a back substitution per right-hand side: about a third
/// of the work of Gaussian elimination with partial pivoting, and this is the solver's
/// innermost call (every manifold, every pass, every sub-step).
#[derive(Clone, Copy, Debug)]
struct Factor {
    /// L below the diagonal, packed row by row: L₁₀, L₂₀, L₂₁, L₃₀, L₃₁, L₃₂.
    l: [f32; 6],
    d: [f32; N],
    m: usize,
}

/// Index of L_ij (i > j) in `Factor::l`.
#[inline]
const fn lower(i: usize, j: usize) -> usize {
    i * (i - 1) / 2 + j
}

impl Factor {
    /// `None` when A_ss is singular or not positive definite (a pivot at or below 10⁻¹² of
    /// its diagonal entry, or not finite).
    fn new(a: &[[f32; N]; N], idx: &[usize]) -> Option<Factor> {
        let m = idx.len();
        let mut l = [0.0f32; 6];
        let mut d = [0.0f32; N];
        for j in 0..m {
            let diagonal = a[idx[j]][idx[j]];
            let mut pivot = diagonal;
            for k in 0..j {
                pivot -= l[lower(j, k)] * l[lower(j, k)] * d[k];
            }
            // NaN fails the comparison.
            if !(pivot > 1.0e-12 * diagonal.abs() && pivot.is_finite()) {
                return None;
            }
            d[j] = pivot;
            for i in j + 1..m {
                let mut v = a[idx[i]][idx[j]];
                for k in 0..j {
                    v -= l[lower(i, k)] * l[lower(j, k)] * d[k];
                }
                l[lower(i, j)] = v / pivot;
            }
        }
        Some(Factor { l, d, m })
    }

    /// x ← A_ss⁻¹·x: L·y = x, then Lᵀ·x = D⁻¹·y.
    #[inline]
    fn substitute(&self, x: &mut [f32; N]) {
        let m = self.m;
        for i in 1..m {
            for k in 0..i {
                x[i] -= self.l[lower(i, k)] * x[k];
            }
        }
        for i in (0..m).rev() {
            x[i] /= self.d[i];
            for k in i + 1..m {
                x[i] -= self.l[lower(k, i)] * x[k];
            }
        }
    }
}

/// True when no point with a zero impulse is left approaching (w_i ≥ −tolerance).
fn complementary(
    a: &[[f32; N]; N],
    r: &[f32; N],
    lambda: &[f32; N],
    delta: &[f32; N],
    n: usize,
) -> bool {
    (0..n).all(|i| lambda[i] + delta[i] > 0.0 || separating(a, r, lambda, delta, n, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the LCP conditions of a solution to `tolerance`.
    fn assert_lcp(a: &[[f32; N]; N], r: &[f32; N], lambda: &[f32; N], d: &[f32; N], n: usize) {
        for i in 0..n {
            let total = lambda[i] + d[i];
            let w: f32 = (0..n).map(|j| a[i][j] * d[j]).sum::<f32>() - r[i];
            assert!(total >= -1e-5, "impulse {i} negative: {total}");
            assert!(w >= -1e-4, "point {i} still approaching: {w}");
            assert!(
                total * w < 1e-4,
                "point {i} pushes while separating: {total} · {w}"
            );
        }
    }

    #[test]
    fn all_points_pushing_is_the_plain_linear_solve() {
        // A = [[2,1],[1,2]], r = (3, 3): Δ = (1, 1) exactly (2+1 = 3).
        let mut a = [[0.0; N]; N];
        a[0] = [2.0, 1.0, 0.0, 0.0];
        a[1] = [1.0, 2.0, 0.0, 0.0];
        let r = [3.0, 3.0, 0.0, 0.0];
        let d = solve_block(&a, &r, &[0.0; N], 2, &mut CachedFactor::default(), 1);
        assert!(
            (d[0] - 1.0).abs() < 1e-6 && (d[1] - 1.0).abs() < 1e-6,
            "{d:?}"
        );
    }

    #[test]
    fn a_point_that_would_pull_is_dropped() {
        // r = (3, −3): the free solve gives Δ = (3, −3), a pulling point 1; the LCP solution
        // keeps point 1 at zero and solves 2·Δ0 = 3 → Δ0 = 1.5, then w1 = 1.5 + 3 > 0.
        let mut a = [[0.0; N]; N];
        a[0] = [2.0, 1.0, 0.0, 0.0];
        a[1] = [1.0, 2.0, 0.0, 0.0];
        let r = [3.0, -3.0, 0.0, 0.0];
        let d = solve_block(&a, &r, &[0.0; N], 2, &mut CachedFactor::default(), 1);
        assert!((d[0] - 1.5).abs() < 1e-6 && d[1].abs() < 1e-7, "{d:?}");
        assert_lcp(&a, &r, &[0.0; N], &d, 2);
    }

    /// Uniform in [−1, 1) from a xorshift generator seeded with `seed`.
    fn xorshift(mut seed: u64) -> impl FnMut() -> f32 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        }
    }

    #[test]
    fn four_lanes_factor_as_each_block_alone() {
        // Random SPD blocks of 1 to 4 points, one lane singular (two equal rows): every lane
        // of the four-wide factorisation holds the bits `Factor::new` gives its block, and
        // substitutes to the same solution; the singular lane has none.
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
        for round in 0..200 {
            let counts: [usize; LANES] = std::array::from_fn(|l| (round + l) % N + 1);
            let blocks: [[[f32; N]; N]; LANES] = std::array::from_fn(|l| {
                let b: [[f32; N]; N] = std::array::from_fn(|_| std::array::from_fn(|_| next()));
                let mut a = [[0.0; N]; N];
                for i in 0..counts[l] {
                    for j in 0..counts[l] {
                        a[i][j] = (0..N).map(|k| b[i][k] * b[j][k]).sum::<f32>()
                            + if i == j { 0.1 } else { 0.0 };
                    }
                }
                a
            });
            let mut blocks = blocks;
            let singular = round % LANES;
            if counts[singular] >= 2 {
                blocks[singular][1] = blocks[singular][0];
                for row in &mut blocks[singular] {
                    row[1] = row[0];
                }
            }
            let lanes: [[f32x4; N]; N] = std::array::from_fn(|i| {
                std::array::from_fn(|j| f32x4::new(std::array::from_fn(|l| blocks[l][i][j])))
            });
            let (factors, caches) = FactorLanes::factor(&lanes, counts, 5);
            let r: [f32x4; N] =
                std::array::from_fn(|_| f32x4::new(std::array::from_fn(|_| next())));
            let mut x = r;
            factors.substitute(&mut x);
            for l in 0..LANES {
                let all: Vec<usize> = (0..counts[l]).collect();
                let alone = Factor::new(&blocks[l], &all);
                assert_eq!(caches[l].key, 5);
                assert_eq!(alone.is_some(), caches[l].is_valid(), "lane {l}");
                if l == singular && counts[l] >= 2 {
                    assert!(alone.is_none());
                }
                let Some(alone) = alone else { continue };
                let lane = caches[l].factor.expect("valid");
                assert_eq!((lane.l, lane.d, lane.m), (alone.l, alone.d, alone.m));
                let mut y = r.map(|v| v.as_array()[l]);
                alone.substitute(&mut y);
                for j in 0..counts[l] {
                    assert_eq!(x[j].as_array()[l], y[j], "lane {l} point {j}");
                }
            }
        }
    }

    #[test]
    fn random_blocks_satisfy_the_lcp() {
        // Random SPD 4×4 matrices B·Bᵀ + 0.1·I and random right-hand sides and impulses
        // (fixed seed): every solution meets the complementarity conditions.
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        for _ in 0..2000 {
            let b: [[f32; N]; N] = std::array::from_fn(|_| std::array::from_fn(|_| next()));
            let mut a = [[0.0; N]; N];
            for i in 0..N {
                for j in 0..N {
                    a[i][j] = (0..N).map(|k| b[i][k] * b[j][k]).sum::<f32>()
                        + if i == j { 0.1 } else { 0.0 };
                }
            }
            let r: [f32; N] = std::array::from_fn(|_| next());
            let lambda: [f32; N] = std::array::from_fn(|_| next().abs());
            let d = solve_block(&a, &r, &lambda, N, &mut CachedFactor::default(), 1);
            assert_lcp(&a, &r, &lambda, &d, N);
            // Pivoting reaches the LCP's unique solution by itself (no fallback), the same
            // one the brute-force enumeration of all 16 subsets finds.
            let all = Factor::new(&a, &[0, 1, 2, 3]).expect("positive definite");
            let mut cache = CachedFactor::default();
            let pivoted =
                principal_pivoting(&a, &r, &lambda, N, &all, &mut cache).expect("settles");
            let reference = enumerate(&a, &r, &lambda, N).expect("a subset solves");
            for i in 0..N {
                let scale = 1.0 + reference[i].abs();
                assert!((pivoted[i] - reference[i]).abs() < 1e-3 * scale);
            }
            // Again with another right-hand side, starting from where the first one ended
            // (as the next pass does): the same unique solution as a search from scratch.
            let r: [f32; N] = std::array::from_fn(|_| next());
            let warm = principal_pivoting(&a, &r, &lambda, N, &all, &mut cache).expect("settles");
            let reference = enumerate(&a, &r, &lambda, N).expect("a subset solves");
            for i in 0..N {
                let scale = 1.0 + reference[i].abs();
                assert!((warm[i] - reference[i]).abs() < 1e-3 * scale);
            }
        }
    }

    #[test]
    fn four_coplanar_corners_regularised_solve_directly() {
        // A unit cube's four bottom corners on the ground (one body, m = 1, I⁻¹ = 6): K has
        // rank 3 (one linear and two angular directions), K_ij = 1 + 6·(r_i×n)·(r_j×n) with
        // r×n = (−z, 0, x) for r = (x, −½, z). The relax pass's K·(1 + ε) on the diagonal
        // makes it positive definite, so it is factored directly, and the corners share
        // stopping v = −1 equally: by symmetry Δ_i = c, row sum 4c = 1, c = ¼.
        let corners = [(0.5f32, 0.5f32), (-0.5, 0.5), (-0.5, -0.5), (0.5, -0.5)];
        let mut a = [[0.0; N]; N];
        for i in 0..N {
            for j in 0..N {
                let (xi, zi) = corners[i];
                let (xj, zj) = corners[j];
                // r×y = (−z, 0, x) for r = (x, −½, z).
                a[i][j] = 1.0 + 6.0 * (zi * zj + xi * xj);
            }
            a[i][i] *= 1.0 + crate::physics::constants::RELAX_REGULARIZATION;
        }
        let r = [1.0; N];
        let all = Factor::new(&a, &[0, 1, 2, 3]).expect("positive definite");
        let mut cache = CachedFactor::default();
        let d = principal_pivoting(&a, &r, &[0.0; N], N, &all, &mut cache).expect("settles");
        for v in d {
            assert!((v - 0.25).abs() < 1e-3, "{d:?}");
        }
    }
}
