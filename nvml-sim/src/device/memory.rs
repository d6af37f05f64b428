//! Device getters: memory.

use super::*;

/// (total, reserved, used, free) of the device or MIG instance.
fn memory_values(c: &Ctx) -> R<(u64, u64, u64, u64)> {
    let m = match c.mig() {
        Some(m) => &m.memory,
        None => &c.dev.memory,
    };
    let total = c.val(&m.total)?;
    let reserved = c.opt(&m.reserved).unwrap_or(0);
    let used = match &m.used_timeline {
        // A GPU cannot hold more than it has: the timeline stops at what is left after `reserved`.
        Some(tl) => (tl.at(c.elapsed_s) as u64).min(total.saturating_sub(reserved)),
        None => c.val(&m.used)?,
    };
    // The live processes' memory on the GPU (not on a MIG instance), within the same bound.
    let used = match (c.target, c.live) {
        (Target::Gpu(i), Some(live)) => used
            .saturating_add(live.used_on(i))
            .min(total.saturating_sub(reserved).max(used)),
        _ => used,
    };
    let free = c
        .opt(&m.free)
        .unwrap_or_else(|| total.saturating_sub(reserved).saturating_sub(used));
    Ok((total, reserved, used, free))
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo(
    device: nvmlDevice_t,
    memory: *mut nvmlMemory_t,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetMemoryInfo", device, |c| {
        let o = nn(memory)?;
        let (total, reserved, used, free) = memory_values(c)?;
        o.set(nvmlMemory_t {
            total,
            free,
            used: used.saturating_add(reserved),
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryInfo_v2(
    device: nvmlDevice_t,
    memory: *mut nvmlMemory_v2_t,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetMemoryInfo_v2", device, |c| {
        let o = nn(memory)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != MEMORY_V2_VERSION {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let (total, reserved, used, free) = memory_values(c)?;
        o.set(nvmlMemory_v2_t {
            version: MEMORY_V2_VERSION,
            total,
            reserved,
            free,
            used,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetBAR1MemoryInfo(
    device: nvmlDevice_t,
    bar1Memory: *mut nvmlBAR1Memory_t,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetBAR1MemoryInfo", device, |c| {
        let o = nn(bar1Memory)?;
        // A MIG device has its own BAR1 share.
        let b = c.mig().map_or(&c.dev.bar1, |m| &m.bar1);
        let total = c.val(&b.total)?;
        let used = c.val(&b.used)?;
        let free = c.opt(&b.free).unwrap_or(total.saturating_sub(used));
        o.set(nvmlBAR1Memory_t {
            bar1Total: total,
            bar1Free: free,
            bar1Used: used,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetConfComputeProtectedMemoryUsage(
    device: nvmlDevice_t,
    memory: *mut nvmlMemory_t,
) -> nvmlReturn_t {
    dev_fn(
        "nvmlDeviceGetConfComputeProtectedMemoryUsage",
        device,
        |c| {
            let o = nn(memory)?;
            let m = &c.dev.conf_compute_protected_memory;
            let total = c.val(&m.total)?;
            let used = c.val(&m.used)?;
            let free = c.opt(&m.free).unwrap_or(total.saturating_sub(used));
            o.set(nvmlMemory_t { total, free, used });
            Ok(())
        },
    )
}
