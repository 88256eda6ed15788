//! The island block: elimination of full, rank-deficient and island-ordered systems against
//! dense solutions, rank-one rows, and the rules for rows along locked axes.

use super::*;
use crate::physics::math::Mat3;

/// [`eliminate`] on a row-major K and rhs, returning x.
fn solve(mut k: Vec<f64>, mut rhs: Vec<f64>) -> Vec<f64> {
    let n = rhs.len();
    let mut x = vec![0.0; n];
    eliminate(
        &mut k,
        &mut rhs,
        &mut x,
        &mut vec![0; n],
        &mut vec![false; n],
        RANK_TOLERANCE,
    );
    x
}

/// A full system with a known solution; a singular one whose null direction gets
/// x = 0 while the rest is solved exactly; a redundant pair of rows.
#[test]
fn elimination_solves_full_and_rank_deficient_systems() {
    // K = [[4, 1, 0], [1, 3, 1], [0, 1, 2]], x = (1, −2, 3): rhs = K·x = (2, −2, 4).
    let x = solve(
        vec![4.0, 1.0, 0.0, 1.0, 3.0, 1.0, 0.0, 1.0, 2.0],
        vec![2.0, -2.0, 4.0],
    );
    for (x, want) in x.iter().zip([1.0, -2.0, 3.0]) {
        assert!((x - want).abs() < 1e-5, "{x}");
    }
    // K = diag(2, 0, 5): the middle direction is left out.
    let x = solve(
        vec![2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0],
        vec![4.0, 7.0, 10.0],
    );
    assert_eq!(x, vec![2.0, 0.0, 2.0]);
    // Two equal rows (a redundant constraint): K = [[1, 1], [1, 1]], rhs (3, 3); one
    // row takes it all and K·x = rhs holds.
    let x = solve(vec![1.0, 1.0, 1.0, 1.0], vec![3.0, 3.0]);
    assert!((x[0] + x[1] - 3.0).abs() < 1e-6, "{x:?}");
    // Rounding noise (10⁻¹⁵ of the largest diagonal) is no direction; a gram body's
    // share next to a heavy one (10⁻¹⁰) is.
    let x = solve(vec![1.0, 0.0, 0.0, 1.0e-15], vec![1.0, 1.0]);
    assert_eq!(x, vec![1.0, 0.0]);
    let x = solve(vec![1.0, 0.0, 0.0, 1.0e-10], vec![1.0, 1.0e-10]);
    assert!((x[1] - 1.0).abs() < 1e-9, "{x:?}");
}

