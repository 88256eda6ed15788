//! Wall-clock time for the profiler and the sandbox's timings.
//!
//! Natively this is std's [`Instant`]. A browser (`wasm32-unknown-unknown`) has no std
//! clock (`Instant::now` panics there), so on that target `Instant` reads a source the
//! embedding installs with `set_source` (the web build installs the page's
//! `performance.now()`); until one is installed every instant is 0 and every duration
//! zero, so the step runs and only its timings read 0.

#[cfg(not(target_arch = "wasm32"))]
pub use std::time::Instant;

#[cfg(target_arch = "wasm32")]
pub use web::{set_source, Instant};

#[cfg(target_arch = "wasm32")]
mod web {
    use std::sync::OnceLock;
    use std::time::Duration;

    /// Seconds since some fixed moment, from the embedding.
    static SOURCE: OnceLock<fn() -> f64> = OnceLock::new();

    /// Installs the clock: a function returning seconds since a fixed moment, never
    /// decreasing. Only the first call counts.
    pub fn set_source(seconds: fn() -> f64) {
        let _ = SOURCE.set(seconds);
    }

    /// A moment, in seconds from [`set_source`]'s clock.
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Instant(f64);

    impl Instant {
        /// Now.
        pub fn now() -> Self {
            Self(SOURCE.get().map_or(0.0, |f| f()))
        }

        /// Time since this moment (zero if the clock went back).
        pub fn elapsed(&self) -> Duration {
            Self::now() - *self
        }

        /// Time from `earlier` to this moment (zero if `earlier` is later).
        pub fn duration_since(&self, earlier: Instant) -> Duration {
            *self - earlier
        }
    }

    impl std::ops::Sub for Instant {
        type Output = Duration;

        fn sub(self, earlier: Instant) -> Duration {
            Duration::from_secs_f64((self.0 - earlier.0).max(0.0))
        }
    }
}
