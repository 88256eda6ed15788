//! Narrow phase: contact points between pairs of shapes.

pub mod epa;
pub mod geometry;
pub mod gjk;
