//! How far apart two of this machine's cores are: two threads hand a counter back and
//! forth through one atomic (each waits for the other's increment), and the mean time of a
//! round trip is printed, ns. Two cores sharing a cache answer in tens to about a hundred
//! nanoseconds; cores on different dies or sockets, or a virtual machine's cores placed
//! there, take several hundred, and then every body a worker takes over from another costs
//! that much to fetch (see `docs/performance.md`, "Where the cores sit").
//!
//!     cargo run --release --example core_latency [ROUND_TRIPS]
//!
//! The best of five runs of ROUND_TRIPS (default 200 000) is printed.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let trips: u64 = match std::env::args().nth(1) {
        None => 200_000,
        Some(arg) => match arg.parse() {
            Ok(n) if n > 0 => n,
            _ => {
                eprintln!("core_latency: ROUND_TRIPS must be a positive integer, got {arg:?}");
                std::process::exit(2);
            }
        },
    };
    let best = (0..5)
        .map(|_| round_trip_ns(trips))
        .fold(f64::INFINITY, f64::min);
    println!("core-to-core round trip: {best:.0} ns");
}

/// Mean ns of `trips` round trips between this thread and another.
fn round_trip_ns(trips: u64) -> f64 {
    let counter = Arc::new(AtomicU64::new(0));
    let other = {
        let counter = counter.clone();
        std::thread::spawn(move || {
            for i in 0..trips {
                while counter.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                counter.store(2 * i + 2, Ordering::Release);
            }
        })
    };
    let start = Instant::now();
    for i in 0..trips {
        counter.store(2 * i + 1, Ordering::Release);
        while counter.load(Ordering::Acquire) != 2 * i + 2 {
            std::hint::spin_loop();
        }
    }
    let ns = start.elapsed().as_nanos() as f64 / trips as f64;
    other.join().expect("the other thread does not panic");
    ns
}
