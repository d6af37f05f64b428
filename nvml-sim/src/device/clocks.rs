//! Device getters: clocks.

use super::*;

fn clock_of(c: &Ctx, set: &Clocks, t: u32) -> R<u32> {
    c.val(set.by_type(t).ok_or(INVALID_ARGUMENT)?)
}

macro_rules! clock_getter {
    ($name:ident, |$d:ident| $set:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: nvmlDevice_t,
            clockType: nvmlClockType_t,
            clock: *mut c_uint,
        ) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                let o = nn(clock)?;
                let $d = c.dev;
                o.set(clock_of(c, &$set, clockType)?);
                Ok(())
            })
        }
    };
}

clock_getter!(nvmlDeviceGetClockInfo, |d| d.clocks);
clock_getter!(nvmlDeviceGetMaxClockInfo, |d| d.max_clocks);
clock_getter!(nvmlDeviceGetApplicationsClock, |d| d.applications_clocks);
clock_getter!(nvmlDeviceGetDefaultApplicationsClock, |d| d
    .default_applications_clocks);
clock_getter!(nvmlDeviceGetMaxCustomerBoostClock, |d| d
    .max_customer_boost_clocks);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetClock(
    device: nvmlDevice_t,
    clockType: nvmlClockType_t,
    clockId: nvmlClockId_t,
    clockMHz: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetClock", device, |c| {
        let o = nn(clockMHz)?;
        let d = c.dev;
        let set = match clockId {
            0 => &d.clocks,
            1 => &d.applications_clocks,
            2 => &d.default_applications_clocks,
            3 => &d.max_customer_boost_clocks,
            _ => return Err(INVALID_ARGUMENT),
        };
        o.set(clock_of(c, set, clockType)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetSupportedMemoryClocks(
    device: nvmlDevice_t,
    count: *mut c_uint,
    clocksMHz: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetSupportedMemoryClocks", device, |c| {
        let l = c
            .dev
            .supported_memory_clocks
            .as_ref()
            .ok_or(NOT_SUPPORTED)?;
        put_list(count, clocksMHz, l.iter().copied())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetSupportedGraphicsClocks(
    device: nvmlDevice_t,
    memoryClockMHz: c_uint,
    count: *mut c_uint,
    clocksMHz: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetSupportedGraphicsClocks", device, |c| {
        if let Some(m) = &c.dev.supported_memory_clocks {
            if !m.contains(&memoryClockMHz) {
                return Err(NOT_FOUND);
            }
        }
        let by_memory = &c.dev.supported_graphics_clocks_by_memory;
        let l = match by_memory.get(&memoryClockMHz.to_string()) {
            Some(l) => l,
            None => c
                .dev
                .supported_graphics_clocks
                .as_ref()
                .ok_or(NOT_SUPPORTED)?,
        };
        put_list(count, clocksMHz, l.iter().copied())
    })
}
