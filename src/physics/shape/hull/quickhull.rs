//! Steps 1 and 2 of building a hull: snapping the points to the grid, then quickhull with
//! exact orientation tests (see the module documentation of `hull`).

use std::collections::{BinaryHeap, HashMap, HashSet};

use glam::DVec3;

use super::HullError;
use crate::physics::constants::{HULL_MIN_THICKNESS_RELATIVE, HULL_TOLERANCE_RELATIVE};
use crate::physics::math::Vec3;

/// Grid steps from the centre of the bounding box to its farthest side. Coordinates stay within
/// ±2³⁰, differences within ±2³¹, so the orientation determinant (three differences multiplied)
/// stays below 3·2⁹⁴ and never overflows `i128`.
const GRID_HALF_STEPS: f64 = (1u64 << 30) as f64;

// ---------------------------------------------------------------------------------------------
// Step 1: the snapped cloud.
// ---------------------------------------------------------------------------------------------

/// The input points prepared for building: snapped to the grid, with the tolerances.
pub(super) struct Cloud {
    /// Grid coordinates as f64 (integers below 2³¹, so exact): all distances are measured here.
    pub(super) points: Vec<DVec3>,
    /// The same coordinates as integers, for exact orientation tests.
    grid: Vec<[i64; 3]>,
    /// Distance under which a point counts as on a plane, in grid steps.
    pub(super) tolerance: f64,
    /// Smallest length, width and thickness a cloud may have, in grid steps.
    min_thickness: f64,
}

impl Cloud {
    /// Snaps the (finite) points. Fails if they all sit at one spot.
    pub(super) fn new(input: &[Vec3]) -> Result<Cloud, HullError> {
        let as_f64: Vec<DVec3> = input.iter().map(|p| p.as_dvec3()).collect();
        let min = as_f64.iter().fold(DVec3::INFINITY, |m, p| m.min(*p));
        let max = as_f64.iter().fold(DVec3::NEG_INFINITY, |m, p| m.max(*p));
        let magnitude = min.abs().max(max.abs()).max_element();
        let size = (max - min).length() + magnitude;
        let half = 0.5 * (max - min).max_element();
        let min_thickness = f64::from(HULL_MIN_THICKNESS_RELATIVE) * size;
        if half <= 0.5 * min_thickness {
            return Err(HullError::Degenerate);
        }
        let center = 0.5 * (min + max);
        let step = half / GRID_HALF_STEPS;
        let grid: Vec<[i64; 3]> = as_f64
            .iter()
            .map(|p| {
                let q = ((*p - center) / step).round();
                [q.x as i64, q.y as i64, q.z as i64]
            })
            .collect();
        let points = grid
            .iter()
            .map(|q| DVec3::new(q[0] as f64, q[1] as f64, q[2] as f64))
            .collect();
        Ok(Cloud {
            points,
            grid,
            tolerance: f64::from(HULL_TOLERANCE_RELATIVE) * size / step,
            min_thickness: min_thickness / step,
        })
    }

    /// Position of point `i` on the grid.
    pub(super) fn at(&self, i: u32) -> DVec3 {
        self.points[i as usize]
    }

    /// Six times the signed volume of the tetrahedron (a, b, c, d), exactly: positive when d is
    /// above the plane of triangle (a, b, c) wound counter-clockwise, zero when coplanar.
    /// det[b − a, c − a, d − a] = ((b − a) × (c − a)) · (d − a), every product in `i128`.
    fn orient(&self, a: u32, b: u32, c: u32, d: u32) -> i128 {
        let [a, b, c, d] = [a, b, c, d].map(|i| self.grid[i as usize]);
        let diff = |p: [i64; 3]| [0, 1, 2].map(|k| i128::from(p[k] - a[k]));
        let (u, v, w) = (diff(b), diff(c), diff(d));
        let cross = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        cross[0] * w[0] + cross[1] * w[1] + cross[2] * w[2]
    }
}

