//! Generators: patterns (stacks, pyramids, grids, joint grids, dominoes) expanded into plain
//! bodies named `kind[i]` and the joints between them, so the rest of the loader sees only
//! bodies and joints.

use super::build::{non_negative, shape};
use super::schema::*;

/// The name prefix of a generator kind.
fn prefix(g: &Generator) -> &'static str {
    match g {
        Generator::Stack { .. } => "stack",
        Generator::Pyramid { .. } => "pyramid",
        Generator::Grid { .. } => "grid",
        Generator::JointGrid { .. } => "joint_grid",
        Generator::Ragdolls { .. } => "ragdoll",
        Generator::Dominoes { .. } => "dominoes",
    }
}

/// How many bodies a generator makes (u64: counts may be absurd in a bad file).
fn count(g: &Generator) -> u64 {
    match g {
        Generator::Stack { count, .. } | Generator::Dominoes { count, .. } => *count as u64,
        Generator::Pyramid { base, .. } => (*base as u64).saturating_mul(*base as u64 + 1) / 2,
        Generator::Grid { counts, limit, .. } => {
            let all = (counts.0 as u64)
                .saturating_mul(counts.1 as u64)
                .saturating_mul(counts.2 as u64);
            limit.map_or(all, |l| all.min(l as u64))
        }
        Generator::JointGrid { columns, rows, .. } => {
            (*columns as u64).saturating_mul(*rows as u64)
        }
        Generator::Ragdolls { counts, .. } => (counts.0 as u64)
            .saturating_mul(counts.1 as u64)
            .saturating_mul(counts.2 as u64)
            .saturating_mul(RAGDOLL_PARTS.len() as u64),
    }
}

/// A dynamic body with one collider.
fn one_body(
    name: String,
    shape: ShapeDesc,
    position: V3,
    material: &Option<String>,
    color: Option<Color>,
) -> BodyDesc {
    let mut collider = ColliderDesc::new(shape);
    collider.material = material.clone();
    BodyDesc {
        name: Some(name),
        position,
        color,
        colliders: vec![collider],
        ..BodyDesc::default()
    }
}

/// Appends the bodies of every generator to `out` as (label, body), and the joints they make
/// to `joints`. Fails if the total would pass `max_bodies` or a generator's parameters are
/// invalid.
pub fn expand(
    generators: &[Generator],
    out: &mut Vec<(String, BodyDesc)>,
    joints: &mut Vec<JointDesc>,
    max_bodies: usize,
) -> Result<(), String> {
    let mut used = std::collections::BTreeMap::<&str, u32>::new();
    for (gi, g) in generators.iter().enumerate() {
        let n = count(g);
        if (out.len() as u64).saturating_add(n) > max_bodies as u64 {
            return Err(format!(
                "generators[{gi}] ({}) would make {n} bodies; a scene may hold at most {max_bodies}",
                prefix(g)
            ));
        }
        // The second pyramid is "pyramid2[i]", and so on, so generated names stay unique.
        let seen = used.entry(prefix(g)).or_insert(0);
        *seen += 1;
        let base = if *seen == 1 {
            prefix(g).to_string()
        } else {
            format!("{}{}", prefix(g), seen)
        };
        let start = out.len();
        expand_one(g, &base, out, joints)
            .map_err(|e| format!("generators[{gi}] ({}): {e}", prefix(g)))?;
        for (label, body) in &mut out[start..] {
            *label = body.name.clone().unwrap_or_default();
        }
    }
    Ok(())
}

