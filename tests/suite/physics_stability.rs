//! Solver stability with sleeping off (sleeping hides instability): tall stacks, a wall
//! pyramid, heavy bodies on light ones, and a 1 cm cube.

use crate::common;

use common::{ground, run, DT};
use impulse::physics::{BodyDef, BodyHandle, ColliderDef, Quat, Shape, Vec3, World, WorldSettings};

fn world(sleeping: bool) -> World {
    World::new(WorldSettings {
        enable_sleeping: sleeping,
        ..WorldSettings::default()
    })
}

/// The plane y = 0, friction 0.6.
fn ground_plane(world: &mut World) {
    ground(world, 0.6, 0.0);
}

/// A static 200 m × 1 m × 200 m box whose top face is y = 0.
fn ground_box(world: &mut World) {
    let g = world.create_body(BodyDef::static_body(Vec3::new(0.0, -0.5, 0.0)));
    let slab = Shape::cuboid(Vec3::new(100.0, 0.5, 100.0));
    world
        .add_collider(g, ColliderDef::new(slab).with_friction(0.6))
        .unwrap();
}

fn cube(world: &mut World, center: Vec3, half: f32, density: f32) -> BodyHandle {
    let b = world.create_body(BodyDef::dynamic(center));
    world
        .add_collider(
            b,
            ColliderDef::new(Shape::cuboid(Vec3::splat(half)))
                .with_friction(0.6)
                .with_density(density),
        )
        .unwrap();
    b
}

fn position(world: &World, b: BodyHandle) -> Vec3 {
    world.body(b).unwrap().position()
}

fn horizontal(v: Vec3) -> f32 {
    v.x.hypot(v.z)
}

/// 20 unit cubes, sleeping off, for 60 s: a perfectly aligned stack has no reason to move
/// sideways, so any drift is the solver's. Bottom < 1 mm after 1 s, top < 1 cm after 60 s.
fn twenty_stack_holds(ground: fn(&mut World)) {
    let mut w = world(false);
    ground(&mut w);
    let cubes: Vec<_> = (0..20)
        .map(|i| cube(&mut w, Vec3::new(0.0, 0.5 + i as f32, 0.0), 0.5, 1.0))
        .collect();
    let (bottom, top) = (cubes[0], cubes[19]);
    let (b0, t0) = (position(&w, bottom), position(&w, top));
    run(&mut w, 60);
    let slid = horizontal(position(&w, bottom) - b0);
    assert!(slid < 1.0e-3, "bottom cube slid {slid} m in 1 s");
    let mut worst = 0.0f32;
    for _ in 0..59 {
        run(&mut w, 60);
        worst = worst.max(horizontal(position(&w, top) - t0));
    }
    assert!(worst < 0.01, "top cube drifted {worst} m within 60 s");
    // And it still stands: the top sinks only by the contacts' give. Each of the 19
    // cube-on-cube contacts carries the weight above it on springs of ω²/K per corner, so
    // the sink goes as 1/f²: 0.106 m measured at 30 Hz gives 0.106·(30/45)² ≈ 0.047 m at
    // the default 45 Hz (the ground contact, 60 Hz either way, adds little).
    let sink = t0.y - position(&w, top).y;
    assert!((0.0..0.06).contains(&sink), "top sank {sink} m");
}

#[test]
fn a_stack_of_twenty_holds_for_a_minute_on_a_plane() {
    twenty_stack_holds(ground_plane);
}

#[test]
fn a_stack_of_twenty_holds_for_a_minute_on_a_box() {
    twenty_stack_holds(ground_box);
}

#[test]
fn a_wall_pyramid_of_forty_sinks_without_tipping() {
    // 820 unit cubes, one deep, 10 s awake: the top moves at most 0.11 m (Rapier 0.36 on
    // the same scene: 0.11 m, all of it sinking) and no cube leaves the wall's plane by 1 cm.
    let mut w = world(false);
    ground_box(&mut w);
    let mut cubes = Vec::new();
    for row in 0..40 {
        let n = 40 - row;
        for i in 0..n {
            let x = i as f32 - (n as f32 - 1.0) / 2.0;
            cubes.push(cube(&mut w, Vec3::new(x, 0.5 + row as f32, 0.0), 0.5, 1.0));
        }
    }
    let starts: Vec<Vec3> = cubes.iter().map(|&c| position(&w, c)).collect();
    run(&mut w, 600);
    let top = position(&w, *cubes.last().unwrap()) - *starts.last().unwrap();
    assert!(top.length() <= 0.11, "top moved {top}");
    for (&c, start) in cubes.iter().zip(&starts) {
        let dz = (position(&w, c).z - start.z).abs();
        assert!(dz < 0.01, "a cube left the wall's plane by {dz} m");
    }
}

