//! Keeping a long-running view's resident memory small.
//!
//! glibc's malloc gives each thread that allocates an arena of its own
//! (with its own resident pages and free lists); `nvq top`'s threads
//! allocate little and seldom, so they share one ([`one_malloc_arena`]).
//!
//! What was tried and not kept: giving back, after the first frame, the
//! pages of nvq's own code that start-up touched (`madvise(MADV_DONTNEED)`
//! on the executable's read-only mappings). The kernel maps file pages back
//! in whole folios around each fault, and the code `top` runs each sample is
//! spread over the binary, so within seconds the code's resident size was
//! what it had been (4.1 MiB of 5.7); only the read-only data's 0.15 MiB
//! stayed given back (`benches/RESULTS.md`, issue #32).

/// At most one malloc arena. Call before the threads start.
pub fn one_malloc_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; M_ARENA_MAX may be
    // set at any time.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}