// ---------------------------------------------------------------------------------------------
// Step 2: quickhull.
// ---------------------------------------------------------------------------------------------

/// The closed triangle mesh quickhull produces; triangles wind counter-clockwise from outside.
pub(super) struct TriangleMesh {
    /// Point indices of each triangle.
    pub(super) triangles: Vec<[u32; 3]>,
    /// `neighbors[t][i]`: the triangle across the edge `triangles[t][i] → triangles[t][i + 1]`.
    pub(super) neighbors: Vec<[u32; 3]>,
}

impl TriangleMesh {
    /// Every triangle as its own face loop (the fallback when merging fails).
    pub(super) fn triangle_loops(&self) -> Vec<Vec<u32>> {
        self.triangles.iter().map(|t| t.to_vec()).collect()
    }
}

/// A triangle of the growing hull.
struct Triangle {
    /// Point indices, counter-clockwise seen from outside.
    vertices: [u32; 3],
    /// `neighbors[i]` shares the edge from `vertices[i]` to `vertices[(i + 1) % 3]`.
    neighbors: [u32; 3],
    /// Outward unit normal on the grid (for distances; visibility is decided exactly).
    normal: DVec3,
    /// `normal · x` for the triangle's points.
    offset: f64,
    /// Points more than the tolerance above this triangle (each point belongs to one triangle).
    outside: Vec<u32>,
    /// The farthest of `outside`, with its distance.
    farthest: Option<(u32, f64)>,
    /// False once a new point has replaced it.
    alive: bool,
}

/// Quickhull's working state.
struct Quickhull<'a> {
    cloud: &'a Cloud,
    /// Every triangle ever made (dead ones stay, so indices never move).
    triangles: Vec<Triangle>,
    /// (distance bits, triangle) for each new farthest point; stale entries are skipped when
    /// popped. Non-negative f64s order like their bit patterns.
    queue: BinaryHeap<(u64, u32)>,
}

/// An edge of the horizon: from `start` to `end`, with the hidden triangle beyond it.
#[derive(Clone, Copy)]
struct HorizonEdge {
    start: u32,
    end: u32,
    hidden: u32,
}

/// The exact triangle hull of the points that lie farther than the tolerance outside the hull
/// of the points before them, taken farthest first.
///
/// ```text
/// tetrahedron from extreme points; give each other point to a face it is above
/// while some face has points above it:
///     eye = the farthest such point overall
///     visible = faces the eye is exactly above (a connected patch, found from eye's face)
///     horizon = edges between visible and hidden faces (one loop)
///     replace the visible faces by triangles (horizon edge, eye)
///     give the visible faces' points to the new triangles, or drop them if now inside
/// ```
pub(super) fn quickhull(cloud: &Cloud) -> Result<TriangleMesh, HullError> {
    let simplex = initial_simplex(cloud)?;
    let mut hull = Quickhull::from_simplex(cloud, simplex);
    let all_faces = [0, 1, 2, 3];
    for p in 0..cloud.points.len() as u32 {
        if !simplex.contains(&p) {
            hull.assign(p, &all_faces);
        }
    }
    while let Some((face, eye)) = hull.farthest_outside() {
        hull.add_point(face, eye)?;
    }
    Ok(hull.into_mesh())
}