/// A 16-cube column as the benchmark piles leave them: each unit cube offset from the
/// column's axis by up to 0.2 m in x and z (seeded), and, as after a landing, every cube
/// tilted 3° about one horizontal axis, with 4 cm gaps to settle through.
fn offset_column(seed: u64) -> Vec<Vec3> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut offset = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.4
    };
    (0..16)
        .map(|i| Vec3::new(offset(), 0.5 + 1.04 * i as f32, offset()))
        .collect()
}

/// How far inside its support the column stands, m: at every interface, the centre of mass
/// of the cubes above (the mean of their centres, equal masses) must lie inside the overlap
/// of the two touching faces, [max(x₁, x₂) − ½, min(x₁, x₂) + ½] in x and the same in z; the
/// result is the smallest distance from such a centre to its overlap's edge.
fn static_margin(column: &[Vec3]) -> f32 {
    let mut margin = f32::MAX;
    for j in 0..column.len() - 1 {
        let (a, b) = (column[j], column[j + 1]);
        let above = &column[j + 1..];
        let com = above.iter().copied().sum::<Vec3>() / above.len() as f32;
        margin = margin
            .min(com.x - (a.x.max(b.x) - 0.5))
            .min(a.x.min(b.x) + 0.5 - com.x)
            .min(com.z - (a.z.max(b.z) - 0.5))
            .min(a.z.min(b.z) + 0.5 - com.z);
    }
    margin
}

#[test]
fn columns_of_offset_tilted_cubes_stand_and_hold_still() {
    // Four such columns that statics says stand (each centre of mass at least 0.1 m inside
    // its support), sleeping off, two minutes: every top cube is still on its column (above
    // 15 m; 16 cubes reach 15.5 m) and moves less than 1 cm in the second minute. With the
    // anchoring reach capped at 2 cm (`ANCHOR_REACH_FRACTION` instead) column 0 falls within
    // the first minute, and none of 16 columns built this way stands.
    let mut w = world(false);
    ground_box(&mut w);
    let columns: Vec<Vec<Vec3>> = (1..)
        .map(offset_column)
        .filter(|c| static_margin(c) >= 0.1)
        .take(4)
        .collect();
    let mut tops = Vec::new();
    for (k, column) in columns.iter().enumerate() {
        let tilt = Quat::from_axis_angle(
            Vec3::new((k as f32).cos(), 0.0, (k as f32).sin()),
            3.0f32.to_radians(),
        );
        let origin = Vec3::new(6.0 * k as f32, 0.0, 0.0);
        let cubes: Vec<_> = column
            .iter()
            .map(|&p| {
                let c = cube(&mut w, origin + p, 0.5, 1.0);
                w.set_rotation(c, tilt).unwrap();
                c
            })
            .collect();
        tops.push(cubes[15]);
    }
    // The columns settle through the gaps, then straighten from their landing tilt over
    // the first minute; over the second they must hold still.
    run(&mut w, 3600);
    let settled: Vec<Vec3> = tops.iter().map(|&t| position(&w, t)).collect();
    run(&mut w, 3600);
    for (k, (&top, &start)) in tops.iter().zip(&settled).enumerate() {
        let p = position(&w, top);
        assert!(p.y > 15.0, "column {k}: top cube fell to {p}");
        let drift = horizontal(p - start);
        assert!(
            drift < 0.01,
            "column {k}: top cube drifted {drift} m in the second minute"
        );
    }
}

/// A `ratio`:1 pair of unit cubes on a plane, 10 s: how far the heavy one moves and the
/// most the light one sinks into the ground.
fn heavy_on_light(ratio: f32) -> (f32, f32) {
    let mut w = world(false);
    ground_plane(&mut w);
    let light = cube(&mut w, Vec3::new(0.0, 0.5, 0.0), 0.5, 1.0);
    let heavy = cube(&mut w, Vec3::new(0.0, 1.5, 0.0), 0.5, ratio);
    let h0 = position(&w, heavy);
    let mut sink = 0.0f32;
    for _ in 0..600 {
        w.step(DT);
        sink = sink.max(0.5 - position(&w, light).y);
    }
    ((position(&w, heavy) - h0).length(), sink)
}

#[test]
fn a_hundred_kilogram_cube_stands_on_a_one_kilogram_cube() {
    // Rapier 0.36: the heavy cube moves 3.5 cm; here < 3 cm.
    let (moved, _) = heavy_on_light(100.0);
    assert!(moved < 0.03, "heavy cube moved {moved} m");
}