/// Joints on random pairs of six bodies (a chain, a tree and a loop among them), each
/// with one to three rows of random coefficients, one per axis (a joint's own rows are
/// independent, as a ball joint's three): K = J·M⁻¹·Jᵀ, sparse where joints
/// share no body. The island's elimination in its minimum-degree order must give the x
/// of the dense elimination with diagonal pivoting (the reference), and K·x = rhs.
#[test]
fn island_elimination_matches_the_dense_one() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut random = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    for case in 0..20 {
        // Joint j joins bodies (a, b); 0 is the world.
        let joints: Vec<(u32, u32)> = (0..8)
            .map(|j| match case % 3 {
                0 => (j as u32, j as u32 + 1),
                1 => ((random() * (j as f64 + 1.0)) as u32, j as u32 + 1),
                _ => (1 + (random() * 6.0) as u32, 1 + (random() * 6.0) as u32),
            })
            .collect();
        let weights: Vec<u32> = (0..joints.len())
            .map(|_| 1 + (random() * 3.0) as u32)
            .collect();
        let inv_mass: Vec<f64> = (0..10).map(|_| 0.01 + 10.0 * random()).collect();
        // Each row: a coefficient per body (a, b) on one shared axis (K stays symmetric
        // positive semi-definite: J·M⁻¹·Jᵀ).
        let mut rows = Vec::new();
        let mut ranges = Vec::new();
        for (j, &(a, b)) in joints.iter().enumerate() {
            let first = rows.len() as u32;
            for axis in 0..weights[j] as usize {
                rows.push((a, b, random() - 0.5, random() - 0.5, axis));
            }
            ranges.push((first, rows.len() as u32));
        }
        let n = rows.len();
        let mut k = vec![0.0; n * n];
        for (i, ri) in rows.iter().enumerate() {
            for (j, rj) in rows.iter().enumerate() {
                if ri.4 != rj.4 {
                    continue;
                }
                for (body, c) in [(ri.0, ri.2), (ri.1, ri.3)] {
                    if body == 0 {
                        continue;
                    }
                    if body == rj.0 {
                        k[i * n + j] += c * rj.2 * inv_mass[body as usize];
                    }
                    if body == rj.1 {
                        k[i * n + j] += c * rj.3 * inv_mass[body as usize];
                    }
                }
            }
        }
        for i in 0..n {
            k[i * n + i] *= 1.0 + BLOCK_REGULARIZATION;
        }
        let rhs: Vec<f64> = (0..n).map(|_| random() - 0.5).collect();
        let mut touching: Vec<(u32, u32)> = joints
            .iter()
            .enumerate()
            .flat_map(|(j, &(a, b))| [(a, j as u32), (b, j as u32)])
            .filter(|&(body, _)| body != 0)
            .collect();
        touching.sort_unstable();
        let mut scratch = BlockScratch::default();
        let mut plan = BlockPlan::default();
        let (mut adjacency, mut degree, mut eliminated) = (Vec::new(), Vec::new(), Vec::new());
        order_island(
            0,
            &weights,
            &touching,
            &mut plan,
            &mut adjacency,
            &mut degree,
            &mut eliminated,
        );
        scratch.k = k.clone();
        scratch.rhs = rhs.clone();
        scratch.x = vec![0.0; n];
        scratch.skipped = vec![false; n];
        eliminate_island(&mut scratch, plan.island(0, joints.len(), &ranges), n);
        let want = solve(k.clone(), rhs.clone());
        let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        for (i, (x, w)) in scratch.x.iter().zip(&want).enumerate() {
            assert!(
                (x - w).abs() <= 1e-8 * scale,
                "case {case} row {i}: {x} against {w}"
            );
        }
        for i in 0..n {
            let kx: f64 = (0..n).map(|j| k[i * n + j] * scratch.x[j]).sum();
            assert!(
                (kx - rhs[i]).abs() <= 1e-8 * scale,
                "case {case} row {i}: K·x {kx}, rhs {}",
                rhs[i]
            );
        }
    }
}

/// A joint whose two rows reach one direction of motion between them (a hinge's
/// alignment rows on bodies that may turn about one axis only): row 1 along it, row 0
/// along a locked axis and by s = 3·10⁻⁴ along it, K = w·[[s², s], [s, 1]] regularised,
/// with an error e₀ on row 0 that no motion answers. Whichever row comes first, the
/// motion the solve asks for, w·(s·x₀ + x₁), answers row 1's e₁ up to e₀ (the
/// least-squares answer is (s·e₀ + e₁)/(1 + s²)); solving row 0 first, or solving it
/// with what the regularisation leaves of it, asks for about e₀/s = 3.3 instead.
#[test]
fn a_rank_one_joint_answers_the_row_that_moves() {
    let (s, w, e0, e1) = (3.0e-4f64, 2.0e4f64, 1.0e-3f64, 0.1f64);
    for swap in [false, true] {
        let (a, b) = if swap { (1, 0) } else { (0, 1) };
        let mut coefficient = [0.0; 2];
        coefficient[a] = s;
        coefficient[b] = 1.0;
        let mut rhs = [0.0; 2];
        rhs[a] = e0;
        rhs[b] = e1;
        let mut k: Vec<f64> = (0..4)
            .map(|i| w * coefficient[i / 2] * coefficient[i % 2])
            .collect();
        for i in 0..2 {
            k[i * 2 + i] *= 1.0 + BLOCK_REGULARIZATION;
        }
        let mut scratch = BlockScratch::default();
        let mut plan = BlockPlan::default();
        let (mut adjacency, mut degree, mut eliminated) = (Vec::new(), Vec::new(), Vec::new());
        order_island(
            0,
            &[2],
            &[(1, 0)],
            &mut plan,
            &mut adjacency,
            &mut degree,
            &mut eliminated,
        );
        let ranges = vec![(0, 2)];
        // The probe: mobility LOCK_PROBE·w along the locked axis, which row 0 reaches.
        let mut probe = k.clone();
        probe[a * 2 + a] += LOCK_PROBE * w * (1.0 + BLOCK_REGULARIZATION);
        scratch.probe = probe;
        scratch.k = k;
        scratch.rhs = rhs.to_vec();
        scratch.x = vec![0.0; 2];
        scratch.skipped = vec![false; 2];
        eliminate_island(&mut scratch, plan.island(0, 1, &ranges), 2);
        let motion = w * (coefficient[0] * scratch.x[0] + coefficient[1] * scratch.x[1]);
        assert!(
            (motion - e1).abs() <= e0,
            "rows swapped {swap}: motion {motion}, x {:?}",
            scratch.x
        );
    }
}

