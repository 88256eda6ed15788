//! Steps 3 and 4 of building a hull: merging flat faces into convex polygons, then assembling
//! the half-edge mesh (see the module documentation of `hull`).

use std::collections::HashMap;
use std::f64::consts::TAU;

use glam::DVec3;

use super::polygon::{corner_bulges, newell_normal};
use super::quickhull::{Cloud, TriangleMesh};
use super::{ConvexHull, HalfEdge, HullError, HullFace};
use crate::physics::math::Vec3;

// ---------------------------------------------------------------------------------------------
// Step 3: merging flat faces.
// ---------------------------------------------------------------------------------------------

/// The merged hull, or `None` if merging went wrong somewhere (never seen; see `new`).
pub(super) fn merged_hull(
    points: &[Vec3],
    cloud: &Cloud,
    mesh: &TriangleMesh,
) -> Option<ConvexHull> {
    let loops = FaceMerger::new(cloud, mesh).merge()?;
    let hull = assemble(points, cloud, &loops).ok()?;
    hull.validate().is_ok().then_some(hull)
}

/// Groups the hull's triangles into flat convex polygons.
///
/// A group is a set of triangles forming one face. Two adjacent groups merge when
/// - the border of their union is one simple loop (the face is a disc, not a ring),
/// - all their vertices lie within the tolerance of the plane through that loop (Newell normal),
/// - every corner of the loop turns left or is straight within the tolerance, and the loop turns
///   once around: a convex polygon, and
/// - each corner left with only two faces (so it will be removed) is straight within the
///   tolerance: removing it moves the hull by less than the tolerance.
///
/// Pairs of triangles are tried flattest first, so exactly coplanar pieces join before nearly
/// coplanar ones. Measuring flatness by distance rather than by the angle between normals
/// keeps slivers from blocking merges: a thin triangle's normal is noise, its distances are not.
struct FaceMerger<'a> {
    points: &'a [DVec3],
    tolerance: f64,
    mesh: &'a TriangleMesh,
    /// Triangles around each point.
    fans: Vec<Vec<u32>>,
    /// The group of each triangle.
    group_of: Vec<u32>,
    /// The triangles of each group (empty once merged into another).
    members: Vec<Vec<u32>>,
}

