//! Device getters: PCI.

use super::*;

fn pci_info(sym: &'static str, device: nvmlDevice_t, pci: *mut nvmlPciInfo_t) -> nvmlReturn_t {
    dev_fn(sym, device, |c| {
        let o = nn(pci)?;
        o.set(pci_struct(c.dev)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPciInfo_v3(
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    pci_info("nvmlDeviceGetPciInfo_v3", device, pci)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPciInfo_v2(
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    pci_info("nvmlDeviceGetPciInfo_v2", device, pci)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPciInfo(
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    pci_info("nvmlDeviceGetPciInfo", device, pci)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPciInfoExt(
    device: nvmlDevice_t,
    pci: *mut nvmlPciInfoExt_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetPciInfoExt", device, |c| {
        let o = nn(pci)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != PCI_INFO_EXT_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let p = &c.dev.pci;
        let mut v = nvmlPciInfoExt_v1_t {
            version: PCI_INFO_EXT_V1,
            domain: p.domain.ok_or(NOT_SUPPORTED)?,
            bus: p.bus.ok_or(NOT_SUPPORTED)?,
            device: p.device.ok_or(NOT_SUPPORTED)?,
            pciDeviceId: p.device_id.unwrap_or(0),
            pciSubSystemId: p.subsystem_id.unwrap_or(0),
            baseClass: p.base_class.ok_or(NOT_SUPPORTED)?,
            subClass: p.sub_class.ok_or(NOT_SUPPORTED)?,
            busId: [0; 32],
        };
        fill_chars(&mut v.busId, &c.dev.bus_id().ok_or(NOT_SUPPORTED)?);
        o.set(v);
        Ok(())
    })
}

scalar!(nvmlDeviceGetCurrPcieLinkGeneration, c_uint, |d| d
    .pcie
    .link_gen_current);
scalar!(nvmlDeviceGetMaxPcieLinkGeneration, c_uint, |d| d
    .pcie
    .link_gen_max);
scalar!(nvmlDeviceGetGpuMaxPcieLinkGeneration, c_uint, |d| d
    .pcie
    .link_gen_gpu_max);
scalar!(nvmlDeviceGetCurrPcieLinkWidth, c_uint, |d| d
    .pcie
    .link_width_current);
scalar!(nvmlDeviceGetMaxPcieLinkWidth, c_uint, |d| d
    .pcie
    .link_width_max);
scalar!(nvmlDeviceGetPcieReplayCounter, c_uint, |d| d
    .pcie
    .replay_counter);

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPcieThroughput(
    device: nvmlDevice_t,
    counter: nvmlPcieUtilCounter_t,
    value: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetPcieThroughput", device, |c| {
        let o = nn(value)?;
        let f = match counter {
            0 => &c.dev.pcie.tx_throughput,
            1 => &c.dev.pcie.rx_throughput,
            _ => return Err(INVALID_ARGUMENT),
        };
        o.set(c.val(f)?);
        Ok(())
    })
}

/// Cumulative throttled time (ns) for the power (0) and thermal (1) policies; the reference
/// time is the call's place on a 1 s clock (µs).
///
/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetViolationStatus(
    device: nvmlDevice_t,
    perfPolicyType: nvmlPerfPolicyType_t,
    violTime: *mut nvmlViolationTime_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetViolationStatus", device, |c| {
        let o = nn(violTime)?;
        let f = match perfPolicyType {
            0 => &c.dev.violation.power,
            1 => &c.dev.violation.thermal,
            _ => return Err(NOT_SUPPORTED),
        };
        o.set(nvmlViolationTime_t {
            referenceTime: c.n.saturating_mul(1_000_000),
            violationTime: c.val(f)?,
        });
        Ok(())
    })
}