#[test]
fn a_tonne_stands_on_a_one_kilogram_cube() {
    // Before: the light cube was squeezed 36 cm into the ground and out within 0.5 s.
    let (moved, sink) = heavy_on_light(1000.0);
    assert!(moved < 0.05, "heavy cube moved {moved} m");
    assert!(sink < 0.01, "light cube went {sink} m into the ground");
}

/// A 1 cm cube dropped from 5 cm: it comes to rest (|v| < 1 cm/s, |ω| < 0.5 rad/s) within
/// 10 s, sinks less than 1 mm, and falls asleep when sleeping is on.
fn tiny_cube_rests(sleeping: bool) {
    let mut w = world(sleeping);
    ground_plane(&mut w);
    let c = cube(&mut w, Vec3::new(0.0, 0.05, 0.0), 0.005, 1.0);
    let mut sink = 0.0f32;
    for _ in 0..600 {
        w.step(DT);
        sink = sink.max(0.005 - position(&w, c).y);
    }
    let b = w.body(c).unwrap();
    assert!(
        b.linear_velocity().length() < 0.01,
        "v = {}",
        b.linear_velocity()
    );
    assert!(
        b.angular_velocity().length() < 0.5,
        "ω = {}",
        b.angular_velocity()
    );
    assert!(sink < 1.0e-3, "sank {sink} m");
    assert_eq!(!b.is_awake(), sleeping, "asleep");
}

#[test]
fn a_one_centimetre_cube_comes_to_rest() {
    tiny_cube_rests(false);
}

#[test]
fn a_one_centimetre_cube_falls_asleep() {
    tiny_cube_rests(true);
}

/// Three cubes of half extent `half` stacked on the ground plane and one more dropped
/// beside them spinning at (1, 2, 0.5)/√half rad/s (a turn that scales like a 1 m cube's
/// tumble), run for `seconds`. Returns the top cube's largest sideways drift, how far it
/// sank, and the tumbler's final state; `asleep` is the step everything slept at.
struct SizeRun {
    drift: f32,
    sink: f32,
    tilt: f32,
    speed: f32,
    spin: f32,
    asleep_at: Option<usize>,
}

fn run_at_size(half: f32, sleeping: bool, seconds: usize) -> SizeRun {
    let mut w = world(sleeping);
    ground_plane(&mut w);
    let stack: Vec<_> = (0..3)
        .map(|k| {
            cube(
                &mut w,
                Vec3::new(0.0, half * (1 + 2 * k) as f32, 0.0),
                half,
                1.0,
            )
        })
        .collect();
    let tumbler = cube(&mut w, Vec3::new(60.0 * half, 3.0 * half, 0.0), half, 1.0);
    w.set_angular_velocity(tumbler, Vec3::new(1.0, 2.0, 0.5) / half.sqrt())
        .unwrap();
    let mut drift = 0.0f32;
    let mut asleep_at = None;
    for step in 0..seconds * 60 {
        w.step(DT);
        drift = drift.max(horizontal(position(&w, stack[2])));
        let all_asleep = stack
            .iter()
            .chain([&tumbler])
            .all(|&h| !w.body(h).unwrap().is_awake());
        if all_asleep && asleep_at.is_none() {
            asleep_at = Some(step);
        }
    }
    let t = w.body(tumbler).unwrap();
    // The tumbler rests on a face: one of its axes is vertical again.
    let up = [Vec3::X, Vec3::Y, Vec3::Z]
        .map(|axis| (t.rotation() * axis).y.abs())
        .into_iter()
        .fold(0.0f32, f32::max);
    SizeRun {
        drift,
        sink: 5.0 * half - position(&w, stack[2]).y,
        tilt: up.clamp(0.0, 1.0).acos(),
        speed: t.linear_velocity().length(),
        spin: t.angular_velocity().length(),
        asleep_at,
    }
}

/// How far from its equilibrium a resting body at height `y` may stop, m. A body stops
/// moving once a step's displacement rounds away against its f32 position (under half a
/// position step, ulp(y)/2), and a soft contact creeps towards equilibrium at its slow
/// overdamped rate ω/(2ζ) (ζ ≫ 1): it stops where |error|·rate·dt < ulp/2, so
/// |error| < ulp/(2·rate·dt). The dynamic pairs' frequency is the slower creep of the two,
/// so the bound holds for ground contacts as well. At the 100 m stack's top (y = 250 m,
/// ulp = 15 µm) this is 32 µm, 3 % of the spring depth; at 1 m it is 0.5 nm.
fn resting_resolution(y: f32) -> f32 {
    let s = WorldSettings::default();
    let omega = 2.0 * std::f32::consts::PI * s.contact_hertz;
    let rate = omega / (2.0 * s.contact_damping_ratio);
    (y.next_up() - y) / (2.0 * rate * DT)
}

