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

use crate::physics::narrow_phase::MAX_MANIFOLD_POINTS;

const N: usize = MAX_MANIFOLD_POINTS;

/// Solves the block LCP above for the first `n` points and returns Δ (zero beyond `n`).
pub(crate) fn solve_block(
    a: &[[f32; N]; N],
    r: &[f32; N],
    lambda: &[f32; N],
    n: usize,
) -> [f32; N] {
    match principal_pivoting(a, r, lambda, n) {
        Some(delta) if finite(&delta) => return delta,
        _ => {}
    }
    match enumerate(a, r, lambda, n) {
        Some(delta) if finite(&delta) => delta,
        _ => sweep(a, r, lambda, n),
    }
}

/// Murty's principal pivoting with the least-index rule: start with every point active;
/// solve; toggle the first point that breaks a condition (an active one whose impulse went
/// negative leaves, an inactive one still approaching joins); repeat. For a positive
/// definite A it reaches the unique solution in finitely many steps; a resting face takes
/// one solve, and a point that lifts off one or two more. `None` when a solve is singular or
/// it has not settled within 2ⁿ steps.
fn principal_pivoting(
    a: &[[f32; N]; N],
    r: &[f32; N],
    lambda: &[f32; N],
    n: usize,
) -> Option<[f32; N]> {
    let mut active = [false; N];
    active[..n].fill(true);
    for _ in 0..1 << n {
        let mut delta: [f32; N] =
            std::array::from_fn(|i| if i < n && !active[i] { -lambda[i] } else { 0.0 });
        if !solve_active(a, r, &active, n, &mut delta) {
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
            None => return Some(delta),
            Some(i) => active[i] = !active[i],
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
/// singular or not positive definite (a pivot at or below 10⁻¹² of its diagonal entry).
///
/// A is symmetric positive definite, so A_aa = L·D·Lᵀ (L unit lower triangular, D diagonal)
/// needs no pivoting: one factorisation, then a forward and a back substitution. About a
/// third of the work of Gaussian elimination with partial pivoting, and this is the
/// solver's innermost call (every manifold, every pass, every sub-step).
fn solve_active(
    a: &[[f32; N]; N],
    r: &[f32; N],
    active: &[bool; N],
    n: usize,
    delta: &mut [f32; N],
) -> bool {
    let mut idx = [0usize; N];
    let mut m = 0;
    for (i, _) in active[..n].iter().enumerate().filter(|(_, &on)| on) {
        idx[m] = i;
        m += 1;
    }
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
    let mut l = [[0.0f32; N]; N];
    let mut d = [0.0f32; N];
    for j in 0..m {
        let diagonal = a[idx[j]][idx[j]];
        let mut pivot = diagonal;
        for k in 0..j {
            pivot -= l[j][k] * l[j][k] * d[k];
        }
        // NaN fails the comparison.
        if !(pivot > 1.0e-12 * diagonal.abs() && pivot.is_finite()) {
            return false;
        }
        d[j] = pivot;
        for i in j + 1..m {
            let mut v = a[idx[i]][idx[j]];
            for k in 0..j {
                v -= l[i][k] * l[j][k] * d[k];
            }
            l[i][j] = v / pivot;
        }
    }
    // L·y = rhs, then Lᵀ·Δ = D⁻¹·y.
    for i in 1..m {
        for k in 0..i {
            x[i] -= l[i][k] * x[k];
        }
    }
    for i in (0..m).rev() {
        x[i] /= d[i];
        for k in i + 1..m {
            x[i] -= l[k][i] * x[k];
        }
    }
    for (row, &i) in idx[..m].iter().enumerate() {
        delta[i] = x[row];
    }
    x[..m].iter().all(|v| v.is_finite())
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
        let d = solve_block(&a, &r, &[0.0; N], 2);
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
        let d = solve_block(&a, &r, &[0.0; N], 2);
        assert!((d[0] - 1.5).abs() < 1e-6 && d[1].abs() < 1e-7, "{d:?}");
        assert_lcp(&a, &r, &[0.0; N], &d, 2);
    }

    #[test]
    fn random_blocks_satisfy_the_lcp() {
        // Random SPD 4×4 matrices B·Bᵀ + 0.1·I and random right-hand sides and impulses
        // (fixed seed): every solution meets the complementarity conditions.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
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
            let d = solve_block(&a, &r, &lambda, N);
            assert_lcp(&a, &r, &lambda, &d, N);
            // Pivoting reaches the LCP's unique solution by itself (no fallback), the same
            // one the brute-force enumeration of all 16 subsets finds.
            let pivoted = principal_pivoting(&a, &r, &lambda, N).expect("pivoting settles");
            let reference = enumerate(&a, &r, &lambda, N).expect("a subset solves");
            for i in 0..N {
                let scale = 1.0 + reference[i].abs();
                assert!((pivoted[i] - reference[i]).abs() < 1e-3 * scale);
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
        let d = principal_pivoting(&a, &r, &[0.0; N], N).expect("positive definite");
        for v in d {
            assert!((v - 0.25).abs() < 1e-3, "{d:?}");
        }
    }
}