/// Expands one generator.
fn expand_one(
    g: &Generator,
    base: &str,
    out: &mut Vec<(String, BodyDesc)>,
    joints: &mut Vec<JointDesc>,
) -> Result<(), String> {
    let mut push = |body: BodyDesc| out.push((String::new(), body));
    match g {
        Generator::Stack {
            count,
            shape: s,
            origin,
            gap,
            material,
            color,
        } => {
            let bounds = shape(s)?.local_aabb();
            let height = bounds.max.y - bounds.min.y;
            let gap = non_negative("gap", *gap)?;
            let mut y = origin.1;
            for i in 0..*count as usize {
                let position = (origin.0, y - bounds.min.y, origin.2);
                push(one_body(
                    format!("{base}[{i}]"),
                    s.clone(),
                    position,
                    material,
                    *color,
                ));
                y += height + gap;
            }
        }
        Generator::Pyramid {
            base: rows,
            half_extent,
            origin,
            gap,
            material,
            color,
        } => {
            crate::physics::shape::check_size("half_extent", *half_extent)?;
            let gap = non_negative("gap", *gap)?;
            let e = *half_extent;
            let step = 2.0 * e + gap;
            let mut i = 0;
            for row in 0..*rows as usize {
                let n = *rows as usize - row;
                for k in 0..n {
                    let x = origin.0 + (k as f32 - (n as f32 - 1.0) / 2.0) * step;
                    let y = origin.1 + e + row as f32 * 2.0 * e;
                    let cube = ShapeDesc::Cuboid {
                        half_extents: (e, e, e),
                    };
                    push(one_body(
                        format!("{base}[{i}]"),
                        cube,
                        (x, y, origin.2),
                        material,
                        *color,
                    ));
                    i += 1;
                }
            }
        }
        Generator::Grid {
            counts,
            spacing,
            shape: s,
            origin,
            kind,
            material,
            color,
            limit: _,
            jitter,
            seed,
        } => {
            let size = shape(s)?.local_aabb().half_extents() * 2.0;
            for (name, j) in [("x", jitter.0), ("y", jitter.1), ("z", jitter.2)] {
                if !(j.is_finite() && j >= 0.0) {
                    return Err(format!("jitter {name} must be 0 or more, got {j}"));
                }
            }
            // Bodies that start inside each other explode apart, and thousands at one point
            // cost minutes per step: neighbours must clear each other even when jittered.
            let axes = [
                ("x", counts.0, spacing.0, jitter.0, size.x),
                ("y", counts.1, spacing.1, jitter.1, size.y),
                ("z", counts.2, spacing.2, jitter.2, size.z),
            ];
            for (axis, n, step, j, width) in axes {
                crate::scene::build::finite(&format!("spacing.{axis}"), step)?;
                if n > 1 && step.abs() < width + 2.0 * j {
                    return Err(format!(
                        "spacing.{axis} is {step} m but the shape is {width} m wide along {axis} \
                         (plus twice the jitter, {j} m): the bodies would overlap"
                    ));
                }
            }
            let total = count(g) as usize;
            let mut random = SplitMix64(*seed);
            let mut i = 0;
            'grid: for y in 0..counts.1 {
                for z in 0..counts.2 {
                    for x in 0..counts.0 {
                        if i == total {
                            break 'grid;
                        }
                        // Always three draws per body, so a body's offset depends only on
                        // the seed and its index.
                        let offset = (
                            random.symmetric(jitter.0),
                            random.symmetric(jitter.1),
                            random.symmetric(jitter.2),
                        );
                        let position = (
                            origin.0 + x as f32 * spacing.0 + offset.0,
                            origin.1 + y as f32 * spacing.1 + offset.1,
                            origin.2 + z as f32 * spacing.2 + offset.2,
                        );
                        let mut body = one_body(
                            format!("{base}[{i}]"),
                            s.clone(),
                            position,
                            material,
                            *color,
                        );
                        body.kind = *kind;
                        push(body);
                        i += 1;
                    }
                }
            }
        }
        Generator::JointGrid {
            columns,
            rows,
            radius,
            spacing,
            origin,
            material,
            color,
        } => {
            crate::physics::shape::check_size("radius", *radius)?;
            crate::scene::build::finite("spacing", *spacing)?;
            if *spacing <= 0.0 {
                return Err(format!("spacing must be more than 0, got {spacing}"));
            }
            let name = |row: u32, column: u32| format!("{base}[{}]", row * columns + column);
            let center = |row: u32, column: u32| {
                (
                    origin.0 + column as f32 * spacing,
                    origin.1 - row as f32 * spacing,
                    origin.2,
                )
            };
            let ball = |a: String, b: String, anchor: V3| JointDesc::Spherical {
                a,
                b: Some(b),
                anchor,
                cone: None,
                cone_axis: None,
                break_force: None,
                collide: false,
                frames: None,
            };
            for row in 0..*rows {
                for column in 0..*columns {
                    let mut body = one_body(
                        name(row, column),
                        ShapeDesc::Sphere { radius: *radius },
                        center(row, column),
                        material,
                        *color,
                    );
                    if row == 0 {
                        body.kind = Kind::Static;
                    }
                    push(body);
                    let (x, y, z) = center(row, column);
                    if row > 0 {
                        let anchor = (x, y + 0.5 * spacing, z);
                        joints.push(ball(name(row, column), name(row - 1, column), anchor));
                    }
                    // The static top row needs no joints along it.
                    if column > 0 && row > 0 {
                        let anchor = (x - 0.5 * spacing, y, z);
                        joints.push(ball(name(row, column), name(row, column - 1), anchor));
                    }
                }
            }
        }
        Generator::Ragdolls {
            counts,
            spacing,
            origin,
            material,
            color,
        } => {
            let (sx, sy, sz) = *spacing;
            for (field, value, fits) in [
                ("spacing.x", sx, counts.0 <= 1 || sx >= RAGDOLL_ACROSS),
                ("spacing.y", sy, counts.1 <= 1 || sy >= RAGDOLL_HEIGHT),
                ("spacing.z", sz, counts.2 <= 1 || sz >= RAGDOLL_ACROSS),
            ] {
                crate::scene::build::finite(field, value)?;
                if !fits {
                    let least = if field == "spacing.y" {
                        RAGDOLL_HEIGHT
                    } else {
                        RAGDOLL_ACROSS
                    };
                    return Err(format!(
                        "{field} is {value} m but neighbouring ragdolls need {least} m: they would overlap"
                    ));
                }
            }
            let mut index = 0;
            for iy in 0..counts.1 {
                for iz in 0..counts.2 {
                    for ix in 0..counts.0 {
                        let feet = (
                            origin.0 + ix as f32 * sx,
                            origin.1 + iy as f32 * sy,
                            origin.2 + iz as f32 * sz,
                        );
                        let turned = (ix + iy + iz) % 2 == 1;
                        let first = index;
                        for part in &RAGDOLL_PARTS {
                            push(ragdoll_part(
                                format!("{base}[{index}]"),
                                part,
                                feet,
                                turned,
                                material,
                                *color,
                            ));
                            index += 1;
                        }
                        let name = |part: usize| format!("{base}[{}]", first + part);
                        joints.extend(
                            RAGDOLL_JOINTS
                                .iter()
                                .map(|joint| ragdoll_joint(joint, &name, feet, turned)),
                        );
                    }
                }
            }
        }
        Generator::Dominoes {
            count,
            half_extents,
            spacing,
            origin,
            arc_deg,
            push: tip,
            material,
            color,
        } => {
            let cube = ShapeDesc::Cuboid {
                half_extents: *half_extents,
            };
            shape(&cube)?;
            crate::scene::build::finite("spacing", *spacing)?;
            if *count > 1 && spacing.abs() < 2.0 * half_extents.0 {
                return Err(format!(
                    "spacing is {spacing} m but each domino is {} m thick: they would overlap",
                    2.0 * half_extents.0
                ));
            }
            // Along an arc of total turn A over length L = (n − 1)·spacing: radius R = L / A;
            // at arc length s the heading has turned φ = s / R (towards −z, a turn about +y).
            let n = *count as usize;
            let turn = arc_deg.to_radians();
            let length = (n.saturating_sub(1)) as f32 * spacing;
            for i in 0..n {
                let s = i as f32 * spacing;
                let (dx, dz, phi) = if turn.abs() < 1e-6 || length <= 0.0 {
                    (s, 0.0, 0.0)
                } else {
                    let r = length / turn;
                    let phi = s / r;
                    (r * phi.sin(), -r * (1.0 - phi.cos()), phi)
                };
                let mut body = one_body(
                    format!("{base}[{i}]"),
                    cube.clone(),
                    (origin.0 + dx, origin.1 + half_extents.1, origin.2 + dz),
                    material,
                    *color,
                );
                body.rotation = Rotation::Euler(0.0, phi.to_degrees(), 0.0);
                if i == 0 && *tip != 0.0 {
                    // Tip forward: spin about the axis that tilts the top along the heading.
                    body.angular_velocity = (-tip * phi.sin(), 0.0, -tip * phi.cos());
                }
                push(body);
            }
        }
    }
    Ok(())
}

