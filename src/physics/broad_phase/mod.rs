//! Broad phase: finds pairs of colliders whose bounding boxes overlap.
//!
//! STUB: being written (dynamic AABB tree, brute force reference).
