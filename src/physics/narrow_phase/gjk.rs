//! GJK distance between convex shapes. STUB: being written.
