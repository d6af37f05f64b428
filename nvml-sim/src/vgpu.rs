//! vGPU host calls: a GPU's vGPU types (`nvmlDeviceGetSupportedVgpus`,
//! `nvmlDeviceGetCreatableVgpus`, `nvmlVgpuType*`) and its running vGPU
//! instances (`nvmlDeviceGetActiveVgpus`, `nvmlVgpuInstance*`), as
//! `nvidia-smi vgpu` reads them. Scenario keys: `[[device.vgpu_type]]` and
//! `[[device.vgpu]]`, on a GPU whose `virtualization_mode` is 3 (host vGPU).
//!
//! Type and instance ids are machine-wide in NVML (the calls take no device
//! handle), so they are looked up over every device of the scenario.

use crate::call::*;
use crate::scenario::{Device, VgpuInstance, VgpuType};
use crate::state::*;
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_char, c_uint, c_ulonglong};

/// The vGPU type `id`, on whichever GPU of the machine has it.
fn find_type(st: &State, id: nvmlVgpuTypeId_t) -> R<&VgpuType> {
    st.sc
        .device
        .iter()
        .flat_map(|d| d.vgpu_type.as_deref().unwrap_or_default())
        .find(|t| t.id == id)
        .ok_or(INVALID_ARGUMENT)
}

/// The running vGPU `id`, on whichever GPU runs it: 0 is no handle
/// (INVALID_ARGUMENT), an id no GPU runs NOT_FOUND.
fn find_instance(st: &State, id: nvmlVgpuInstance_t) -> R<&VgpuInstance> {
    if id == 0 {
        return Err(INVALID_ARGUMENT);
    }
    st.sc
        .device
        .iter()
        .flat_map(|d| &d.vgpu)
        .find(|v| v.id == id)
        .ok_or(NOT_FOUND)
}

/// A GPU's vGPU types, NOT_SUPPORTED when it is no vGPU host.
fn types(d: &Device) -> R<&[VgpuType]> {
    d.vgpu_type.as_deref().ok_or(NOT_SUPPORTED)
}

/// Whether one more vGPU of type `t` could start on `d` now.
fn creatable(d: &Device, t: &VgpuType, heterogeneous: bool) -> bool {
    if let Some(c) = t.creatable {
        return c;
    }
    let running = d.vgpu.iter().filter(|v| v.type_id == t.id).count();
    let others = d.vgpu.iter().any(|v| v.type_id != t.id);
    running < t.max_instances as usize && (heterogeneous || !others)
}

/// A type call's string out-parameter with an in/out size: on a short
/// buffer, INSUFFICIENT_SIZE with the size needed.
fn put_sized(buf: *mut c_char, size: *mut c_uint, s: &str) -> R {
    let size = nn(size)?;
    let need = c_uint::try_from(s.len() + 1).map_err(|_| UNKNOWN)?;
    if size.get() < need {
        size.set(need);
        return Err(INSUFFICIENT_SIZE);
    }
    put_str(buf, size.get(), s)?;
    size.set(need);
    Ok(())
}