/// Four points spanning a large tetrahedron: the two farthest apart among the six axis
/// extremes, the point farthest from their line, and the point farthest from their plane. If any
/// of these distances is under the minimum thickness, the cloud is a point, a line or a plane.
fn initial_simplex(cloud: &Cloud) -> Result<[u32; 4], HullError> {
    let p = &cloud.points;
    let mut extremes = [0usize; 6];
    for (i, q) in p.iter().enumerate() {
        for axis in 0..3 {
            if q[axis] < p[extremes[2 * axis]][axis] {
                extremes[2 * axis] = i;
            }
            if q[axis] > p[extremes[2 * axis + 1]][axis] {
                extremes[2 * axis + 1] = i;
            }
        }
    }
    let mut pair = (extremes[0], extremes[1]);
    for &i in &extremes {
        for &j in &extremes {
            if p[i].distance_squared(p[j]) > p[pair.0].distance_squared(p[pair.1]) {
                pair = (i, j);
            }
        }
    }
    let (a, b) = pair;
    let axis = (p[b] - p[a]).normalize_or_zero();
    let from_line = |i: &usize| (p[*i] - p[a]).cross(axis).length();
    let c = (0..p.len()).max_by(|i, j| from_line(i).total_cmp(&from_line(j)));
    let c = c.unwrap_or(a);
    let normal = (p[b] - p[a]).cross(p[c] - p[a]).normalize_or_zero();
    let from_plane = |i: &usize| normal.dot(p[*i] - p[a]).abs();
    let d = (0..p.len()).max_by(|i, j| from_plane(i).total_cmp(&from_plane(j)));
    let d = d.unwrap_or(a);
    let thin = cloud.min_thickness;
    if p[a].distance(p[b]) <= thin || from_line(&c) <= thin || from_plane(&d) <= thin {
        return Err(HullError::Degenerate);
    }
    let simplex = [a, b, c, d].map(|i| i as u32);
    if cloud.orient(simplex[0], simplex[1], simplex[2], simplex[3]) == 0 {
        return Err(HullError::Degenerate);
    }
    Ok(simplex)
}

