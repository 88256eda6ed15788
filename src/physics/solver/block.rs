//! The normal block of one manifold: the up to four normal impulses of one contact, solved
//! together.
//!
//! ```text
//! given A (n×n, symmetric positive definite), r, and the accumulated impulses λ ≥ 0,
//! find Δ with  w = A·Δ − r,  λ + Δ ≥ 0,  w ≥ 0,  (λ + Δ)·w = 0
//!
//! every point pushing (a resting face, by far the common case):
//!     Δ = A⁻¹·r from a cached L·D·Lᵀ factorisation, four lanes at once; it is the
//!     answer when every λ + Δ ≥ 0 (then w = 0)
//! otherwise (a point lifting off or joining, a singular block):
//!     projected Gauss–Seidel over the block's points, [`FALLBACK_SWEEPS`] sweeps, four
//!     lanes at once
//! ```
//! The exact solve of the common case is what keeps a resting face's points loaded evenly
//! (one Gauss–Seidel sweep gives the first point more than its share, and an aligned stack
//! walks; see the solver's module notes). When a point lifts, the exact answer needs
//! principal pivoting over subsets of the points, a factorisation of each: a third of the
//! solver's time in a pile of cubes, where a third of the manifolds have a point lifting at
//! any time. Two sweeps there, carried on by the warm start and the sub-steps like every
//! other engine's rows, keep every stability test where the exact solve has it.

use super::simd::f32x4;
use crate::physics::narrow_phase::MAX_MANIFOLD_POINTS;

const N: usize = MAX_MANIFOLD_POINTS;

/// The whole-block factorisations of four manifolds, one per lane, for the common case
/// (every point pushing, see [`solve_lanes`]). A lane with fewer points, or none, is padded
/// with the identity. The matrix of a pass changes only with which points are speculative,
/// so a resting manifold is factored once per step and pass (the caller keeps a key of the
/// matrix each lane holds), not once per iteration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FactorLanes {
    l: [f32x4; 6],
    /// 1/D: the substitution multiplies, so its chain of four steps waits on no division.
    inv_d: [f32x4; N],
}

impl Default for FactorLanes {
    fn default() -> FactorLanes {
        FactorLanes {
            l: [f32x4::ZERO; 6],
            inv_d: [f32x4::ONE; N],
        }
    }
}

impl FactorLanes {
    /// Sets lane `lane`'s factorisation (the identity for `None`).
    pub fn set_lane(&mut self, lane: usize, factor: Option<&Factor>) {
        let (l, d) = match factor {
            Some(f) => {
                let inv_d = std::array::from_fn(|j| if j < f.m { f.inv_d[j] } else { 1.0 });
                (f.l, inv_d)
            }
            None => ([0.0; 6], [1.0; N]),
        };
        for (lanes, value) in self.l.iter_mut().zip(l) {
            lanes.as_mut_array()[lane] = value;
        }
        for (lanes, value) in self.inv_d.iter_mut().zip(d) {
            lanes.as_mut_array()[lane] = value;
        }
    }

