//! EPA (placeholder)