/// A type id's numeric property, NOT_SUPPORTED when the scenario leaves it out.
fn type_u32(
    sym: &'static str,
    id: nvmlVgpuTypeId_t,
    out: *mut c_uint,
    get: impl FnOnce(&VgpuType) -> Option<u32>,
) -> nvmlReturn_t {
    sys_fn(sym, |st, _| {
        let o = nn(out)?;
        o.set(get(find_type(st, id)?).ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

/// A running vGPU's string property (`fn(instance, *mut c_char, size)`).
fn instance_str(
    sym: &'static str,
    id: nvmlVgpuInstance_t,
    buf: *mut c_char,
    size: c_uint,
    get: impl FnOnce(&VgpuInstance) -> Option<&str>,
) -> nvmlReturn_t {
    sys_fn(sym, |st, _| {
        let v = find_instance(st, id)?;
        put_str(buf, size, get(v).ok_or(NOT_SUPPORTED)?)
    })
}

/// A running vGPU's numeric property.
fn instance_u32(
    sym: &'static str,
    id: nvmlVgpuInstance_t,
    out: *mut c_uint,
    get: impl FnOnce(&VgpuInstance) -> Option<u32>,
) -> nvmlReturn_t {
    sys_fn(sym, |st, _| {
        let o = nn(out)?;
        o.set(get(find_instance(st, id)?).ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetSupportedVgpus(
    device: nvmlDevice_t,
    vgpuCount: *mut c_uint,
    vgpuTypeIds: *mut nvmlVgpuTypeId_t,
) -> nvmlReturn_t {
    let counted = is_fill(vgpuCount, vgpuTypeIds);
    dev_call("nvmlDeviceGetSupportedVgpus", device, false, counted, |c| {
        let ids: Vec<_> = types(c.dev)?.iter().map(|t| t.id).collect();
        put_list(vgpuCount, vgpuTypeIds, ids.into_iter())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCreatableVgpus(
    device: nvmlDevice_t,
    vgpuCount: *mut c_uint,
    vgpuTypeIds: *mut nvmlVgpuTypeId_t,
) -> nvmlReturn_t {
    let counted = is_fill(vgpuCount, vgpuTypeIds);
    dev_call("nvmlDeviceGetCreatableVgpus", device, false, counted, |c| {
        let heterogeneous = c.opt(&c.dev.vgpu_heterogeneous_mode) == Some(1);
        let ids: Vec<_> = types(c.dev)?
            .iter()
            .filter(|t| creatable(c.dev, t, heterogeneous))
            .map(|t| t.id)
            .collect();
        put_list(vgpuCount, vgpuTypeIds, ids.into_iter())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetActiveVgpus(
    device: nvmlDevice_t,
    vgpuCount: *mut c_uint,
    vgpuInstances: *mut nvmlVgpuInstance_t,
) -> nvmlReturn_t {
    let counted = is_fill(vgpuCount, vgpuInstances);
    dev_call("nvmlDeviceGetActiveVgpus", device, false, counted, |c| {
        types(c.dev)?;
        let ids: Vec<_> = c.dev.vgpu.iter().map(|v| v.id).collect();
        put_list(vgpuCount, vgpuInstances, ids.into_iter())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetName(
    vgpuTypeId: nvmlVgpuTypeId_t,
    vgpuTypeName: *mut c_char,
    size: *mut c_uint,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuTypeGetName", |st, _| {
        put_sized(vgpuTypeName, size, &find_type(st, vgpuTypeId)?.name)
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetClass(
    vgpuTypeId: nvmlVgpuTypeId_t,
    vgpuTypeClass: *mut c_char,
    size: *mut c_uint,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuTypeGetClass", |st, _| {
        put_sized(vgpuTypeClass, size, &find_type(st, vgpuTypeId)?.class)
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetLicense(
    vgpuTypeId: nvmlVgpuTypeId_t,
    vgpuTypeLicenseString: *mut c_char,
    size: c_uint,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuTypeGetLicense", |st, _| {
        let t = find_type(st, vgpuTypeId)?;
        put_str(
            vgpuTypeLicenseString,
            size,
            t.license.as_deref().ok_or(NOT_SUPPORTED)?,
        )
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetFramebufferSize(
    vgpuTypeId: nvmlVgpuTypeId_t,
    fbSize: *mut c_ulonglong,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuTypeGetFramebufferSize", |st, _| {
        let o = nn(fbSize)?;
        o.set(find_type(st, vgpuTypeId)?.framebuffer);
        Ok(())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetDeviceID(
    vgpuTypeId: nvmlVgpuTypeId_t,
    deviceID: *mut c_ulonglong,
    subsystemID: *mut c_ulonglong,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuTypeGetDeviceID", |st, _| {
        let (d, s) = (nn(deviceID)?, nn(subsystemID)?);
        let t = find_type(st, vgpuTypeId)?;
        d.set(t.device_id.ok_or(NOT_SUPPORTED)?);
        s.set(t.subsystem_id.ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetNumDisplayHeads(
    vgpuTypeId: nvmlVgpuTypeId_t,
    numDisplayHeads: *mut c_uint,
) -> nvmlReturn_t {
    type_u32(
        "nvmlVgpuTypeGetNumDisplayHeads",
        vgpuTypeId,
        numDisplayHeads,
        |t| t.display_heads,
    )
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetResolution(
    vgpuTypeId: nvmlVgpuTypeId_t,
    displayIndex: c_uint,
    xdim: *mut c_uint,
    ydim: *mut c_uint,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuTypeGetResolution", |st, _| {
        let (x, y) = (nn(xdim)?, nn(ydim)?);
        let t = find_type(st, vgpuTypeId)?;
        if displayIndex >= t.display_heads.unwrap_or(0) {
            return Err(INVALID_ARGUMENT);
        }
        let [rx, ry] = t.resolution.ok_or(NOT_SUPPORTED)?;
        x.set(rx);
        y.set(ry);
        Ok(())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetFrameRateLimit(
    vgpuTypeId: nvmlVgpuTypeId_t,
    frameRateLimit: *mut c_uint,
) -> nvmlReturn_t {
    type_u32(
        "nvmlVgpuTypeGetFrameRateLimit",
        vgpuTypeId,
        frameRateLimit,
        |t| t.frame_rate_limit,
    )
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetMaxInstancesPerVm(
    vgpuTypeId: nvmlVgpuTypeId_t,
    vgpuInstanceCountPerVm: *mut c_uint,
) -> nvmlReturn_t {
    type_u32(
        "nvmlVgpuTypeGetMaxInstancesPerVm",
        vgpuTypeId,
        vgpuInstanceCountPerVm,
        |t| t.max_instances_per_vm,
    )
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuTypeGetMaxInstances(
    device: nvmlDevice_t,
    vgpuTypeId: nvmlVgpuTypeId_t,
    vgpuInstanceCount: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlVgpuTypeGetMaxInstances", device, |c| {
        let o = nn(vgpuInstanceCount)?;
        let t = types(c.dev)?
            .iter()
            .find(|t| t.id == vgpuTypeId)
            .ok_or(INVALID_ARGUMENT)?;
        o.set(t.max_instances);
        Ok(())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetType(
    vgpuInstance: nvmlVgpuInstance_t,
    vgpuTypeId: *mut nvmlVgpuTypeId_t,
) -> nvmlReturn_t {
    instance_u32("nvmlVgpuInstanceGetType", vgpuInstance, vgpuTypeId, |v| {
        Some(v.type_id)
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetVmID(
    vgpuInstance: nvmlVgpuInstance_t,
    vmId: *mut c_char,
    size: c_uint,
    vmIdType: *mut nvmlVgpuVmIdType_t,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuInstanceGetVmID", |st, _| {
        let kind = nn(vmIdType)?;
        let v = find_instance(st, vgpuInstance)?;
        put_str(vmId, size, v.vm_id.as_deref().ok_or(NOT_SUPPORTED)?)?;
        kind.set(v.vm_id_type);
        Ok(())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetUUID(
    vgpuInstance: nvmlVgpuInstance_t,
    uuid: *mut c_char,
    size: c_uint,
) -> nvmlReturn_t {
    instance_str("nvmlVgpuInstanceGetUUID", vgpuInstance, uuid, size, |v| {
        v.uuid.as_deref()
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetMdevUUID(
    vgpuInstance: nvmlVgpuInstance_t,
    mdevUuid: *mut c_char,
    size: c_uint,
) -> nvmlReturn_t {
    instance_str(
        "nvmlVgpuInstanceGetMdevUUID",
        vgpuInstance,
        mdevUuid,
        size,
        |v| v.mdev_uuid.as_deref(),
    )
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetVmDriverVersion(
    vgpuInstance: nvmlVgpuInstance_t,
    version: *mut c_char,
    length: c_uint,
) -> nvmlReturn_t {
    instance_str(
        "nvmlVgpuInstanceGetVmDriverVersion",
        vgpuInstance,
        version,
        length,
        // NVML's text while no NVIDIA driver runs in the guest.
        |v| Some(v.vm_driver_version.as_deref().unwrap_or("Not Available")),
    )
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetFbUsage(
    vgpuInstance: nvmlVgpuInstance_t,
    fbUsage: *mut c_ulonglong,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuInstanceGetFbUsage", |st, _| {
        let o = nn(fbUsage)?;
        o.set(
            find_instance(st, vgpuInstance)?
                .fb_usage
                .ok_or(NOT_SUPPORTED)?,
        );
        Ok(())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetLicenseStatus(
    vgpuInstance: nvmlVgpuInstance_t,
    licensed: *mut c_uint,
) -> nvmlReturn_t {
    instance_u32(
        "nvmlVgpuInstanceGetLicenseStatus",
        vgpuInstance,
        licensed,
        |v| v.license_status,
    )
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetFrameRateLimit(
    vgpuInstance: nvmlVgpuInstance_t,
    frameRateLimit: *mut c_uint,
) -> nvmlReturn_t {
    instance_u32(
        "nvmlVgpuInstanceGetFrameRateLimit",
        vgpuInstance,
        frameRateLimit,
        |v| v.frame_rate_limit,
    )
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetEccMode(
    vgpuInstance: nvmlVgpuInstance_t,
    eccMode: *mut nvmlEnableState_t,
) -> nvmlReturn_t {
    instance_u32("nvmlVgpuInstanceGetEccMode", vgpuInstance, eccMode, |v| {
        v.ecc_mode
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetAccountingMode(
    vgpuInstance: nvmlVgpuInstance_t,
    mode: *mut nvmlEnableState_t,
) -> nvmlReturn_t {
    instance_u32(
        "nvmlVgpuInstanceGetAccountingMode",
        vgpuInstance,
        mode,
        |v| v.accounting_mode,
    )
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetGpuInstanceId(
    vgpuInstance: nvmlVgpuInstance_t,
    gpuInstanceId: *mut c_uint,
) -> nvmlReturn_t {
    instance_u32(
        "nvmlVgpuInstanceGetGpuInstanceId",
        vgpuInstance,
        gpuInstanceId,
        |v| Some(v.gpu_instance_id.unwrap_or(INVALID_GPU_INSTANCE_ID)),
    )
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetGpuPciId(
    vgpuInstance: nvmlVgpuInstance_t,
    vgpuPciId: *mut c_char,
    length: *mut c_uint,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuInstanceGetGpuPciId", |st, _| {
        let v = find_instance(st, vgpuInstance)?;
        put_sized(
            vgpuPciId,
            length,
            v.gpu_pci_id.as_deref().unwrap_or("00000000:00:00.0"),
        )
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetLicenseInfo_v2(
    vgpuInstance: nvmlVgpuInstance_t,
    licenseInfo: *mut nvmlVgpuLicenseInfo_t,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuInstanceGetLicenseInfo_v2", |st, _| {
        let o = nn(licenseInfo)?;
        let v = find_instance(st, vgpuInstance)?;
        let state = v.license_state.ok_or(NOT_SUPPORTED)?;
        let [year, month, day, hour, min, sec] = v.license_expiry.unwrap_or_default();
        let short = |x: u32| u16::try_from(x).unwrap_or(u16::MAX);
        o.set(nvmlVgpuLicenseInfo_t {
            isLicensed: u8::from(state == 5),
            licenseExpiry: nvmlVgpuLicenseExpiry_t {
                year,
                month: short(month),
                day: short(day),
                hour: short(hour),
                min: short(min),
                sec: short(sec),
                status: u8::from(v.license_expiry.is_some()),
            },
            currentState: state,
        });
        Ok(())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetEncoderSessions(
    vgpuInstance: nvmlVgpuInstance_t,
    sessionCount: *mut c_uint,
    sessionInfo: *mut nvmlEncoderSessionInfo_t,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuInstanceGetEncoderSessions", |st, _| {
        let v = find_instance(st, vgpuInstance)?;
        let [n, fps, latency] = v.encoder_stats.unwrap_or_default();
        // SAFETY: a plain C struct of integers, for which zero is valid.
        let mut s: nvmlEncoderSessionInfo_t = unsafe { std::mem::zeroed() };
        s.vgpuInstance = v.id;
        s.averageFps = fps;
        s.averageLatency = latency;
        put_list(
            sessionCount,
            sessionInfo,
            (0..n).map(|i| {
                let mut e = s;
                e.sessionId = i + 1;
                e
            }),
        )
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetEncoderStats(
    vgpuInstance: nvmlVgpuInstance_t,
    sessionCount: *mut c_uint,
    averageFps: *mut c_uint,
    averageLatency: *mut c_uint,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuInstanceGetEncoderStats", |st, _| {
        let (n, f, l) = (nn(sessionCount)?, nn(averageFps)?, nn(averageLatency)?);
        let [sessions, fps, latency] = find_instance(st, vgpuInstance)?
            .encoder_stats
            .unwrap_or_default();
        n.set(sessions);
        f.set(fps);
        l.set(latency);
        Ok(())
    })
}

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetFBCStats(
    vgpuInstance: nvmlVgpuInstance_t,
    fbcStats: *mut nvmlFBCStats_t,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuInstanceGetFBCStats", |st, _| {
        let o = nn(fbcStats)?;
        let [sessions, fps, latency] = find_instance(st, vgpuInstance)?
            .fbc_stats
            .unwrap_or_default();
        o.set(nvmlFBCStats_t {
            sessionsCount: sessions,
            averageFPS: fps,
            averageLatency: latency,
        });
        Ok(())
    })
}

/// `nvmlDeviceGetVgpuUtilization`: one sample per running vGPU that has one
/// (`utilization` in the scenario), as unsigned ints. A GPU that is no vGPU
/// host is NOT_SUPPORTED; a host with no samples SUCCESS and count 0.
///
/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetVgpuUtilization(
    device: nvmlDevice_t,
    lastSeenTimeStamp: c_ulonglong,
    sampleValType: *mut nvmlValueType_t,
    vgpuInstanceSamplesCount: *mut c_uint,
    utilizationSamples: *mut nvmlVgpuInstanceUtilizationSample_t,
) -> nvmlReturn_t {
    let counted = is_fill(vgpuInstanceSamplesCount, utilizationSamples);
    dev_call(
        "nvmlDeviceGetVgpuUtilization",
        device,
        false,
        counted,
        |c| {
            let kind = nn(sampleValType)?;
            types(c.dev)?;
            let stamp = lastSeenTimeStamp.saturating_add(1);
            let value = |x: u32| nvmlValue_t { uiVal: x };
            let samples: Vec<_> = c
                .dev
                .vgpu
                .iter()
                .filter_map(|v| {
                    let [sm, mem, enc, dec] = v.utilization?;
                    Some(nvmlVgpuInstanceUtilizationSample_t {
                        vgpuInstance: v.id,
                        timeStamp: stamp,
                        smUtil: value(sm),
                        memUtil: value(mem),
                        encUtil: value(enc),
                        decUtil: value(dec),
                    })
                })
                .collect();
            kind.set(nvmlValueType_enum_NVML_VALUE_TYPE_UNSIGNED_INT);
            put_list(
                vgpuInstanceSamplesCount,
                utilizationSamples,
                samples.into_iter(),
            )
        },
    )
}

/// `nvmlVgpuPlacementId_v1`: the struct's size and version 1.
const PLACEMENT_V1: c_uint = std::mem::size_of::<nvmlVgpuPlacementId_t>() as c_uint | (1 << 24);

/// # Safety
/// As [`nvmlDeviceGetSupportedVgpus`].
#[no_mangle]
pub unsafe extern "C" fn nvmlVgpuInstanceGetPlacementId(
    vgpuInstance: nvmlVgpuInstance_t,
    pPlacement: *mut nvmlVgpuPlacementId_t,
) -> nvmlReturn_t {
    sys_fn("nvmlVgpuInstanceGetPlacementId", |st, _| {
        let o = nn(pPlacement)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != PLACEMENT_V1 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let id = find_instance(st, vgpuInstance)?
            .placement_id
            .ok_or(NOT_SUPPORTED)?;
        o.set(nvmlVgpuPlacementId_t {
            version: PLACEMENT_V1,
            placementId: id,
        });
        Ok(())
    })
}
