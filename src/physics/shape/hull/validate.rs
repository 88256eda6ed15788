//! The hull's self-check: every invariant of the half-edge mesh and its geometry.

use std::f64::consts::TAU;

use glam::DVec3;

use super::polygon::{corner_bulges, newell_normal};
use super::ConvexHull;
use crate::physics::math::Vec3;

/// `validate` accepts this many hull tolerances of slack: merged faces are fitted planes, so
/// their vertices sit up to one tolerance off them, and the planes tilt a little against their
/// neighbours' vertices.
pub(super) const VALIDATE_SLACK: f32 = 4.0;

impl ConvexHull {
    /// Checks every invariant of the mesh: index ranges, twin pairs, face loops, vertex fans
    /// (degree ≥ 3), Euler's formula V − E + F = 2, unit outward normals, planar convex
    /// counter-clockwise faces and global convexity, all geometry within a few tolerances.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_counts()?;
        self.validate_edges()?;
        self.validate_faces()?;
        self.validate_vertices()?;
        self.validate_geometry()
    }

    /// Sizes and index ranges.
    fn validate_counts(&self) -> Result<(), String> {
        let (v, f, e) = (self.vertices.len(), self.faces.len(), self.edges.len());
        if v < 4 || f < 4 || e < 12 {
            return Err(format!(
                "too small for a solid: {v} vertices, {f} faces, {e} half-edges"
            ));
        }
        if e % 2 != 0 || v > u16::MAX as usize || f > u16::MAX as usize || e > u16::MAX as usize {
            return Err(format!(
                "bad sizes: {v} vertices, {f} faces, {e} half-edges"
            ));
        }
        let euler = v as i64 - (e / 2) as i64 + f as i64;
        if euler != 2 {
            return Err(format!("Euler characteristic V - E + F = {euler}, not 2"));
        }
        for (i, edge) in self.edges.iter().enumerate() {
            let (o, t, n, fc) = (edge.origin, edge.twin, edge.next, edge.face);
            if o as usize >= v || t as usize >= e || n as usize >= e || fc as usize >= f {
                return Err(format!("half-edge {i} has an index out of range: {edge:?}"));
            }
        }
        match self.faces.iter().position(|face| face.edge as usize >= e) {
            Some(i) => Err(format!("face {i} points at a missing half-edge")),
            None => Ok(()),
        }
    }

    /// Twins pair up as 2k / 2k + 1 and each twin starts where its partner ends.
    fn validate_edges(&self) -> Result<(), String> {
        for (i, edge) in self.edges.iter().enumerate() {
            if edge.twin as usize != i ^ 1 {
                return Err(format!(
                    "half-edge {i} has twin {}, not {}",
                    edge.twin,
                    i ^ 1
                ));
            }
            let end = self.edges[edge.next as usize].origin;
            if self.edges[i ^ 1].origin != end {
                return Err(format!("half-edge {i}: its twin does not start at its end"));
            }
            if edge.origin == end {
                return Err(format!("half-edge {i} starts and ends at vertex {end}"));
            }
        }
        Ok(())
    }

    /// Each face loop closes, has at least 3 edges that all name the face, and together the
    /// loops use every half-edge exactly once.
    fn validate_faces(&self) -> Result<(), String> {
        let mut seen = vec![false; self.edges.len()];
        for (f, face) in self.faces.iter().enumerate() {
            let mut e = face.edge as usize;
            let mut count = 0;
            loop {
                if seen[e] {
                    return Err(format!("half-edge {e} lies on two face loops (face {f})"));
                }
                seen[e] = true;
                if self.edges[e].face as usize != f {
                    return Err(format!(
                        "half-edge {e} on face {f}'s loop names another face"
                    ));
                }
                count += 1;
                e = self.edges[e].next as usize;
                if e == face.edge as usize {
                    break;
                }
            }
            if count < 3 {
                return Err(format!("face {f} has only {count} edges"));
            }
        }
        match seen.iter().position(|&s| !s) {
            Some(e) => Err(format!("half-edge {e} is on no face loop")),
            None => Ok(()),
        }
    }

    /// Each vertex has one fan of at least 3 edges (turning around it reaches them all).
    fn validate_vertices(&self) -> Result<(), String> {
        let mut degree = vec![0usize; self.vertices.len()];
        let mut first = vec![usize::MAX; self.vertices.len()];
        for (i, edge) in self.edges.iter().enumerate() {
            degree[edge.origin as usize] += 1;
            first[edge.origin as usize] = first[edge.origin as usize].min(i);
        }
        for (v, (&d, &start)) in degree.iter().zip(&first).enumerate() {
            if d < 3 {
                return Err(format!("vertex {v} has degree {d}, needs at least 3"));
            }
            let mut fan = 0;
            let mut e = start;
            loop {
                fan += 1;
                e = self.edges[self.edges[e].twin as usize].next as usize;
                if e == start || fan > d {
                    break;
                }
            }
            if fan != d {
                return Err(format!("vertex {v}: its {d} edges do not form one fan"));
            }
        }
        Ok(())
    }

    /// Unit normals, planar convex counter-clockwise faces, every vertex behind every plane.
    fn validate_geometry(&self) -> Result<(), String> {
        let tol = VALIDATE_SLACK * self.tolerance();
        for (f, face) in self.faces.iter().enumerate() {
            let n = face.normal;
            if !n.is_finite() || (n.length() - 1.0).abs() > 1e-4 || !face.offset.is_finite() {
                return Err(format!("face {f} has a bad plane: {face:?}"));
            }
            let corners: Vec<Vec3> = self
                .face_edges(f)
                .map(|e| self.vertices[self.edges[e].origin as usize])
                .collect();
            if let Some(p) = corners
                .iter()
                .find(|p| (n.dot(**p) - face.offset).abs() > tol)
            {
                return Err(format!(
                    "face {f} is not planar: vertex {p} is off its plane"
                ));
            }
            let area = newell_normal(corners.iter().map(|p| p.as_dvec3()));
            if area.dot(n.as_dvec3()) <= 0.0 {
                return Err(format!(
                    "face {f} does not wind counter-clockwise about its normal"
                ));
            }
            // Corner by corner rather than edge against vertex: a short edge's direction is
            // rounding noise in f32, a corner's distance from its chord is not.
            let corners: Vec<DVec3> = corners.iter().map(|p| p.as_dvec3()).collect();
            let (bulges, turning) = corner_bulges(&corners, n.as_dvec3());
            if let Some(i) = bulges.iter().position(|&b| b < -f64::from(tol)) {
                return Err(format!(
                    "face {f} is not convex at its corner {}",
                    corners[i]
                ));
            }
            if (turning - TAU).abs() > 1.0 {
                return Err(format!("face {f} turns {turning} rad around, not 2π"));
            }
            if let Some(p) = self
                .vertices
                .iter()
                .find(|p| n.dot(**p) > face.offset + tol)
            {
                return Err(format!(
                    "vertex {p} lies in front of face {f}: hull not convex"
                ));
            }
        }
        Ok(())
    }
}