    /// Factors four lanes' blocks at once: the matrix `a` with `diagonal` on its diagonal
    /// (a's own diagonal is not read, so the passes' two blocks share one `a`), in lane l
    /// the points `exists[j]` marks (the first few), padded with the identity. The
    /// operations of [`Factor::new`] in the same order, so a lane gets the scalar bits.
    /// Returns a mask of the lanes whose block is positive definite and not empty; the
    /// others hold the identity. Every entry is written (the factors are formed in place,
    /// not returned: they are 160 bytes), so what `self` held before is never read.
    pub fn factor_into(
        &mut self,
        a: &[[f32x4; N]; N],
        diagonal: &[f32x4; N],
        exists: &[f32x4; N],
    ) -> f32x4 {
        let (zero, one) = (f32x4::ZERO, f32x4::ONE);
        let f = self;
        let mut d = [one; N];
        let mut inv_d = [one; N];
        let mut valid = exists[0];
        for j in 0..N {
            let diagonal = exists[j].select(diagonal[j], one);
            let mut pivot = diagonal;
            for (k, &dk) in d.iter().enumerate().take(j) {
                pivot -= f.l[lower(j, k)] * f.l[lower(j, k)] * dk;
            }
            // NaN fails the comparison.
            valid &= pivot.simd_gt(f32x4::splat(1.0e-12) * diagonal.abs()) & pivot.is_finite();
            d[j] = exists[j].select(pivot, one);
            inv_d[j] = one / d[j];
            for i in j + 1..N {
                let mut v = exists[i].select(a[i][j], zero);
                for (k, &dk) in d.iter().enumerate().take(j) {
                    v -= f.l[lower(i, k)] * f.l[lower(j, k)] * dk;
                }
                f.l[lower(i, j)] = exists[i].select(v / d[j], zero);
            }
        }
        f.l = f.l.map(|x| valid.select(x, zero));
        f.inv_d = inv_d.map(|x| valid.select(x, one));
        valid
    }

    /// [`Self::factor_into`] into new factors.
    #[cfg(test)]
    pub fn factor(
        a: &[[f32x4; N]; N],
        diagonal: &[f32x4; N],
        exists: &[f32x4; N],
    ) -> (FactorLanes, f32x4) {
        let mut f = FactorLanes::default();
        let valid = f.factor_into(a, diagonal, exists);
        (f, valid)
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
            x[i] *= self.inv_d[i];
            for k in i + 1..N {
                x[i] -= self.l[lower(k, i)] * x[k];
            }
        }
    }
}

/// The common case for four lanes at once: with every point pushing, Δ = A⁻¹·r from the
/// cached factorisation. Returns, per lane (as a mask), whether that is the answer (every Δ
/// finite and no impulse driven negative), and writes those lanes' Δ into `delta`; the
/// others need [`sweep_lanes`]. `candidate` masks the lanes with a valid factorisation in
/// `factors`, `exists[j]` the lanes whose manifold has a point j.
#[inline(always)]
pub(crate) fn solve_lanes(
    factors: &FactorLanes,
    r: &[f32x4; N],
    lambda: &[f32x4; N],
    exists: &[f32x4; N],
    candidate: f32x4,
    delta: &mut [f32x4; N],
) -> f32x4 {
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
    solved
}

/// Sweeps of [`sweep_lanes`] per pass.
pub(crate) const FALLBACK_SWEEPS: usize = 2;

/// Projected Gauss–Seidel over the points of the lanes `lanes` masks (the matrix A is `k`
/// off the diagonal and `diagonal` on it), [`FALLBACK_SWEEPS`] times, from Δ = 0 (the impulses as the warm start and the passes so far left them):
/// point by point, w_i = (A·Δ)_i − r_i and Δ_i ← max(λ_i + Δ_i − w_i/A_ii, 0) − λ_i. A point
/// with A_ii not positive, or whose update is not finite, keeps its Δ. Writes those lanes'
/// Δ into `delta`.
#[inline(always)]
pub(crate) fn sweep_lanes(
    k: &[[f32x4; N]; N],
    diagonal: &[f32x4; N],
    exists: &[f32x4; N],
    lanes: f32x4,
    r: &[f32x4; N],
    lambda: &[f32x4; N],
    delta: &mut [f32x4; N],
) {
    let zero = f32x4::ZERO;
    let usable: [f32x4; N] = std::array::from_fn(|i| exists[i] & diagonal[i].simd_gt(zero));
    // Multiplied, not divided: the sweep is a chain of eight updates, each waiting on the
    // last, and a division's latency is several multiplications'.
    let inverse = diagonal.map(|a| f32x4::ONE / a);
    let mut d = [zero; N];
    for _ in 0..FALLBACK_SWEEPS {
        for i in 0..N {
            let mut w = -r[i];
            for (j, d) in d.iter().enumerate() {
                w += if i == j { diagonal[i] } else { k[i][j] } * *d;
            }
            let next = (lambda[i] + d[i] - w * inverse[i]).max(zero) - lambda[i];
            d[i] = (usable[i] & next.is_finite()).select(next, d[i]);
        }
    }
    for (delta, d) in delta.iter_mut().zip(d) {
        *delta = lanes.select(d, *delta);
    }
}