impl<'a> Quickhull<'a> {
    /// The tetrahedron (a, b, c, d) with all four faces wound outward.
    fn from_simplex(cloud: &'a Cloud, [a, b, c, d]: [u32; 4]) -> Quickhull<'a> {
        // Make d lie below (a, b, c); the other faces then wind so the opposite vertex is below.
        let (b, c) = if cloud.orient(a, b, c, d) > 0 {
            (c, b)
        } else {
            (b, c)
        };
        let faces = [[a, b, c], [a, d, b], [b, d, c], [a, c, d]];
        let mut hull = Quickhull {
            cloud,
            triangles: Vec::new(),
            queue: BinaryHeap::new(),
        };
        for (t, face) in faces.iter().enumerate() {
            // Each neighbour is the face holding the same edge reversed.
            let neighbors = [0, 1, 2].map(|i| {
                let (from, to) = (face[i], face[(i + 1) % 3]);
                let holds = |f: &[u32; 3]| (0..3).any(|k| f[k] == to && f[(k + 1) % 3] == from);
                (0..4).find(|&u| u != t && holds(&faces[u])).unwrap_or(t) as u32
            });
            hull.push_triangle(*face, neighbors);
        }
        hull
    }

    /// Appends a triangle and returns its index.
    fn push_triangle(&mut self, vertices: [u32; 3], neighbors: [u32; 3]) -> u32 {
        let [a, b, c] = vertices.map(|v| self.cloud.at(v));
        let normal = (b - a).cross(c - a).normalize_or_zero();
        self.triangles.push(Triangle {
            vertices,
            neighbors,
            normal,
            offset: normal.dot(a),
            outside: Vec::new(),
            farthest: None,
            alive: true,
        });
        (self.triangles.len() - 1) as u32
    }

    /// Gives point `p` to the candidate triangle it is farthest above, if `p` is more than the
    /// tolerance outside the hull; otherwise `p` is inside or on the hull and is dropped for good.
    ///
    /// "Outside" is first measured to the planes, as quickhull does, but a point barely above
    /// the planes can still be far from the hull beyond a sharp vertex (the tip of a needle is
    /// within the tolerance of every face plane for a long way). So a point within the tolerance
    /// of every plane is kept anyway when its true distance to the triangles it is above
    /// exceeds the tolerance.
    fn assign(&mut self, p: u32, candidates: &[u32]) {
        let point = self.cloud.at(p);
        let tolerance = self.cloud.tolerance;
        let mut best: Option<(u32, f64)> = None;
        let mut nearest = f64::INFINITY;
        for &t in candidates {
            let tri = &self.triangles[t as usize];
            let distance = tri.normal.dot(point) - tri.offset;
            if distance > 0.0 {
                if best.is_none_or(|(_, d)| distance > d) {
                    best = Some((t, distance));
                }
                if distance <= tolerance {
                    let [a, b, c] = tri.vertices.map(|v| self.cloud.at(v));
                    nearest = nearest.min(distance_to_triangle(point, [a, b, c], tri.normal));
                }
            }
        }
        let Some((t, distance)) = best else {
            return;
        };
        // Above 10⁻³ tolerances the exact test agrees; below, only absurd needles would matter.
        let keep = distance > tolerance || (distance > 1e-3 * tolerance && nearest > tolerance);
        if keep {
            let tri = &mut self.triangles[t as usize];
            tri.outside.push(p);
            if tri.farthest.is_none_or(|(_, d)| distance > d) {
                tri.farthest = Some((p, distance));
                self.queue.push((distance.to_bits(), t));
            }
        }
    }

    /// The live triangle with the farthest outside point, and that point.
    fn farthest_outside(&mut self) -> Option<(u32, u32)> {
        while let Some((bits, t)) = self.queue.pop() {
            let tri = &self.triangles[t as usize];
            match tri.farthest {
                Some((p, d)) if tri.alive && d.to_bits() == bits => return Some((t, p)),
                _ => continue,
            }
        }
        None
    }

    /// True when `p` lies strictly above triangle `t` (exact test).
    fn sees(&self, t: u32, p: u32) -> bool {
        let [a, b, c] = self.triangles[t as usize].vertices;
        self.cloud.orient(a, b, c, p) > 0
    }

    /// Adds `eye` (farthest above triangle `face`) to the hull.
    fn add_point(&mut self, face: u32, eye: u32) -> Result<(), HullError> {
        let visible = self.visible_from(face, eye);
        if visible.is_empty() {
            // Over 10⁻³ tolerances above the face, yet not above it exactly: impossible, as that
            // still dwarfs f64 rounding on the grid. Dropping the point would still be safe.
            let tri = &mut self.triangles[face as usize];
            tri.farthest = None;
            for p in std::mem::take(&mut tri.outside) {
                if p != eye {
                    self.assign(p, &[face]);
                }
            }
            return Ok(());
        }
        let horizon = self.horizon(&visible)?;
        let cone = self.build_cone(eye, &horizon)?;
        for &t in &visible {
            let tri = &mut self.triangles[t as usize];
            tri.alive = false;
            tri.farthest = None;
            for p in std::mem::take(&mut tri.outside) {
                if p != eye {
                    self.assign(p, &cone);
                }
            }
        }
        Ok(())
    }

    /// The triangles `eye` is strictly above, by flood fill from `start`. With exact tests this
    /// patch is connected and its border is one simple loop: pushing the eye a hair towards the
    /// hull's inside changes no strict answer and puts it in general position, where both
    /// facts are classical.
    fn visible_from(&self, start: u32, eye: u32) -> Vec<u32> {
        if !self.sees(start, eye) {
            return Vec::new();
        }
        let mut visible = vec![start];
        let mut tested = HashSet::from([start]);
        let mut next = 0;
        while next < visible.len() {
            let t = visible[next];
            next += 1;
            for n in self.triangles[t as usize].neighbors {
                if tested.insert(n) && self.sees(n, eye) {
                    visible.push(n);
                }
            }
        }
        visible
    }

    /// The edges between visible and hidden triangles, checked to form one simple loop.
    fn horizon(&self, visible: &[u32]) -> Result<Vec<HorizonEdge>, HullError> {
        let is_visible: HashSet<u32> = visible.iter().copied().collect();
        let mut horizon = Vec::new();
        for &t in visible {
            let tri = &self.triangles[t as usize];
            for i in 0..3 {
                if !is_visible.contains(&tri.neighbors[i]) {
                    horizon.push(HorizonEdge {
                        start: tri.vertices[i],
                        end: tri.vertices[(i + 1) % 3],
                        hidden: tri.neighbors[i],
                    });
                }
            }
        }
        // One loop through every edge, each vertex left once: anything else would tear the mesh.
        let next: HashMap<u32, u32> = horizon.iter().map(|e| (e.start, e.end)).collect();
        let start = horizon.first().map_or(0, |e| e.start);
        let mut v = start;
        let mut steps = 0;
        while steps < horizon.len() {
            v = *next.get(&v).ok_or(HullError::Degenerate)?;
            steps += 1;
            if v == start {
                break;
            }
        }
        let one_loop = v == start && steps == horizon.len() && next.len() == horizon.len();
        if horizon.len() < 3 || !one_loop {
            return Err(HullError::Degenerate);
        }
        Ok(horizon)
    }

    /// Replaces the visible patch by the triangles (start, end, eye) over each horizon edge,
    /// stitched to the hidden triangles and to each other. Returns the new triangles.
    fn build_cone(&mut self, eye: u32, horizon: &[HorizonEdge]) -> Result<Vec<u32>, HullError> {
        let first = self.triangles.len() as u32;
        let cone: Vec<u32> = (first..first + horizon.len() as u32).collect();
        // Triangle (s, e, eye) has edges s→e, e→eye, eye→s. Its e→eye edge is shared with the
        // cone triangle whose horizon edge starts at e; its eye→s edge with the one ending at s.
        let by_start: HashMap<u32, u32> = horizon
            .iter()
            .zip(&cone)
            .map(|(h, &t)| (h.start, t))
            .collect();
        let by_end: HashMap<u32, u32> = horizon
            .iter()
            .zip(&cone)
            .map(|(h, &t)| (h.end, t))
            .collect();
        for h in horizon {
            let after = *by_start.get(&h.end).ok_or(HullError::Degenerate)?;
            let before = *by_end.get(&h.start).ok_or(HullError::Degenerate)?;
            let t = self.push_triangle([h.start, h.end, eye], [h.hidden, after, before]);
            // The hidden triangle now borders the new one across end→start.
            let hidden = &mut self.triangles[h.hidden as usize];
            let slot = (0..3)
                .find(|&i| hidden.vertices[i] == h.end && hidden.vertices[(i + 1) % 3] == h.start);
            hidden.neighbors[slot.ok_or(HullError::Degenerate)?] = t;
        }
        Ok(cone)
    }

    /// The live triangles, renumbered.
    fn into_mesh(self) -> TriangleMesh {
        let mut new_index = vec![u32::MAX; self.triangles.len()];
        let mut count = 0;
        for (i, t) in self.triangles.iter().enumerate() {
            if t.alive {
                new_index[i] = count;
                count += 1;
            }
        }
        let live = self.triangles.iter().filter(|t| t.alive);
        TriangleMesh {
            triangles: live.clone().map(|t| t.vertices).collect(),
            neighbors: live
                .map(|t| t.neighbors.map(|n| new_index[n as usize]))
                .collect(),
        }
    }
}

/// Distance from `p` to the triangle (a, b, c) with unit normal `normal`: to the plane if `p`
/// projects inside it, else to the nearest edge (Ericson, "Real-Time Collision Detection", 5.1.5,
/// in its simplest form).
fn distance_to_triangle(p: DVec3, corners: [DVec3; 3], normal: DVec3) -> f64 {
    let inside = (0..3).all(|i| {
        let (a, b) = (corners[i], corners[(i + 1) % 3]);
        (b - a).cross(p - a).dot(normal) >= 0.0
    });
    if inside {
        return normal.dot(p - corners[0]).abs();
    }
    (0..3)
        .map(|i| {
            let (a, b) = (corners[i], corners[(i + 1) % 3]);
            let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            p.distance(a + t * (b - a))
        })
        .fold(f64::INFINITY, f64::min)
}
