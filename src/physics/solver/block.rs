//! The normal block of one manifold: a linear complementarity problem of at most four
//! unknowns, solved directly.
//!
//! ```text
//! given A (n×n, symmetric positive definite), r, and the accumulated impulses λ ≥ 0,
//! find Δ with  w = A·Δ − r,  λ + Δ ≥ 0,  w ≥ 0,  (λ + Δ)·w = 0
//!
//! active = every point
//! repeat (at most n times):
//!     inactive points get Δ_i = −λ_i (their impulse drops to zero)
//!     solve A_aa·Δ_a = r_a − A_ai·Δ_i for the active ones (Gaussian elimination)
//!     if every active λ + Δ ≥ 0: stop; else deactivate those that went negative
//! if an inactive point is left with w < 0 (it should push after all): try every subset of
//! active points (16 for four points) and keep the one that meets the conditions
//! ```
//! With A symmetric positive definite the LCP has exactly one solution, so the enumeration
//! always finds it.
//! Box2D v2's block solver enumerates all four cases of two points; with four points the
//! active-set loop does the same job in at most four small solves, and a resting face (every
//! point pushing, by far the common case) takes exactly one.

use crate::physics::narrow_phase::MAX_MANIFOLD_POINTS;

const N: usize = MAX_MANIFOLD_POINTS;

/// Solves the block LCP above for the first `n` points and returns Δ (zero beyond `n`).
pub(crate) fn solve_block(
    a: &[[f32; N]; N],
    r: &[f32; N],
    lambda: &[f32; N],
    n: usize,
) -> [f32; N] {
    let mut delta = [0.0; N];
    let mut active = [false; N];
    active[..n].fill(true);
    let mut settled = false;
    for _ in 0..n {
        for i in 0..n {
            if !active[i] {
                delta[i] = -lambda[i];
            }
        }
        if !solve_active(a, r, &active, n, &mut delta) {
            break;
        }
        let mut dropped = false;
        for i in 0..n {
            if active[i] && lambda[i] + delta[i] < 0.0 {
                active[i] = false;
                dropped = true;
            }
        }
        if !dropped {
            settled = true;
            break;
        }
    }
    if settled && complementary(a, r, lambda, &delta, n) && finite(&delta) {
        return delta;
    }
    match enumerate(a, r, lambda, n) {
        Some(delta) if finite(&delta) => delta,
        _ => sweep(a, r, lambda, n),
    }
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

/// Solves A_aa·Δ_a = r_a − A_ai·Δ_i in place (inactive Δ_i fixed). False when singular.
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
    // Augmented system [A_aa | rhs].
    let mut sys = [[0.0f32; N + 1]; N];
    for (row, &i) in idx[..m].iter().enumerate() {
        let mut rhs = r[i];
        for j in 0..n {
            if !active[j] {
                rhs -= a[i][j] * delta[j];
            }
        }
        for (col, &j) in idx[..m].iter().enumerate() {
            sys[row][col] = a[i][j];
        }
        sys[row][N] = rhs;
    }
    // Gaussian elimination with partial pivoting.
    for col in 0..m {
        let pivot = (col..m)
            .max_by(|&x, &y| sys[x][col].abs().total_cmp(&sys[y][col].abs()))
            .unwrap_or(col);
        sys.swap(col, pivot);
        let p = sys[col][col];
        // NaN fails `is_finite`.
        if p.abs() <= 1.0e-12 * a[idx[col]][idx[col]].abs() || !p.is_finite() {
            return false;
        }
        let pivot_row = sys[col];
        for row in &mut sys[col + 1..m] {
            let f = row[col] / p;
            for (x, &y) in row[col..m].iter_mut().zip(&pivot_row[col..m]) {
                *x -= f * y;
            }
            row[N] -= f * pivot_row[N];
        }
    }
    for col in (0..m).rev() {
        let mut v = sys[col][N];
        for k in col + 1..m {
            v -= sys[col][k] * delta[idx[k]];
        }
        delta[idx[col]] = v / sys[col][col];
    }
    idx[..m].iter().all(|&i| delta[i].is_finite())
}

/// True when no point with a zero impulse is left approaching (w_i ≥ −tolerance).
fn complementary(
    a: &[[f32; N]; N],
    r: &[f32; N],
    lambda: &[f32; N],
    delta: &[f32; N],
    n: usize,
) -> bool {
    (0..n).all(|i| {
        if lambda[i] + delta[i] > 0.0 {
            return true;
        }
        let w: f32 = (0..n).map(|j| a[i][j] * delta[j]).sum::<f32>() - r[i];
        w >= -1.0e-5 * (r[i].abs() + a[i][i] * lambda[i].abs()) - f32::MIN_POSITIVE
    })
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
        }
    }
}
