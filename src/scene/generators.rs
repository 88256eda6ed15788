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