/// One body of a ragdoll, standing: its centre relative to the middle of the feet (m), its
/// shape, its display colour, and whether it lies along x (the arms: a capsule turned a
/// quarter turn about z).
struct RagdollPart {
    center: (f32, f32, f32),
    shape: ShapeDesc,
    color: Color,
    along_x: bool,
}

/// The clothes' and the skin's colours.
const LEGS: Color = (0.25, 0.3, 0.45);
const SHIRT: Color = (0.3, 0.5, 0.8);
const SKIN: Color = (0.85, 0.68, 0.55);

const fn capsule(half_height: f32, radius: f32) -> ShapeDesc {
    ShapeDesc::Capsule {
        half_height,
        radius,
    }
}

/// A [`RagdollPart`] (a const constructor, so the table reads one part a line).
const fn part(
    center: (f32, f32, f32),
    shape: ShapeDesc,
    color: Color,
    along_x: bool,
) -> RagdollPart {
    RagdollPart {
        center,
        shape,
        color,
        along_x,
    }
}

/// The parts, as `scenes/ragdoll.ron` builds them (its pelvis 1 m above the feet): pelvis,
/// torso, head, then thigh, shin, upper arm and forearm on the left (−x) and on the right.
const RAGDOLL_PARTS: [RagdollPart; 11] = [
    part(
        (0.0, 1.0, 0.0),
        ShapeDesc::Cuboid {
            half_extents: (0.16, 0.09, 0.1),
        },
        LEGS,
        false,
    ),
    part((0.0, 1.39, 0.0), capsule(0.14, 0.16), SHIRT, false),
    part(
        (0.0, 1.83, 0.0),
        ShapeDesc::Sphere { radius: 0.11 },
        SKIN,
        false,
    ),
    part((-0.1, 0.685, 0.0), capsule(0.16, 0.075), LEGS, false),
    part((-0.1, 0.22, 0.0), capsule(0.16, 0.06), LEGS, false),
    part((-0.38, 1.59, 0.0), capsule(0.11, 0.055), SHIRT, true),
    part((-0.7, 1.59, 0.0), capsule(0.1, 0.05), SKIN, true),
    part((0.1, 0.685, 0.0), capsule(0.16, 0.075), LEGS, false),
    part((0.1, 0.22, 0.0), capsule(0.16, 0.06), LEGS, false),
    part((0.38, 1.59, 0.0), capsule(0.11, 0.055), SHIRT, true),
    part((0.7, 1.59, 0.0), capsule(0.1, 0.05), SKIN, true),
];

