//! Cache prefetch hints for loops that hop through memory by index (the contact update walks
//! contacts, colliders and bodies in no particular order, and waited on each load in turn).
//! A hint changes no result; off x86-64 it does nothing.

/// Asks the CPU to start loading every cache line of `value` into the cache.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    prefetch_ptr(value as *const T);
}

/// [`prefetch`] by address: `value` is never read (a prefetch does not fault, whatever the
/// address), so it may point at something another thread is writing.
#[inline(always)]
pub(crate) fn prefetch_ptr<T>(value: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        const LINE: usize = 64;
        let start = value as *const i8;
        let mut offset = 0;
        while offset < std::mem::size_of::<T>() {
            // SAFETY: a prefetch is a hint that never faults and reads nothing into the
            // program, whatever the address. SSE is part of x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset)) };
            offset += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