/// 1 cm and 100 m cubes behave like 1 m ones (sleeping off, a minute): the stack stays
/// aligned (drift < 1e-4 of the size), the tumbler lands flat (tilt < 0.5°) and comes to rest
/// (|v| < 1e-3 sizes/s, |ω| < 1e-3/√half rad/s). Soft contacts sink by a depth set by gravity
/// and the contact frequency alone, not by size (spring depth x = g/ω², the same for any
/// cube), so the stack of 1 cm cubes sinks as far as the 1 m one, within 5 % plus what f32
/// positions can resolve at that height (`resting_resolution`).
#[test]
fn one_centimetre_and_hundred_metre_cubes_rest_like_one_metre_ones() {
    let unit = run_at_size(0.5, false, 60);
    for half in [0.005, 0.5, 50.0] {
        let r = run_at_size(half, false, 60);
        let size = 2.0 * half;
        assert!(r.drift < 1.0e-4 * size, "half {half}: drift {} m", r.drift);
        assert!(
            r.tilt < 0.5f32.to_radians(),
            "half {half}: tilt {} rad",
            r.tilt
        );
        assert!(r.speed < 1.0e-3 * size, "half {half}: v {} m/s", r.speed);
        assert!(
            r.spin < 1.0e-3 / half.sqrt(),
            "half {half}: ω {} rad/s",
            r.spin
        );
        // The three cubes' centres sit at half·(1, 3, 5): each may rest off its equilibrium
        // by its position resolution there (see `resting_resolution`), and the top cube's
        // sink adds all three.
        let resolution: f32 = [1.0, 3.0, 5.0]
            .iter()
            .map(|k| resting_resolution(k * half))
            .sum();
        assert!(
            (r.sink - unit.sink).abs() < 0.05 * unit.sink + resolution,
            "half {half}: sank {} m, the 1 m stack {} m (resolution {resolution} m)",
            r.sink,
            unit.sink
        );
        assert!(r.asleep_at.is_none());
    }
}

/// With sleeping on, the same scenes fall asleep within 20 s at every size (the 100 m tumbler falls for 4.5 s): the sleep
/// thresholds scale (a small body must move less than a quarter of its extent per second, a
/// large one must turn its far corners slower than 5 cm/s).
#[test]
fn one_centimetre_and_hundred_metre_cubes_fall_asleep() {
    for half in [0.005, 0.5, 50.0] {
        let r = run_at_size(half, true, 20);
        assert!(r.asleep_at.is_some(), "half {half}: still awake after 20 s");
        assert!(
            r.drift < 1.0e-4 * 2.0 * half,
            "half {half}: drift {} m",
            r.drift
        );
    }
}

/// Sleep thresholds scale with size, so nothing visibly moving falls asleep: in zero gravity a
/// 100 m cube turning at 0.02 rad/s (its corners move at 0.02·50√3 ≈ 1.7 m/s) and a 1 cm cube
/// gliding at 3 cm/s (3 sizes per second) stay awake for 2 s, while a 1 m cube gliding at
/// 3 cm/s is asleep (it is under 0.05 m/s for more than 0.5 s).
#[test]
fn sleep_thresholds_follow_size() {
    let mut w = world(true);
    w.set_gravity(Vec3::ZERO);
    let huge = cube(&mut w, Vec3::ZERO, 50.0, 1.0);
    w.set_angular_velocity(huge, Vec3::new(0.0, 0.02, 0.0))
        .unwrap();
    let tiny = cube(&mut w, Vec3::new(200.0, 0.0, 0.0), 0.005, 1.0);
    w.set_linear_velocity(tiny, Vec3::new(0.0, 0.0, 0.03))
        .unwrap();
    let unit = cube(&mut w, Vec3::new(-200.0, 0.0, 0.0), 0.5, 1.0);
    w.set_linear_velocity(unit, Vec3::new(0.0, 0.0, 0.03))
        .unwrap();
    run(&mut w, 120);
    assert!(
        w.body(huge).unwrap().is_awake(),
        "the turning 100 m cube slept"
    );
    assert!(
        w.body(tiny).unwrap().is_awake(),
        "the gliding 1 cm cube slept"
    );
    assert!(
        !w.body(unit).unwrap().is_awake(),
        "the slow 1 m cube is awake"
    );
}