/// How far apart two neighbouring ragdolls must stand, m: across, one's arms (0.85 m from
/// its middle) and the other's torso, turned (0.16 m); up, the feet to the top of the head.
const RAGDOLL_ACROSS: f32 = 1.01;
const RAGDOLL_HEIGHT: f32 = 1.94;

/// One joint of a ragdoll: parts `a` and `b` (indices of [`RAGDOLL_PARTS`]), the anchor
/// relative to the middle of the feet (m), and the kind: a ball joint's cone (degrees), or
/// a hinge's axis and limits (degrees).
struct RagdollJoint {
    a: usize,
    b: usize,
    anchor: (f32, f32, f32),
    kind: RagdollJointKind,
}

enum RagdollJointKind {
    Ball {
        cone: f32,
    },
    Hinge {
        axis: (f32, f32, f32),
        limits: (f32, f32),
    },
}

const fn ball(a: usize, b: usize, anchor: (f32, f32, f32), cone: f32) -> RagdollJoint {
    RagdollJoint {
        a,
        b,
        anchor,
        kind: RagdollJointKind::Ball { cone },
    }
}

const fn hinge(
    a: usize,
    b: usize,
    anchor: (f32, f32, f32),
    axis: (f32, f32, f32),
    limits: (f32, f32),
) -> RagdollJoint {
    RagdollJoint {
        a,
        b,
        anchor,
        kind: RagdollJointKind::Hinge { axis, limits },
    }
}

