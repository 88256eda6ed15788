//! Narrow phase: contact points between pairs of shapes.

pub mod gjk;