/// A_ss = L·D·Lᵀ for the points s (A symmetric positive definite: no pivoting needed). One
/// factorisation, then a forward and a back substitution per right-hand side: about a third
/// of the work of Gaussian elimination with partial pivoting, and this is the solver's
/// innermost call (every manifold, every pass, every sub-step).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Factor {
    /// L below the diagonal, packed row by row: L₁₀, L₂₀, L₂₁, L₃₀, L₃₁, L₃₂.
    l: [f32; 6],
    /// 1/D.
    inv_d: [f32; N],
    m: usize,
}

/// Index of L_ij (i > j) in `Factor::l`.
#[inline]
const fn lower(i: usize, j: usize) -> usize {
    i * (i - 1) / 2 + j
}

impl Factor {
    /// The factorisation of the first `n` points of `a`; `None` as for [`Factor::new`].
    pub fn whole(a: &[[f32; N]; N], n: usize) -> Option<Factor> {
        let all: [usize; N] = std::array::from_fn(|i| i);
        Factor::new(a, &all[..n])
    }

    /// `None` when A_ss is singular or not positive definite (a pivot at or below 10⁻¹² of
    /// its diagonal entry, or not finite).
    fn new(a: &[[f32; N]; N], idx: &[usize]) -> Option<Factor> {
        let m = idx.len();
        let mut l = [0.0f32; 6];
        let mut d = [0.0f32; N];
        let mut inv_d = [0.0f32; N];
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
            inv_d[j] = 1.0 / pivot;
            for i in j + 1..m {
                let mut v = a[idx[i]][idx[j]];
                for k in 0..j {
                    v -= l[lower(i, k)] * l[lower(j, k)] * d[k];
                }
                l[lower(i, j)] = v / pivot;
            }
        }
        Some(Factor { l, inv_d, m })
    }

    /// x ← A_ss⁻¹·x: L·y = x, then Lᵀ·x = D⁻¹·y (the tests' reference for the lanes).
    #[cfg(test)]
    fn substitute(&self, x: &mut [f32; N]) {
        let m = self.m;
        for i in 1..m {
            for k in 0..i {
                x[i] -= self.l[lower(i, k)] * x[k];
            }
        }
        for i in (0..m).rev() {
            x[i] *= self.inv_d[i];
            for k in i + 1..m {
                x[i] -= self.l[lower(k, i)] * x[k];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::simd::LANES;
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

    /// Every lane holds the same block: the factorisation, the common case, and the sweep
    /// where it fails, as `solve_normal` runs them. Lane 0's Δ, and whether the common case
    /// solved it.
    fn solve_one(a: &[[f32; N]; N], r: &[f32; N], lambda: &[f32; N], n: usize) -> ([f32; N], bool) {
        let splat = |x: f32| f32x4::splat(x);
        let lanes: [[f32x4; N]; N] = a.map(|row| row.map(splat));
        let exists: [f32x4; N] =
            std::array::from_fn(|j| splat(if j < n { f32::from_bits(u32::MAX) } else { 0.0 }));
        let diagonal: [f32x4; N] = std::array::from_fn(|i| lanes[i][i]);
        let (factors, candidate) = FactorLanes::factor(&lanes, &diagonal, &exists);
        let (r, lambda) = (r.map(splat), lambda.map(splat));
        let mut delta = [f32x4::ZERO; N];
        let solved = solve_lanes(&factors, &r, &lambda, &exists, candidate, &mut delta);
        if solved.to_bitmask() & 1 == 0 {
            sweep_lanes(
                &lanes, &diagonal, &exists, exists[0], &r, &lambda, &mut delta,
            );
        }
        (delta.map(|d| d.as_array()[0]), solved.to_bitmask() & 1 == 1)
    }

    /// The LCP's unique solution by brute force (a reference for the tests): every subset of
    /// pushing points, the first whose solve meets every condition.
    fn enumerate(a: &[[f32; N]; N], r: &[f32; N], lambda: &[f32; N], n: usize) -> [f32; N] {
        for mask in 0..1u32 << n {
            let active: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
            let mut d: [f32; N] = std::array::from_fn(|i| if i < n { -lambda[i] } else { 0.0 });
            let Some(f) = Factor::new(a, &active) else {
                continue;
            };
            let mut x = [0.0; N];
            for (row, &i) in active.iter().enumerate() {
                x[row] = r[i]
                    - (0..n)
                        .filter(|j| !active.contains(j))
                        .map(|j| a[i][j] * d[j])
                        .sum::<f32>();
            }
            f.substitute(&mut x);
            for (row, &i) in active.iter().enumerate() {
                d[i] = x[row];
            }
            let meets = (0..n).all(|i| {
                let w: f32 = (0..n).map(|j| a[i][j] * d[j]).sum::<f32>() - r[i];
                lambda[i] + d[i] >= -1e-5 && w >= -1e-4 && (lambda[i] + d[i]) * w < 1e-4
            });
            if meets {
                return d;
            }
        }
        panic!("no subset solves {a:?}");
    }

    #[test]
    fn all_points_pushing_is_the_plain_linear_solve() {
        // A = [[2,1],[1,2]], r = (3, 3): Δ = (1, 1) exactly (2+1 = 3), by the common case.
        let mut a = [[0.0; N]; N];
        a[0] = [2.0, 1.0, 0.0, 0.0];
        a[1] = [1.0, 2.0, 0.0, 0.0];
        let r = [3.0, 3.0, 0.0, 0.0];
        let (d, direct) = solve_one(&a, &r, &[0.0; N], 2);
        assert!(direct);
        assert!(
            (d[0] - 1.0).abs() < 1e-6 && (d[1] - 1.0).abs() < 1e-6,
            "{d:?}"
        );
    }

    #[test]
    fn a_point_that_would_pull_is_dropped() {
        // r = (3, −3): the free solve gives Δ = (3, −3), a pulling point 1, so the sweep
        // takes over. Sweep 1: w0 = −3 → Δ0 = 3/2; w1 = 3 + 1·1.5 = 4.5 > 0 → Δ1 = 0.
        // Sweep 2: w0 = −3 + 2·1.5 = 0 keeps both. That is the LCP solution (point 1 at zero,
        // 2·Δ0 = 3, then w1 = 1.5 + 3 > 0).
        let mut a = [[0.0; N]; N];
        a[0] = [2.0, 1.0, 0.0, 0.0];
        a[1] = [1.0, 2.0, 0.0, 0.0];
        let r = [3.0, -3.0, 0.0, 0.0];
        let (d, direct) = solve_one(&a, &r, &[0.0; N], 2);
        assert!(!direct);
        assert_eq!((d[0], d[1]), (1.5, 0.0));
        assert_lcp(&a, &r, &[0.0; N], &d, 2);
        assert_eq!(d, enumerate(&a, &r, &[0.0; N], 2));
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
            let exists: [f32x4; N] = std::array::from_fn(|j| {
                f32x4::new(counts.map(|n| if j < n { f32::from_bits(u32::MAX) } else { 0.0 }))
            });
            let diagonal: [f32x4; N] = std::array::from_fn(|i| lanes[i][i]);
            let (factors, valid) = FactorLanes::factor(&lanes, &diagonal, &exists);
            let r: [f32x4; N] =
                std::array::from_fn(|_| f32x4::new(std::array::from_fn(|_| next())));
            let mut x = r;
            factors.substitute(&mut x);
            for l in 0..LANES {
                let all: Vec<usize> = (0..counts[l]).collect();
                let alone = Factor::new(&blocks[l], &all);
                assert_eq!(
                    alone.is_some(),
                    valid.to_bitmask() & (1 << l) != 0,
                    "lane {l}"
                );
                if l == singular && counts[l] >= 2 {
                    assert!(alone.is_none());
                }
                let Some(alone) = alone else {
                    // The identity in its place.
                    assert!(factors.l.iter().all(|x| x.as_array()[l] == 0.0));
                    assert!(factors.inv_d.iter().all(|x| x.as_array()[l] == 1.0));
                    continue;
                };
                assert_eq!(factors.l.map(|x| x.as_array()[l]), alone.l);
                for j in 0..N {
                    let inv_d = if j < alone.m { alone.inv_d[j] } else { 1.0 };
                    assert_eq!(factors.inv_d[j].as_array()[l], inv_d);
                }
                let mut y = r.map(|v| v.as_array()[l]);
                alone.substitute(&mut y);
                for j in 0..counts[l] {
                    assert_eq!(x[j].as_array()[l], y[j], "lane {l} point {j}");
                }
            }
        }
    }

    #[test]
    fn a_singular_block_is_swept() {
        // Two points at the same place (equal rows, no factorisation): A = [[1,1],[1,1]],
        // r = (2, 2). Sweep 1: w0 = −2 → Δ0 = 2; w1 = −2 + 2 = 0 → Δ1 = 0; sweep 2 keeps
        // them. w = A·Δ − r = 0: a solution of the LCP (not the only one).
        let mut a = [[0.0; N]; N];
        a[0] = [1.0, 1.0, 0.0, 0.0];
        a[1] = [1.0, 1.0, 0.0, 0.0];
        let (d, direct) = solve_one(&a, &[2.0, 2.0, 0.0, 0.0], &[0.0; N], 2);
        assert!(!direct);
        assert_eq!(d, [2.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn repeated_passes_reach_the_lcp_solution() {
        // Random SPD 4×4 matrices B·Bᵀ + 0.5·I, right-hand sides and impulses (fixed seed).
        // One call never drives an impulse negative; calls repeated as the passes repeat
        // them (λ ← λ + Δ, r ← r − A·Δ) reach the unique solution the brute-force
        // enumeration of the 16 subsets finds.
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        for _ in 0..500 {
            let b: [[f32; N]; N] = std::array::from_fn(|_| std::array::from_fn(|_| next()));
            let mut a = [[0.0; N]; N];
            for i in 0..N {
                for j in 0..N {
                    a[i][j] = (0..N).map(|k| b[i][k] * b[j][k]).sum::<f32>()
                        + if i == j { 0.5 } else { 0.0 };
                }
            }
            let r0: [f32; N] = std::array::from_fn(|_| next());
            let lambda0: [f32; N] = std::array::from_fn(|_| next().abs());
            let reference = enumerate(&a, &r0, &lambda0, N);
            let (mut r, mut lambda) = (r0, lambda0);
            for _ in 0..300 {
                let (d, _) = solve_one(&a, &r, &lambda, N);
                for i in 0..N {
                    lambda[i] += d[i];
                    assert!(lambda[i] >= 0.0, "impulse {i} negative");
                    r[i] -= (0..N).map(|j| a[i][j] * d[j]).sum::<f32>();
                }
            }
            for i in 0..N {
                let total = lambda0[i] + reference[i];
                assert!(
                    (lambda[i] - total).abs() < 1e-3 * (1.0 + total.abs()),
                    "point {i}: {} against {total}",
                    lambda[i]
                );
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
        let (d, direct) = solve_one(&a, &r, &[0.0; N], N);
        assert!(direct);
        for v in d {
            assert!((v - 0.25).abs() < 1e-3, "{d:?}");
        }
    }
}