/// The joints, as `scenes/ragdoll.ron` joins its parts: the waist, neck, hips and
/// shoulders, knees and elbows (a hinge's limits about its axis, from where it starts).
const RAGDOLL_JOINTS: [RagdollJoint; 10] = [
    hinge(1, 0, (0.0, 1.09, 0.0), (1.0, 0.0, 0.0), (-25.0, 60.0)),
    ball(2, 1, (0.0, 1.72, 0.0), 40.0),
    ball(3, 0, (-0.1, 0.92, 0.0), 75.0),
    hinge(4, 3, (-0.1, 0.445, 0.0), (1.0, 0.0, 0.0), (0.0, 140.0)),
    ball(5, 1, (-0.215, 1.59, 0.0), 95.0),
    hinge(6, 5, (-0.55, 1.59, 0.0), (0.0, 1.0, 0.0), (0.0, 140.0)),
    ball(7, 0, (0.1, 0.92, 0.0), 75.0),
    hinge(8, 7, (0.1, 0.445, 0.0), (1.0, 0.0, 0.0), (0.0, 140.0)),
    ball(9, 1, (0.215, 1.59, 0.0), 95.0),
    hinge(10, 9, (0.55, 1.59, 0.0), (0.0, 1.0, 0.0), (-140.0, 0.0)),
];

/// `v` turned a quarter turn about +y when `turned` (x → −z, z → x).
fn quarter_turn(v: (f32, f32, f32), turned: bool) -> (f32, f32, f32) {
    if turned {
        (v.2, v.1, -v.0)
    } else {
        v
    }
}

/// `offset` from the middle of the feet at `feet`, turned with the ragdoll.
fn placed(feet: V3, offset: (f32, f32, f32), turned: bool) -> V3 {
    let (x, y, z) = quarter_turn(offset, turned);
    (feet.0 + x, feet.1 + y, feet.2 + z)
}

/// A ragdoll's body for `part`, standing at `feet`.
fn ragdoll_part(
    name: String,
    part: &RagdollPart,
    feet: V3,
    turned: bool,
    material: &Option<String>,
    color: Option<Color>,
) -> BodyDesc {
    let mut body = one_body(
        name,
        part.shape.clone(),
        placed(feet, part.center, turned),
        material,
        Some(color.unwrap_or(part.color)),
    );
    if material.is_none() {
        body.colliders[0].density = Some(1000.0);
    }
    let yaw = if turned { 90.0 } else { 0.0 };
    let roll = if part.along_x { 90.0 } else { 0.0 };
    // About x, then y, then z (intrinsic): the yaw of the whole ragdoll, then the arm's
    // quarter turn about its own z.
    body.rotation = Rotation::Euler(0.0, yaw, roll);
    body
}

/// A ragdoll's `joint` between the bodies `name(part)`, for the ragdoll standing at `feet`.
fn ragdoll_joint(
    joint: &RagdollJoint,
    name: &dyn Fn(usize) -> String,
    feet: V3,
    turned: bool,
) -> JointDesc {
    let (a, b, anchor) = (
        name(joint.a),
        Some(name(joint.b)),
        placed(feet, joint.anchor, turned),
    );
    match joint.kind {
        RagdollJointKind::Ball { cone } => JointDesc::Spherical {
            a,
            b,
            anchor,
            cone: Some(cone),
            cone_axis: None,
            break_force: None,
            collide: false,
            frames: None,
        },
        RagdollJointKind::Hinge { axis, limits } => JointDesc::Revolute {
            a,
            b,
            anchor,
            axis: quarter_turn(axis, turned),
            limits: Some(limits),
            motor: None,
            break_force: None,
            collide: false,
            frames: None,
        },
    }
}

/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny generator whose output is fixed by the
/// seed on every platform, so a jittered grid is the same scene everywhere.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [−half, half] (24 random bits, exact in f32).
    fn symmetric(&mut self, half: f32) -> f32 {
        let unit = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        (2.0 * unit - 1.0) * half
    }
}