impl<'a> FaceMerger<'a> {
    /// Every triangle in its own group.
    fn new(cloud: &'a Cloud, mesh: &'a TriangleMesh) -> FaceMerger<'a> {
        let mut fans = vec![Vec::new(); cloud.points.len()];
        for (t, tri) in mesh.triangles.iter().enumerate() {
            for &v in tri {
                fans[v as usize].push(t as u32);
            }
        }
        let count = mesh.triangles.len() as u32;
        FaceMerger {
            points: &cloud.points,
            tolerance: cloud.tolerance,
            mesh,
            fans,
            group_of: (0..count).collect(),
            members: (0..count).map(|t| vec![t]).collect(),
        }
    }

    /// Merges what can be merged, then returns each face's vertex loop (point indices,
    /// counter-clockwise from outside) with the straight-edge vertices removed.
    fn merge(mut self) -> Option<Vec<Vec<u32>>> {
        let candidates = self.flat_pairs();
        // Later merges can enable pairs that failed before; a few passes settle everything.
        for _ in 0..4 {
            let mut merged_any = false;
            for &(_, t, u) in &candidates {
                let (g, h) = (self.group_of[t as usize], self.group_of[u as usize]);
                if g != h && self.can_merge(g, h) {
                    self.join(g, h);
                    merged_any = true;
                }
            }
            if !merged_any {
                break;
            }
        }
        let mut loops = Vec::new();
        for g in 0..self.members.len() as u32 {
            if !self.members[g as usize].is_empty() {
                loops.push(self.boundary_loop(g, g)?);
            }
        }
        Some(remove_straight_vertices(loops, self.points.len()))
    }

    /// Adjacent triangle pairs whose four corners are flat within the tolerance, flattest first.
    fn flat_pairs(&self) -> Vec<(f64, u32, u32)> {
        let mut pairs = Vec::new();
        for (t, tri) in self.mesh.triangles.iter().enumerate() {
            for i in 0..3 {
                let u = self.mesh.neighbors[t][i] as usize;
                if u < t {
                    continue;
                }
                let (a, b, c) = (tri[i], tri[(i + 1) % 3], tri[(i + 2) % 3]);
                let Some(&d) = self.mesh.triangles[u].iter().find(|&&v| v != a && v != b) else {
                    continue;
                };
                // The union of (a, b, c) and (b, a, d) is the loop a → d → b → c.
                let quad = [a, d, b, c].map(|v| self.points[v as usize]);
                let Some(normal) = newell_normal(quad.into_iter()).try_normalize() else {
                    continue;
                };
                let flatness = spread(normal, quad.into_iter());
                if flatness <= self.tolerance {
                    pairs.push((flatness, t as u32, u as u32));
                }
            }
        }
        pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
        pairs
    }

    /// Whether groups g and h may become one face (see the type's documentation).
    fn can_merge(&self, g: u32, h: u32) -> bool {
        let Some(boundary) = self.boundary_loop(g, h) else {
            return false;
        };
        let corners: Vec<DVec3> = boundary.iter().map(|&v| self.points[v as usize]).collect();
        let Some(normal) = newell_normal(corners.iter().copied()).try_normalize() else {
            return false;
        };
        let vertices = self.group_vertices(g, h);
        let all = vertices.iter().map(|&v| self.points[v as usize]);
        spread(normal, all) <= self.tolerance && self.is_convex(&boundary, &corners, normal, g, h)
    }

    /// Whether the loop is a convex polygon within the tolerance, with every corner that would
    /// keep only two faces straight.
    fn is_convex(
        &self,
        boundary: &[u32],
        corners: &[DVec3],
        normal: DVec3,
        g: u32,
        h: u32,
    ) -> bool {
        let (bulges, turning) = corner_bulges(corners, normal);
        let corners_ok = bulges.iter().zip(boundary).all(|(&bulge, &v)| {
            let straight = bulge.abs() <= self.tolerance;
            bulge >= -self.tolerance && (straight || self.degree_after(v, g, h) >= 3)
        });
        corners_ok && (turning - TAU).abs() < 1.0
    }

    /// How many faces would meet at point `v` once g and h are one.
    fn degree_after(&self, v: u32, g: u32, h: u32) -> usize {
        let mut groups: Vec<u32> = self.fans[v as usize]
            .iter()
            .map(|&t| self.group_of[t as usize])
            .map(|x| if x == h { g } else { x })
            .collect();
        groups.sort_unstable();
        groups.dedup();
        groups.len()
    }

    /// The border of groups g ∪ h as one loop of point indices, or `None` if it is not one
    /// simple loop (two loops: the union is a ring; a point left twice: the union is pinched).
    fn boundary_loop(&self, g: u32, h: u32) -> Option<Vec<u32>> {
        let inside = |t: u32| {
            let x = self.group_of[t as usize];
            x == g || x == h
        };
        let both: &[u32] = if g == h {
            &[]
        } else {
            &self.members[h as usize]
        };
        let mut next_of: HashMap<u32, u32> = HashMap::new();
        let mut start = None;
        for &t in self.members[g as usize].iter().chain(both) {
            let tri = self.mesh.triangles[t as usize];
            for i in 0..3 {
                if !inside(self.mesh.neighbors[t as usize][i]) {
                    if next_of.insert(tri[i], tri[(i + 1) % 3]).is_some() {
                        return None;
                    }
                    start.get_or_insert(tri[i]);
                }
            }
        }
        let start = start?;
        let mut boundary = vec![start];
        let mut v = *next_of.get(&start)?;
        while v != start {
            if boundary.len() >= next_of.len() {
                return None;
            }
            boundary.push(v);
            v = *next_of.get(&v)?;
        }
        (boundary.len() == next_of.len()).then_some(boundary)
    }

    /// The points of groups g and h, each once.
    fn group_vertices(&self, g: u32, h: u32) -> Vec<u32> {
        let triangles = self.members[g as usize]
            .iter()
            .chain(&self.members[h as usize]);
        let mut vertices: Vec<u32> = triangles
            .flat_map(|&t| self.mesh.triangles[t as usize])
            .collect();
        vertices.sort_unstable();
        vertices.dedup();
        vertices
    }

    /// Makes g and h one group (the smaller joins the larger).
    fn join(&mut self, g: u32, h: u32) {
        let (keep, gone) = if self.members[g as usize].len() >= self.members[h as usize].len() {
            (g, h)
        } else {
            (h, g)
        };
        let moved = std::mem::take(&mut self.members[gone as usize]);
        for &t in &moved {
            self.group_of[t as usize] = keep;
        }
        self.members[keep as usize].extend(moved);
    }
}