/// A 30 mg body (m⁻¹ 3·10⁷ 1/kg on x and z, its y locked; it turns about x only, I⁻¹
/// 10¹⁰) jointed to a 0.2 kg one (m⁻¹ 5, I⁻¹ 50), and to the world.
fn light_and_heavy() -> (Vec<SolverBody>, Vec3, Vec3) {
    let body = |inv_mass: f32, inv_inertia: Mat3| SolverBody {
        inv_mass,
        inv_inertia,
        ..SolverBody::STATIC
    };
    let light = body(3.0e7, Mat3::from_diagonal(Vec3::new(1.0e10, 0.0, 0.0)));
    let heavy = body(5.0, Mat3::from_diagonal(Vec3::splat(50.0)));
    let bodies = vec![SolverBody::STATIC, light, heavy];
    (bodies, Vec3::new(3.0e7, 0.0, 3.0e7), Vec3::splat(5.0))
}

fn row(a: u32, b: u32, inv_mass: (Vec3, Vec3), j: [Vec3; 4]) -> Row {
    Row {
        joint: 0,
        slot: Slot::Linear(1),
        a,
        b,
        linear_a: j[0],
        angular_a: j[1],
        linear_b: j[2],
        angular_b: j[3],
        inv_mass_a: inv_mass.0,
        inv_mass_b: inv_mass.1,
        locked: true,
        error: 0.0,
        one_sided: false,
    }
}

/// The vertical row of a ball joint between the light body (its arm along x, so the
/// row turns it about z, which it may not) and the heavy one: the light body sees it
/// along its locks only, the heavy one moves along it freely (K_ii = 5 of the heavy
/// body, 10⁻⁸ of the light body's free mobility 4·10⁸): a real row, kept. The same row
/// to the world sees locked axes only and is left out.
#[test]
fn a_row_is_along_locks_only_when_every_body_sees_it_so() {
    let (bodies, light, heavy) = light_and_heavy();
    let arm = Vec3::new(0.2, 0.0, 0.0);
    let up = Vec3::Y;
    let shared = row(1, 2, (light, heavy), [-up, -arm.cross(up), up, Vec3::ZERO]);
    assert!(!shared.along_locks_only(&bodies));
    let to_world = row(
        1,
        0,
        (light, Vec3::ZERO),
        [-up, -arm.cross(up), Vec3::ZERO, Vec3::ZERO],
    );
    assert!(to_world.along_locks_only(&bodies));
}

/// The lock probe's mobility for the light body is its heavy partner's (5 and 50, not
/// 3·10⁷ and 10¹⁰); for a body whose only partner is the world, its own; for the heavy
/// body, its own (smaller than the light partner's).
#[test]
fn the_lock_probe_takes_the_smaller_of_a_body_and_its_partners_mobility() {
    let (bodies, light, heavy) = light_and_heavy();
    let j = [Vec3::X, Vec3::Z, -Vec3::X, Vec3::ZERO];
    let rows = [
        row(1, 2, (light, heavy), j),
        row(1, 0, (light, Vec3::ZERO), j),
    ];
    let (mut partners, mut scales) = (Vec::new(), Vec::new());
    probe_scales(&rows, &bodies, &mut partners, &mut scales);
    assert_eq!(scales[0], [(5.0, 50.0), (5.0, 50.0)]);
    assert_eq!(scales[1], [(5.0, 50.0), (0.0, 0.0)]);
    let alone = [
        row(2, 0, (heavy, Vec3::ZERO), j),
        row(1, 0, (light, Vec3::ZERO), j),
    ];
    probe_scales(&alone, &bodies, &mut partners, &mut scales);
    assert_eq!(scales[0][0], (5.0, 50.0));
    assert_eq!(scales[1][0], (3.0e7, 1.0e10));
}
