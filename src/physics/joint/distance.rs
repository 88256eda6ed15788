//! The distance joint: min ≤ |p_b − p_a| ≤ max along the line between the anchors
//! (`parts::Line`). A rod (min = max) is one two-sided row, solved in its island's block
//! where it has one; a rope (min = 0) or a range is a limit row each way, each pushing one
//! way only and speculative while slack (it lets the gap close exactly in a sub-step, like
//! a contact). The accumulated impulses are `impulse.x` (the rod's row, or the lower limit,
//! ≥ 0) and `impulse.y` (the upper limit, ≤ 0), along u.

use super::block::{Row, Slot};
use super::parts::{self, Anchors, JointBodies, Line, SubStep};
use super::{JointConstraint, JointPass};

/// One pass over a distance joint.
pub(super) fn solve<B: JointBodies + ?Sized>(
    c: &mut JointConstraint,
    min: f32,
    max: f32,
    bodies: &mut B,
    step: &SubStep,
) {
    let anchors = Anchors::new(c, bodies);
    let Anchors { ra, rb, .. } = anchors;
    let line = Line::new(c, bodies, &anchors);
    let (u, length, k_along, v) = (line.u, line.length, line.k, line.rate);
    if step.pass == JointPass::WarmStart {
        parts::apply(bodies, c, ra, rb, u * (c.impulse.x + c.impulse.y));
        return;
    }
    if k_along <= 0.0 {
        return;
    }
    if min == max {
        if !c.is_sequential() {
            return;
        }
        // A rod: one two-sided row, C = |d| − L, Ċ = v.
        let delta = parts::equality_delta(c.impulse.x, v, length - max, k_along, step);
        c.impulse.x += delta;
        parts::apply(bodies, c, ra, rb, u * delta);
        return;
    }
    // Lower limit (pushes apart, impulse ≥ 0), then upper (pulls, ≤ 0).
    for (row, limit, sign) in [(0usize, min, 1.0f32), (1, max, -1.0)] {
        if row == 0 && min <= 0.0 {
            continue;
        }
        // Gap to the limit, positive when slack.
        let gap = sign * (length - limit);
        // The accumulated impulse along the limit's own direction stays ≥ 0.
        let old = sign * c.impulse[row];
        let new = parts::limit_impulse(old, sign * v, gap, k_along, step);
        c.impulse[row] = sign * new;
        let p = u * (sign * (new - old));
        parts::apply(bodies, c, ra, rb, p);
    }
}

/// A rod's equality row for its island's block: J = (−u, −r_a×u, u, r_b×u), C = |d| − L.
pub(super) fn equality_rows<B: JointBodies + ?Sized>(
    index: u32,
    c: &JointConstraint,
    bodies: &B,
    length: f32,
    anchors: &Anchors,
    rows: &mut Vec<Row>,
) {
    let Anchors { ra, rb, .. } = *anchors;
    let line = Line::new(c, bodies, anchors);
    let u = line.u;
    rows.push(c.row(
        index,
        Slot::Linear(0),
        [-u, -ra.cross(u), u, rb.cross(u)],
        line.length - length,
    ));
}