/// Width of the slab, along `normal`, holding all `points`: max − min of normal · p.
fn spread(normal: DVec3, points: impl Iterator<Item = DVec3>) -> f64 {
    let (lo, hi) = points.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| {
        let d = normal.dot(p);
        (lo.min(d), hi.max(d))
    });
    hi - lo
}

/// Removes the points where only two faces meet (the middle of a straight edge; the merge
/// checked they are straight), dropping any face left with under 3 corners, until none remain.
fn remove_straight_vertices(mut loops: Vec<Vec<u32>>, point_count: usize) -> Vec<Vec<u32>> {
    loop {
        let mut faces_at = vec![0u32; point_count];
        for &v in loops.iter().flatten() {
            faces_at[v as usize] += 1;
        }
        let before: usize = loops.iter().map(Vec::len).sum::<usize>() + loops.len();
        for l in &mut loops {
            l.retain(|&v| faces_at[v as usize] >= 3);
        }
        loops.retain(|l| l.len() >= 3);
        let after: usize = loops.iter().map(Vec::len).sum::<usize>() + loops.len();
        if after == before {
            return loops;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Step 4: the half-edge mesh.
// ---------------------------------------------------------------------------------------------

/// Builds the hull from face loops of point indices: vertices are the used input points (in
/// input order), each directed edge (a, b) gets a half-edge, paired as 2k / 2k + 1 with (b, a).
///
/// Normals come from the snapped loop (Newell); the offset is the largest normal · v over the
/// face's own vertices, so a face merged within the tolerance keeps all its corners behind it.
pub(super) fn assemble(
    points: &[Vec3],
    cloud: &Cloud,
    loops: &[Vec<u32>],
) -> Result<ConvexHull, HullError> {
    let index = |i: usize| u16::try_from(i).map_err(|_| HullError::TooManyPoints(points.len()));
    let mut used: Vec<u32> = loops.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let mut vertex_of = vec![u16::MAX; points.len()];
    for (i, &p) in used.iter().enumerate() {
        vertex_of[p as usize] = index(i)?;
    }
    let mut faces = Vec::with_capacity(loops.len());
    let mut slots: Vec<Option<HalfEdge>> = Vec::new();
    let mut edge_of: HashMap<(u16, u16), usize> = HashMap::new();
    for (f, face_loop) in loops.iter().enumerate() {
        let ids: Vec<usize> = (0..face_loop.len())
            .map(|i| {
                let a = vertex_of[face_loop[i] as usize];
                let b = vertex_of[face_loop[(i + 1) % face_loop.len()] as usize];
                // The reverse edge, if already placed, owns the pair; else open a new pair.
                let id = match edge_of.get(&(b, a)) {
                    Some(&twin) => twin ^ 1,
                    None => {
                        slots.extend([None, None]);
                        slots.len() - 2
                    }
                };
                (edge_of.insert((a, b), id).is_none())
                    .then_some(id)
                    .ok_or(HullError::Degenerate)
            })
            .collect::<Result<_, _>>()?;
        for (i, &id) in ids.iter().enumerate() {
            slots[id] = Some(HalfEdge {
                origin: vertex_of[face_loop[i] as usize],
                twin: index(id ^ 1)?,
                next: index(ids[(i + 1) % ids.len()])?,
                face: index(f)?,
            });
        }
        let normal = newell_normal(face_loop.iter().map(|&p| cloud.at(p))).normalize_or_zero();
        let offset = face_loop
            .iter()
            .map(|&p| normal.dot(points[p as usize].as_dvec3()))
            .fold(f64::NEG_INFINITY, f64::max);
        faces.push(HullFace {
            normal: normal.as_vec3(),
            offset: offset as f32,
            edge: index(ids[0])?,
        });
    }
    // A directed edge without its reverse means the loops do not close into a surface.
    let edges = slots
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or(HullError::Degenerate)?;
    Ok(ConvexHull {
        vertices: used.iter().map(|&p| points[p as usize]).collect(),
        faces,
        edges,
    })
}
